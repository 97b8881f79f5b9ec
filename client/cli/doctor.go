package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/client/mcpconfig"
	"github.com/ihmt-dev/ihmt/client/unitfile"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// A doctor check's status.
const (
	checkOK   = "ok"
	checkWarn = "warn" // works, but something deserves attention
	checkFail = "fail" // something is broken; doctor exits non-zero
)

type check struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Finding string `json:"finding"`
	Fix     string `json:"fix,omitempty"`
}

// agentEnvVars are the variables Codex passes a stdio MCP server (its
// DEFAULT_ENV_VARS, less the macOS-only one): the harshest environment an
// agent gives ihmt-mcp.
var agentEnvVars = []string{"HOME", "LOGNAME", "PATH", "USER", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}

// pathsSubcommand is the hidden `ihmt doctor` argument that prints what
// package paths resolves in this process's environment; doctor runs it
// under an agent's environment.
const pathsSubcommand = "__paths"

func cmdDoctor(e *env, args []string) error {
	fs, asJSON := e.flags("doctor", "")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	h := newHost()
	if len(pos) == 1 && pos[0] == pathsSubcommand {
		p, err := paths.Resolve(h.getenv, h.goos, h.uid)
		out := map[string]string{"data": p.Data, "socket": p.Socket}
		if err != nil {
			out = map[string]string{"error": err.Error()}
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	d := &doctor{e: e, h: h, ctx: ctx}
	checks := d.run()
	failed := false
	for _, c := range checks {
		failed = failed || c.Status == checkFail
	}
	if *asJSON {
		if err := e.printJSON(map[string]any{"ok": !failed, "checks": checks}); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			fmt.Fprintf(e.stdout, "%-4s  %-18s %s\n", strings.ToUpper(c.Status), c.Name, c.Finding)
			if c.Fix != "" {
				fmt.Fprintf(e.stdout, "      %-18s fix: %s\n", "", c.Fix)
			}
		}
		if failed {
			fmt.Fprintln(e.stdout, "\nsomething is wrong: see FAIL above")
		} else {
			fmt.Fprintln(e.stdout, "\nall good")
		}
	}
	if failed {
		return errReported
	}
	return nil
}

type doctor struct {
	e      *env
	h      *host
	ctx    context.Context
	checks []check

	paths   paths.Paths
	mcpBin  string                // the ihmt-mcp found, if any
	stats   *ihmtv1.StatsResponse // the daemon's answer, if it serves
	service *unitfile.Status      // nil when there is no service manager
}

func (d *doctor) add(name, status, finding, fix string) {
	d.checks = append(d.checks, check{name, status, finding, fix})
}

func (d *doctor) run() []check {
	d.binaries()
	p, err := d.h.paths(d.e.socket)
	if err != nil {
		d.add("paths", checkFail, err.Error(), "")
		return d.checks
	}
	d.paths = p
	d.agentPaths()
	d.serviceStatus() // before the daemon: it says whether one should be running
	d.daemon()
	d.page()
	d.syncCheck()
	d.socketDir()
	d.store()
	d.freeDict()
	d.lexicon()
	d.lock()
	d.reportService()
	d.agents()
	d.hooks()
	return d.checks
}

const reinstallFix = "reinstall all three from one release (its .deb, .rpm or archive) or from one source: " + goInstall

// binaries: ihmtd and ihmt-mcp are found and are this ihmt's version.
func (d *doctor) binaries() {
	d.add("ihmt", checkOK, fmt.Sprintf("%s, version %s", d.h.exe, version.Describe()), "")
	for _, name := range []string{"ihmtd", "ihmt-mcp"} {
		bin, err := d.h.binary(name)
		var missing *missingBinary
		if errors.As(err, &missing) {
			d.add(name, checkFail, "not installed: "+missing.where(), installHint)
			continue
		}
		if err != nil {
			d.add(name, checkFail, err.Error(), installHint)
			continue
		}
		if name == "ihmt-mcp" {
			d.mcpBin = bin
		}
		ctx, cancel := context.WithTimeout(d.ctx, 5*time.Second)
		out, err := exec.CommandContext(ctx, bin, "-version").Output()
		cancel()
		fields := strings.Fields(string(out))
		// "NAME VERSION (commit …, built …)": the version is the second
		// word (the last one, before releases stamped a commit).
		if err != nil || len(fields) < 2 {
			d.add(name, checkFail, fmt.Sprintf("`%s -version` failed: %v %s", bin, err, strings.TrimSpace(string(out))), reinstallFix)
			continue
		}
		if v := fields[1]; v != version.Version {
			d.add(name, checkFail, fmt.Sprintf("%s is version %s, but this ihmt is %s", bin, v, version.Version), reinstallFix)
			continue
		}
		d.add(name, checkOK, fmt.Sprintf("%s, version %s", bin, version.Version), "")
	}
}

// agentPaths: an ihmt-mcp started by an agent that strips the environment
// (Codex keeps only a few variables) finds the same socket and store.
// Rather than predict package paths' answer, ask it: run this ihmt again
// under such an environment.
func (d *doctor) agentPaths() {
	const name = "agent environment"
	var env []string
	for _, k := range agentEnvVars {
		if v := d.h.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	// IHMT's own overrides reach a shim only through the agent's
	// configuration for it, which `ihmt mcp install` writes and the agent
	// checks below verify; carry them, so this check is about the rest.
	var overrides []string
	for _, k := range []string{"IHMT_HOME", "IHMT_SOCKET"} {
		if v := d.h.getenv(k); v != "" {
			env = append(env, k+"="+v)
			overrides = append(overrides, k)
		}
	}
	ctx, cancel := context.WithTimeout(d.ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.h.exe, "doctor", pathsSubcommand)
	cmd.Env = env
	out, err := cmd.Output()
	var got map[string]string
	if err == nil {
		err = json.Unmarshal(out, &got)
	}
	if err != nil {
		d.add(name, checkWarn, fmt.Sprintf("could not run %s under an agent's environment: %v", d.h.exe, err), "")
		return
	}
	if got["error"] != "" {
		d.add(name, checkFail, "under an agent's minimal environment the paths do not resolve: "+got["error"], "")
		return
	}
	want, _ := d.h.paths("") // without --socket: what this environment resolves
	if d.e.socket != "" {
		want.Socket = d.e.socket
	}
	var diffs []string
	if got["socket"] != want.Socket {
		diffs = append(diffs, fmt.Sprintf("socket %s, but here it is %s", got["socket"], want.Socket))
	}
	if got["data"] != want.Data {
		diffs = append(diffs, fmt.Sprintf("store %s, but here it is %s", got["data"], want.Data))
	}
	if len(diffs) > 0 {
		d.add(name, checkFail, "an agent that passes only "+strings.Join(agentEnvVars, ", ")+" would use "+strings.Join(diffs, "; "),
			"set IHMT_SOCKET (and IHMT_HOME) to the paths here, then run `ihmt mcp install --client …` again so every agent passes them")
		return
	}
	finding := "an agent's minimal environment (" + strings.Join(agentEnvVars, ", ") + ") finds the same socket and store"
	if len(overrides) > 0 {
		finding += " (given " + strings.Join(overrides, " and ") + ", which each agent's registration must pass: see below)"
	}
	d.add(name, checkOK, finding, "")
}

func (d *doctor) serviceStatus() {
	home, err := d.h.home()
	if err != nil {
		return
	}
	cfg := unitfile.Config{GOOS: d.h.goos, Home: home, UID: d.h.uid, Paths: d.paths, Run: d.h.run, LookPath: d.h.lookPath}
	cfg.Daemon, _ = d.h.binary("ihmtd")
	if _, err := cfg.Manager(); err != nil {
		return
	}
	if st, err := cfg.Status(d.ctx); err == nil {
		d.service = &st
	}
}

// daemon: something serves on the socket, and it is our version.
func (d *doctor) daemon() {
	const name = "daemon"
	sock := d.paths.Socket
	fi, err := os.Lstat(sock)
	if errors.Is(err, fs.ErrNotExist) {
		if d.service != nil && d.service.Installed && d.service.Problem == "" {
			d.add(name, checkWarn, "not running, though the service is installed", serviceFix(d.service))
			return
		}
		d.add(name, checkOK, "not running; the first agent call (or `ihmt daemon start`) starts it at "+sock, "")
		return
	}
	if err != nil {
		d.add(name, checkFail, err.Error(), "")
		return
	}
	if fi.Mode().Type() != fs.ModeSocket {
		d.add(name, checkFail, fmt.Sprintf("%s is not a socket (mode %v), so no daemon can listen there", sock, fi.Mode()), "move it away: mv "+unitfile.ShellQuote(sock)+" "+unitfile.ShellQuote(sock+".old"))
		return
	}
	if owner := fileUID(fi); owner != d.h.uid {
		d.add(name, checkFail, fmt.Sprintf("the socket %s belongs to uid %d, not to you (uid %d)", sock, owner, d.h.uid), "set IHMT_SOCKET to a path of your own, then `ihmt mcp install` again")
		return
	}
	if !paths.Listening(sock) {
		d.add(name, checkWarn, fmt.Sprintf("stale socket %s: it exists but nobody listens (a daemon that stopped uncleanly); the next start replaces it", sock), "ihmt daemon start")
		return
	}
	c, err := client.New(client.Options{Socket: sock})
	if err != nil {
		d.add(name, checkFail, err.Error(), "")
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(d.ctx, 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		d.add(name, checkWarn, err.Error(), "wait for it to open its store, or look at its log")
		return
	}
	st, err := c.Stats(ctx)
	if err != nil {
		d.add(name, checkFail, "it answers health checks but not Stats: "+err.Error(), "ihmt daemon stop; ihmt daemon start")
		return
	}
	d.stats = st
	if m := c.VersionMismatch(); m != "" {
		fix := "ihmt daemon stop (the next agent call starts the installed version)"
		if d.service != nil && d.service.Running() {
			fix = restartFix(d.service.Manager)
		}
		d.add(name, checkFail, m, fix)
		return
	}
	how := "started on demand, exits when idle"
	if !st.GetIdleExit() {
		how = "stays until stopped"
	}
	d.add(name, checkOK, fmt.Sprintf("ihmtd %s serves at %s (pid %d, %s; %d memories)", st.GetVersion(), sock, st.GetPid(), how, st.GetMemories()), "")
}

func restartFix(manager string) string {
	if manager == unitfile.Launchd {
		return "launchctl kickstart -k gui/$(id -u)/dev.ihmt.ihmtd"
	}
	return "systemctl --user restart ihmtd"
}

func serviceFix(st *unitfile.Status) string {
	if st.Manager == unitfile.Launchd {
		return "launchctl kickstart gui/$(id -u)/dev.ihmt.ihmtd; its log: ~/Library/Logs/ihmt/ihmtd.log"
	}
	return "systemctl --user enable --now ihmtd; its log: journalctl --user -u ihmtd"
}

// socketDir: the directory only the user can open; the socket 0600.
func (d *doctor) socketDir() {
	const name = "socket directory"
	dir := d.paths.RuntimeDir()
	fi, ok := d.existing(name, dir, os.Lstat, dir+" does not exist yet; the daemon creates it with mode 0700")
	if !ok {
		return
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		d.add(name, checkFail, dir+" is a symlink; the daemon refuses it", "make it a real directory, or set IHMT_SOCKET elsewhere")
	case !fi.IsDir():
		d.add(name, checkFail, dir+" is not a directory", "move it away, or set IHMT_SOCKET elsewhere")
	case fileUID(fi) != d.h.uid:
		d.add(name, checkFail, fmt.Sprintf("%s belongs to uid %d, not to you", dir, fileUID(fi)), "set IHMT_SOCKET to a path in a directory of your own")
	case fi.Mode().Perm()&0o077 != 0:
		d.add(name, checkFail, fmt.Sprintf("%s has mode %#o: other users could reach the socket, and the daemon refuses to start there", dir, fi.Mode().Perm()),
			"chmod 700 "+unitfile.ShellQuote(dir))
	default:
		if si, err := os.Lstat(d.paths.Socket); err == nil && si.Mode().Type() == fs.ModeSocket && si.Mode().Perm()&0o077 != 0 {
			d.add(name, checkFail, fmt.Sprintf("the socket %s has mode %#o, not 0600", d.paths.Socket, si.Mode().Perm()), "ihmt daemon stop; ihmt daemon start")
			return
		}
		d.add(name, checkOK, dir+" is yours, mode 0700", "")
	}
}

// existing looks path up for the check name: one not there yet is fine
// (absent says so: the daemon creates it), one that cannot be read fails
// the check. ok says whether there is a file to look at further.
func (d *doctor) existing(name, path string, stat func(string) (fs.FileInfo, error), absent string) (fi fs.FileInfo, ok bool) {
	fi, err := stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.add(name, checkOK, absent, "")
		return nil, false
	case err != nil:
		d.add(name, checkFail, err.Error(), "")
		return nil, false
	}
	return fi, true
}

// storeDir is the store the daemon reports, else the one paths resolves.
func (d *doctor) storeDir() string {
	if d.stats != nil && d.stats.GetStorePath() != "" {
		return d.stats.GetStorePath()
	}
	return d.paths.Data
}

// store: the store is the user's and private, all the way down.
func (d *doctor) store() {
	const name = "store"
	dir := d.storeDir()
	if _, ok := d.existing(name, dir, os.Stat, dir+" does not exist yet; the daemon creates it"); !ok {
		return
	}
	var open, foreign []string
	n := 0
	filepath.WalkDir(dir, func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			foreign = append(foreign, path+" ("+err.Error()+")")
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return nil
		}
		n++
		if info.Mode().Perm()&0o077 != 0 {
			open = append(open, fmt.Sprintf("%s (%#o)", path, info.Mode().Perm()))
		}
		if fileUID(info) != d.h.uid {
			foreign = append(foreign, fmt.Sprintf("%s (uid %d)", path, fileUID(info)))
		}
		return nil
	})
	switch {
	case len(foreign) > 0:
		d.add(name, checkFail, fmt.Sprintf("%d entries in %s are not yours: %s", len(foreign), dir, firstFew(foreign)),
			fmt.Sprintf("chown -R %d %s", d.h.uid, unitfile.ShellQuote(dir)))
	case len(open) > 0:
		d.add(name, checkFail, fmt.Sprintf("%d entries in %s are open to other users: %s", len(open), dir, firstFew(open)),
			"chmod -R go-rwx "+unitfile.ShellQuote(dir))
	default:
		d.add(name, checkOK, fmt.Sprintf("%s is yours and private (%d entries checked)", dir, n), "")
	}
}

func firstFew(s []string) string {
	if len(s) > 3 {
		return strings.Join(s[:3], ", ") + fmt.Sprintf(" and %d more", len(s)-3)
	}
	return strings.Join(s, ", ")
}

// lock: held by the daemon that serves, or by nobody.
func (d *doctor) lock() {
	const name = "lock"
	path := paths.Paths{Data: d.storeDir()}.LockFile()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		d.add(name, checkOK, "no lock file yet: no daemon has opened this store", "")
		return
	}
	// Probing takes a shared lock for an instant. A daemon starting in that
	// instant finds the store locked and exits (status 3); its client
	// starts another. Rare and harmless, but a probe, not a pure read.
	l := flock.New(path)
	free, err := l.TryRLock()
	if err != nil {
		d.add(name, checkFail, fmt.Sprintf("cannot probe %s: %v", path, err), "")
		return
	}
	if free {
		l.Unlock()
	}
	switch {
	case !free && d.stats != nil:
		d.add(name, checkOK, fmt.Sprintf("%s is held by the serving ihmtd (pid %d)", path, d.stats.GetPid()), "")
	case !free:
		d.add(name, checkFail, fmt.Sprintf("%s is held, but no daemon answers at %s: an ihmtd listening on another socket owns this store, and agents looking here cannot reach it", path, d.paths.Socket),
			"find it with `fuser -v "+unitfile.ShellQuote(path)+"` (or lsof), stop it, and give every program the same IHMT_SOCKET")
	case d.stats != nil:
		d.add(name, checkWarn, fmt.Sprintf("%s is free although ihmtd (pid %d) serves this store", path, d.stats.GetPid()), "ihmt daemon stop; ihmt daemon start")
	default:
		d.add(name, checkOK, path+" is free: no daemon is running", "")
	}
}

func (d *doctor) reportService() {
	const name = "service"
	st := d.service
	switch {
	case st == nil:
		d.add(name, checkOK, "no service manager support on "+d.h.goos+"; ihmtd starts on demand", "")
	case !st.Installed:
		d.add(name, checkOK, "not installed: ihmtd starts on demand and exits when idle (optional: `ihmt service install` keeps it running)", "")
	case st.Problem != "":
		d.add(name, checkWarn, fmt.Sprintf("installed (%s), but %s", st.File, st.Problem), "loginctl enable-linger $USER, and log in again")
	case !st.Current:
		d.add(name, checkWarn, st.File+" was written for another ihmtd, store or socket than this ihmt's", "ihmt service install")
	case !st.Running():
		d.add(name, checkWarn, fmt.Sprintf("installed (%s) but not running: %s, %s", st.File, st.Enabled, st.Active), serviceFix(st))
	default:
		d.add(name, checkOK, fmt.Sprintf("%s service installed and running (%s)", st.Manager, st.File), "")
	}
}

// agents: which clients have IHMT registered, pointing at a working
// ihmt-mcp, with the instructions in place.
func (d *doctor) agents() {
	home, err := d.h.home()
	if err != nil {
		d.add("agents", checkFail, err.Error(), "")
		return
	}
	menv := mcpconfig.Env{Home: home, Getenv: d.h.getenv, GOOS: d.h.goos}
	registered := 0
	for _, cl := range mcpconfig.Clients {
		r := mcpconfig.Inspect(menv, cl, mcpconfig.ScopeUser)
		fix := "ihmt mcp install --client " + cl
		// In use here: its CLI is on PATH, or it keeps files of its own
		// here; a directory holding only what IHMT left (backups) is not.
		cliPath, cliErr := "", errors.New("no CLI")
		if name := mcpconfig.CLI(cl); name != "" {
			cliPath, cliErr = d.h.lookPath(name)
		}
		switch {
		case r.Problem != "":
			d.add(cl, checkFail, r.Problem, "")
			continue
		case !r.Registered && cliErr == nil:
			d.add(cl, checkWarn, fmt.Sprintf("%s is installed here (%s), but IHMT is not registered in %s", cl, cliPath, r.File), fix)
			continue
		case !r.Registered && r.InUse != "":
			d.add(cl, checkWarn, fmt.Sprintf("%s is in use here (%s exists), but IHMT is not registered in %s", cl, r.InUse, r.File), fix)
			continue
		case !r.Registered:
			onPath := "no " + mcpconfig.CLI(cl) + " on PATH, "
			if mcpconfig.CLI(cl) == "" {
				onPath = ""
			}
			d.add(cl, checkOK, fmt.Sprintf("not in use here (%sno configuration or state of its own)", onPath), "")
			continue
		}
		registered++
		if fi, err := os.Stat(r.Command); err != nil || fi.Mode().Perm()&0o111 == 0 {
			d.add(cl, checkFail, fmt.Sprintf("%s registers %s, which does not exist or is not executable", r.File, r.Command), fix)
			continue
		}
		if missing := d.missingOverrides(r.Env); missing != "" {
			d.add(cl, checkFail, fmt.Sprintf("%s: its ihmt-mcp would not get %s, so it would look for a different daemon or store", r.File, missing), fix)
			continue
		}
		var issues []string
		if d.mcpBin != "" && r.Command != d.mcpBin {
			issues = append(issues, fmt.Sprintf("it registers %s, not the ihmt-mcp beside this ihmt (%s)", r.Command, d.mcpBin))
		}
		if !r.Current {
			issues = append(issues, "its entry differs from what install writes (for Codex: the tool approval)")
		}
		if r.Instructions == "" {
			// Kept in the client's settings; the shim sends them.
		} else if !r.InstructionsPresent {
			issues = append(issues, "no IHMT instructions in "+r.Instructions)
		} else if !r.InstructionsCurrent {
			issues = append(issues, "the IHMT instructions in "+r.Instructions+" are out of date")
		}
		if len(issues) > 0 {
			d.add(cl, checkWarn, "registered in "+r.File+", but "+strings.Join(issues, "; "), fix)
			continue
		}
		where := "instructions in " + r.Instructions
		if r.Instructions == "" {
			where = "instructions sent by ihmt-mcp when it connects"
		}
		d.add(cl, checkOK, fmt.Sprintf("registered in %s (%s), %s", r.File, r.Command, where), "")
		if cl == mcpconfig.Gemini {
			d.geminiTrust(menv)
		}
	}
	if registered == 0 {
		d.add("agents", checkFail, "no agent has IHMT registered, so none can reach the memory", "ihmt mcp install --client claude (or codex, or opencode)")
	}
}

// geminiTrust: Gemini CLI starts no MCP server in a folder the person has
// not trusted, so a registration that is fine can still give no memory
// here.
func (d *doctor) geminiTrust(menv mcpconfig.Env) {
	const name = "gemini folder"
	trusted, why := mcpconfig.GeminiTrust(menv, d.h.cwd)
	if trusted {
		d.add(name, checkOK, fmt.Sprintf("Gemini CLI starts MCP servers in %s (%s)", d.h.cwd, why), "")
		return
	}
	if why == "" {
		why = "~/.gemini/trustedFolders.json could not be read"
	}
	d.add(name, checkWarn, fmt.Sprintf("Gemini CLI starts no MCP server in %s, IHMT's included: %s", d.h.cwd, why),
		"run `gemini` in each project folder once and trust it (Gemini asks), or `gemini --skip-trust` for one session")
}

// missingOverrides names the IHMT overrides in effect here that a
// registration does not pass on.
func (d *doctor) missingOverrides(env map[string]string) string {
	var missing []string
	for _, k := range []string{"IHMT_HOME", "IHMT_SOCKET"} {
		if v := d.h.getenv(k); v != "" && env[k] != v {
			missing = append(missing, k+"="+v)
		}
	}
	return strings.Join(missing, " and ")
}

// fileUID is the uid owning fi, or -1 where the system does not say.
func fileUID(fi fs.FileInfo) int {
	uid, _ := paths.FileOwner(fi)
	return uid
}

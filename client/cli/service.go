package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/client/unitfile"
	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// host is what `service`, `mcp` and `doctor` learn about the machine. It is
// read once, here at the edge; the packages below take plain values, so
// tests substitute a home directory, an environment and a command runner.
type host struct {
	getenv   func(string) string
	exe      string // this ihmt executable
	goos     string
	uid      int
	cwd      string
	run      func(ctx context.Context, dir string, argv []string) ([]byte, error)
	lookPath func(string) (string, error)
	now      func() time.Time
}

// newHost returns the real machine; tests replace it.
var newHost = func() *host {
	exe, _ := os.Executable()
	cwd, _ := os.Getwd()
	return &host{
		getenv:   os.Getenv,
		exe:      exe,
		goos:     runtime.GOOS,
		uid:      os.Getuid(),
		cwd:      cwd,
		run:      execRun,
		lookPath: exec.LookPath,
		now:      time.Now,
	}
}

// execRun runs a command with its output captured, bounded so that a hung
// service manager cannot hang the CLI.
func execRun(ctx context.Context, dir string, argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

func (h *host) home() (string, error) {
	home := h.getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("HOME is %q, not an absolute path: set HOME to your home directory", home)
	}
	return filepath.Clean(home), nil
}

// paths resolves the store and socket as every IHMT program does; socket,
// when set (--socket), wins.
func (h *host) paths(socket string) (paths.Paths, error) {
	p, err := paths.Resolve(h.getenv, h.goos, h.uid)
	if err != nil {
		return paths.Paths{}, err
	}
	if socket != "" {
		if !filepath.IsAbs(socket) {
			return paths.Paths{}, fmt.Errorf("--socket %q is not an absolute path", socket)
		}
		p.Socket = socket
	}
	return p, nil
}

// binary finds one of IHMT's programs: beside this ihmt first (the three
// are built and installed together), else on PATH, else where `go install`
// puts it (whose directory a new user may not have on PATH yet). The path
// is absolute: it goes into service files and agents' configurations. Not
// found, the error is a *missingBinary.
func (h *host) binary(name string) (string, error) {
	if h.exe != "" {
		if p := filepath.Join(filepath.Dir(h.exe), name); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := h.lookPath(name); err == nil {
		return filepath.Abs(p)
	}
	gobin := h.goBin()
	if p := filepath.Join(gobin, name); gobin != "" && isExecutable(p) {
		return p, nil
	}
	return "", &missingBinary{name: name, exe: h.exe, expected: filepath.Join(gobin, name)}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// goBin is where `go install` puts programs: GOBIN, else the first GOPATH
// entry's bin, else ~/go/bin (Go's default GOPATH); "" without a usable
// HOME. A GOBIN or GOPATH set only with `go env -w` is missed: asking `go
// env` would mean running go, which a dry run does not.
func (h *host) goBin() string {
	if d := h.getenv("GOBIN"); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if list := filepath.SplitList(h.getenv("GOPATH")); len(list) > 0 && filepath.IsAbs(list[0]) {
		return filepath.Join(list[0], "bin")
	}
	home, err := h.home()
	if err != nil {
		return ""
	}
	return filepath.Join(home, "go", "bin")
}

// goInstall installs IHMT's three programs, run in the IHMT source: every
// message that sends someone to install them quotes it.
const goInstall = "go install ./daemon/cmd/ihmtd ./shim/cmd/ihmt-mcp ./client/cmd/ihmt"

// installHint is how to install IHMT's programs, for every message that
// finds one missing.
const installHint = "install all three from the IHMT source with `" + goInstall + "`; they go to $(go env GOPATH)/bin (or GOBIN), which must be on PATH"

// missingBinary is one of IHMT's programs found nowhere ihmt looks.
// expected is where `go install` would put it: what a dry run or a
// snippet shows in its place.
type missingBinary struct{ name, exe, expected string }

func (m *missingBinary) Error() string {
	return fmt.Sprintf("%s is not installed: %s; %s", m.name, m.where(), installHint)
}

func (m *missingBinary) where() string {
	return fmt.Sprintf("it is neither beside %s, nor on PATH, nor at %s", m.exe, m.expected)
}

// warn says on stderr that what was printed (what, e.g. "the snippet")
// uses m.expected, a program that is not there yet, how to put it there,
// and then (then) what follows from that.
func (m *missingBinary) warn(e *env, what, then string) {
	fmt.Fprintf(e.stderr, "ihmt: warning: %s was not found: %s.\n", m.name, m.where())
	fmt.Fprintf(e.stderr, "  %s uses %s, where `go install` puts it; %s. From the IHMT source:\n", what, m.expected, then)
	fmt.Fprintf(e.stderr, "    %s\n", goInstall)
	fmt.Fprintf(e.stderr, "  and make sure $(go env GOPATH)/bin (or GOBIN) is on PATH.\n")
}

// serviceConfig describes this machine to package unitfile. The daemon's
// path is left empty when ihmtd cannot be found (status still works).
func (e *env) serviceConfig(h *host) (unitfile.Config, error) {
	home, err := h.home()
	if err != nil {
		return unitfile.Config{}, err
	}
	p, err := h.paths(e.socket)
	if err != nil {
		return unitfile.Config{}, err
	}
	daemon, _ := h.binary("ihmtd")
	return unitfile.Config{GOOS: h.goos, Home: home, UID: h.uid, Daemon: daemon, Paths: p, Run: h.run, LookPath: h.lookPath}, nil
}

func cmdService(e *env, args []string) error {
	sub, args, err := subcommand("service", args)
	if err != nil {
		return err
	}
	fs, asJSON := e.flags("service "+sub, "")
	var dryRun *bool
	if sub == "install" || sub == "uninstall" {
		dryRun = fs.Bool("dry-run", false, "print every file and command instead of writing and running them, and whether they would work here")
	}
	if err := noArgs(fs, args); err != nil {
		return err
	}
	h := newHost()
	cfg, err := e.serviceConfig(h)
	if err != nil {
		return err
	}
	if _, err := cfg.Manager(); err != nil {
		return fmt.Errorf("%w; ihmtd starts on demand instead (ihmt-mcp and ihmt start it when needed)", err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 3*time.Minute)
	defer cancel()
	switch sub {
	case "install", "uninstall":
		install := sub == "install"
		var missing *missingBinary
		if install && cfg.Daemon == "" {
			_, err := h.binary("ihmtd")
			if !*dryRun || !errors.As(err, &missing) {
				return err
			}
			cfg.Daemon = missing.expected // show the plan anyway, and warn
		}
		plan := cfg.UninstallPlan
		if install {
			plan = cfg.InstallPlan
		}
		p, err := plan()
		if err != nil {
			return err
		}
		if *dryRun {
			return e.serviceDryRun(ctx, h, cfg, p, missing, *asJSON)
		}
		return e.applyService(ctx, h, cfg, p, *asJSON, install)
	case "status":
		st, err := cfg.Status(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := e.printJSON(st); err != nil {
				return err
			}
		} else {
			fmt.Fprintln(e.stdout, describeService(st))
		}
		if !st.Installed || !st.Running() {
			return errReported
		}
		return nil
	}
	return usageError{fmt.Sprintf("unknown service command %q: say install, uninstall or status", sub)}
}

// readiness is a dry run's answer to "would the real run work here?".
type readiness struct {
	WouldWork bool `json:"would_work"`
	// Checked says how the service manager was asked ("" when there was
	// nothing to ask: an uninstall with nothing installed).
	Checked  string   `json:"checked,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Fix is what to do about the problems, one way per line.
	Fix []string `json:"fix,omitempty"`
}

// serviceReadiness asks what the real run asks first — whether the
// service manager can be used here (for systemd, a read-only
// `systemctl --user show-environment`) — and adds a missing ihmtd.
func serviceReadiness(ctx context.Context, h *host, cfg unitfile.Config, p *unitfile.Plan, missing *missingBinary) readiness {
	r := readiness{WouldWork: true}
	if missing != nil {
		r.WouldWork = false
		r.Problems = append(r.Problems, missing.name+" is not installed: "+missing.where())
		r.Fix = append(r.Fix, installHint)
	}
	if p.Files[0].Action == "absent" {
		return r // nothing to do, so nothing to ask
	}
	r.Checked = map[string]string{
		unitfile.Systemd: "`systemctl --user show-environment`, which needs your systemd user instance",
		unitfile.Launchd: "whether launchctl is installed",
	}[p.Manager]
	if err := cfg.Available(ctx); err != nil {
		r.WouldWork = false
		why, fix := unavailable(h, p.Manager)
		r.Problems = append(r.Problems, err.Error())
		if why != "" {
			r.Problems = append(r.Problems, why)
		}
		r.Fix = append(r.Fix, fix...)
	}
	return r
}

// unavailable says why the service manager cannot be used here, beyond
// its own error (for systemd: why there is no user instance), and what to
// do: get one, or go without the service, since ihmtd starts on demand.
func unavailable(h *host, manager string) (why string, fix []string) {
	if manager == unitfile.Systemd {
		why = "there is no systemd user instance for this session (usual in containers, and over ssh without a login session)"
		if rt := h.getenv("XDG_RUNTIME_DIR"); rt == "" {
			why += "; XDG_RUNTIME_DIR is not set, as under su, sudo -u or cron"
		} else if _, err := os.Stat(filepath.Join(rt, "bus")); err != nil {
			why += "; there is no user bus at " + filepath.Join(rt, "bus")
		}
		fix = append(fix, "run `loginctl enable-linger $USER` (it may need sudo), log in again, and rerun this")
	}
	without := "go without the service: ihmt-mcp and ihmt start ihmtd on demand, and it exits after 30 idle minutes"
	if len(fix) > 0 {
		without = "or " + without
	}
	return why, append(fix, without)
}

// serviceDryRun prints the plan and whether the real run would work here;
// it exits non-zero (after printing everything) when it would not.
func (e *env) serviceDryRun(ctx context.Context, h *host, cfg unitfile.Config, p *unitfile.Plan, missing *missingBinary, asJSON bool) error {
	r := serviceReadiness(ctx, h, cfg, p, missing)
	if asJSON {
		if err := e.printJSON(map[string]any{"dry_run": true, "plan": p, "here": r}); err != nil {
			return err
		}
	} else {
		printServicePlan(e, p)
		printReadiness(e, r)
	}
	if missing != nil {
		missing.warn(e, "The unit", "the real run refuses until ihmtd is installed")
	}
	if !r.WouldWork {
		return errReported
	}
	return nil
}

func printReadiness(e *env, r readiness) {
	switch {
	case r.WouldWork && r.Checked != "":
		fmt.Fprintf(e.stdout, "here:         the real run would work (asked %s)\n", r.Checked)
	case !r.WouldWork:
		fmt.Fprintln(e.stdout, "here:         the real run would fail:")
		for _, p := range r.Problems {
			fmt.Fprintf(e.stdout, "  - %s\n", p)
		}
		for _, f := range r.Fix {
			fmt.Fprintf(e.stdout, "  fix: %s\n", f)
		}
	}
}

func (e *env) applyService(ctx context.Context, h *host, cfg unitfile.Config, p *unitfile.Plan, asJSON, install bool) error {
	if p.Files[0].Action == "absent" {
		msg := "the service is not installed (" + p.Files[0].Path + " does not exist); nothing to do"
		if asJSON {
			return e.printJSON(map[string]any{"changed": false, "message": msg, "plan": p})
		}
		fmt.Fprintln(e.stdout, msg)
		return nil
	}
	if err := cfg.Available(ctx); err != nil {
		why, fix := unavailable(h, p.Manager)
		fmt.Fprintf(e.stderr, "ihmt service: %v; nothing was written or run.\n", err)
		if why != "" {
			fmt.Fprintf(e.stderr, "  %s\n", why)
		}
		for _, f := range fix {
			fmt.Fprintf(e.stderr, "  fix: %s\n", f)
		}
		return errReported
	}
	if install {
		e.stopOnDemandDaemon(ctx, cfg)
	}
	if err := cfg.Apply(ctx, p); err != nil {
		if p.Manager == unitfile.Systemd {
			return fmt.Errorf("%w (the daemon's log: journalctl --user -u ihmtd)", err)
		}
		return err
	}
	st, _ := cfg.Status(ctx)
	if asJSON {
		return e.printJSON(map[string]any{"changed": true, "plan": p, "status": st})
	}
	for _, f := range p.Files {
		switch f.Action {
		case "remove":
			fmt.Fprintf(e.stdout, "removed %s\n", f.Path)
		case "unchanged":
			fmt.Fprintf(e.stdout, "%s is up to date\n", f.Path)
		default:
			fmt.Fprintf(e.stdout, "wrote %s\n", f.Path)
		}
	}
	for _, c := range p.Commands() {
		fmt.Fprintf(e.stdout, "ran   %s\n", c)
	}
	fmt.Fprintln(e.stdout, describeService(st))
	return nil
}

// stopOnDemandDaemon stops a daemon that an agent or `ihmt daemon start`
// started, so the service's daemon can take the store's lock instead of
// exiting at once with "lock held" (which would fail `enable --now`).
func (e *env) stopOnDemandDaemon(ctx context.Context, cfg unitfile.Config) {
	if st, err := cfg.Status(ctx); err == nil && st.Running() {
		return // the service's own daemon: the plan restarts it if needed
	}
	c, err := client.New(client.Options{Socket: cfg.Paths.Socket})
	if err != nil {
		return
	}
	defer c.Close()
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if c.Ping(pctx) != nil || c.Shutdown(pctx) != nil {
		return
	}
	fmt.Fprintf(e.stdout, "stopped the ihmtd running at %s, so the service's daemon can take over\n", cfg.Paths.Socket)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(cfg.Paths.Socket); errors.Is(err, os.ErrNotExist) {
			return
		}
	}
}

func printServicePlan(e *env, p *unitfile.Plan) {
	fmt.Fprintf(e.stdout, "dry run (%s): nothing is written or changed\n", p.Manager)
	for _, c := range p.Before {
		fmt.Fprintf(e.stdout, "would run:    %s%s\n", c, mayFail(c))
	}
	for _, d := range p.Dirs {
		fmt.Fprintf(e.stdout, "would create: %s/ (mode 0700)\n", d)
	}
	for _, f := range p.Files {
		switch f.Action {
		case "remove":
			fmt.Fprintf(e.stdout, "would remove: %s\n", f.Path)
		case "absent":
			fmt.Fprintf(e.stdout, "not installed: %s does not exist\n", f.Path)
		case "unchanged":
			fmt.Fprintf(e.stdout, "unchanged:    %s\n", f.Path)
		default:
			fmt.Fprintf(e.stdout, "would write:  %s (%s):\n", f.Path, f.Action)
			for line := range strings.Lines(f.Content) {
				fmt.Fprintf(e.stdout, "    | %s", line)
			}
			if !strings.HasSuffix(f.Content, "\n") {
				fmt.Fprintln(e.stdout)
			}
		}
	}
	for _, c := range p.After {
		fmt.Fprintf(e.stdout, "would run:    %s%s\n", c, mayFail(c))
	}
}

func mayFail(c unitfile.Command) string {
	if c.MayFail {
		return "   (a failure here is expected if it is not loaded)"
	}
	return ""
}

func describeService(st unitfile.Status) string {
	switch {
	case !st.Installed:
		return fmt.Sprintf("the %s service is not installed (%s); ihmtd starts on demand — `ihmt service install` runs it as a service", st.Manager, st.File)
	case st.Problem != "":
		return fmt.Sprintf("the %s service is installed (%s), but %s", st.Manager, st.File, st.Problem)
	}
	s := fmt.Sprintf("the %s service is installed (%s): %s, %s", st.Manager, st.File, st.Enabled, st.Active)
	if !st.Current {
		s += "; the file differs from what `ihmt service install` would write now (another binary, store or socket): run it again"
	}
	return s
}

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/client/mcpconfig"
)

func cmdMCP(e *env, args []string) error {
	sub, args, err := subcommand("mcp", args)
	if err != nil {
		return err
	}
	fs, asJSON := e.flags("mcp "+sub, "--client "+strings.Join(mcpconfig.Clients, "|"))
	clientName := fs.String("client", "", "the agent: "+clientList())
	scope := fs.String("scope", mcpconfig.ScopeUser, "user (your own configuration) or project (the repository's, shared)")
	tools := fs.String("tools", "", "tool families the agent gets, comma-separated: memory, session, project (default: all three)")
	var dryRun, uninstall, noHooks *bool
	if sub == "install" || sub == "uninstall" {
		dryRun = fs.Bool("dry-run", false, "show what would change instead of changing it")
		uninstall = fs.Bool("uninstall", sub == "uninstall", "remove the registration, the instructions and the hooks instead")
		noHooks = fs.Bool("no-hooks", false, "do not install the hooks that inject memory at each session start and prompt")
	}
	if err := noArgs(fs, args); err != nil {
		return err
	}
	switch {
	case *clientName == "":
		return usageError{"say which agent: --client " + clientList()}
	case !slices.Contains(mcpconfig.Clients, *clientName):
		return usageError{fmt.Sprintf("unknown client %q: use %s", *clientName, clientList())}
	}
	if *scope != mcpconfig.ScopeUser && *scope != mcpconfig.ScopeProject {
		return usageError{fmt.Sprintf("unknown scope %q: use user or project", *scope)}
	}
	if *scope == mcpconfig.ScopeProject && !mcpconfig.HasProject(*clientName) {
		return usageError{fmt.Sprintf("%s reads no project configuration: use --scope user", mcpconfig.Title(*clientName))}
	}
	families := ""
	if *tools != "" {
		fams, err := client.ParseFamilies(*tools)
		if err != nil {
			return usageError{err.Error()}
		}
		families = strings.Join(fams, ",")
	}
	h := newHost()
	menv, err := mcpEnv(h, *scope)
	if err != nil {
		return err
	}
	switch sub {
	case "config":
		srv, missing, err := e.mcpServer(h, families)
		if err != nil {
			return err
		}
		text, file, err := mcpconfig.Snippet(menv, *clientName, *scope, srv)
		if err != nil {
			return err
		}
		if missing != nil {
			missing.warn(e, "The snippet", "it works once ihmt-mcp is installed there")
		}
		if *asJSON {
			out := map[string]any{"client": *clientName, "file": file, "snippet": text, "server_command": srv.Command, "server_found": missing == nil}
			if missing != nil {
				out["warning"] = missing.Error()
			}
			return e.printJSON(out)
		}
		how := "merge it into"
		if *clientName == mcpconfig.Codex {
			how = "append it to"
		}
		fmt.Fprintf(e.stderr, "# %s %s (or let `ihmt mcp install --client %s` do it)\n", how, file, *clientName)
		fmt.Fprint(e.stdout, text)
		return nil
	case "install", "uninstall":
		return e.mcpInstall(h, menv, *clientName, *scope, families, *dryRun, *uninstall, *noHooks, *asJSON)
	}
	return usageError{fmt.Sprintf("unknown mcp command %q: say install, uninstall or config", sub)}
}

// clientList names the clients for a usage message.
func clientList() string {
	c := mcpconfig.Clients
	return strings.Join(c[:len(c)-1], ", ") + " or " + c[len(c)-1]
}

// mcpEnv describes where the agents keep their configuration.
func mcpEnv(h *host, scope string) (mcpconfig.Env, error) {
	home, err := h.home()
	if err != nil {
		return mcpconfig.Env{}, err
	}
	env := mcpconfig.Env{Home: home, Getenv: h.getenv, GOOS: h.goos}
	if scope == mcpconfig.ScopeProject {
		env.Project = projectTop(h.cwd)
	}
	return env, nil
}

// projectTop returns the git top level holding dir, else dir itself.
func projectTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// mcpServer is what gets registered: ihmt-mcp by absolute path, and the
// overrides in effect here, since an agent — Codex above all — passes its
// servers almost none of its own environment. When ihmt-mcp is not
// installed, the server names where `go install` would put it, and missing
// says so: a snippet or a dry run shows it, a real install refuses.
// families, unless all of them, go in the server's environment.
func (e *env) mcpServer(h *host, families string) (srv mcpconfig.Server, missing *missingBinary, err error) {
	bin, err := h.binary("ihmt-mcp")
	if errors.As(err, &missing) {
		bin, err = missing.expected, nil
	}
	if err != nil {
		return mcpconfig.Server{}, nil, err
	}
	srv = mcpconfig.Server{Command: bin}
	set := func(k, v string) {
		if filepath.IsAbs(v) {
			if srv.Env == nil {
				srv.Env = map[string]string{}
			}
			srv.Env[k] = v
		}
	}
	set("IHMT_HOME", h.getenv("IHMT_HOME"))
	set("IHMT_SOCKET", h.getenv("IHMT_SOCKET"))
	if e.socket != "" {
		set("IHMT_SOCKET", e.socket)
	}
	if families != "" && families != client.AllFamilies {
		// The families go in the environment the agent passes the shim,
		// which every client's registration carries.
		if srv.Env == nil {
			srv.Env = map[string]string{}
		}
		srv.Env[client.ToolsEnv] = families
	}
	return srv, missing, nil
}

func (e *env) mcpInstall(h *host, menv mcpconfig.Env, clientName, scope, families string, dryRun, uninstall, noHooks, asJSON bool) error {
	opts := mcpconfig.Options{Env: menv, Client: clientName, Scope: scope}
	if clientName == mcpconfig.Claude {
		if p, err := h.lookPath("claude"); err == nil {
			opts.ClaudeCLI = p
		}
	}
	var p *mcpconfig.Plan
	var err error
	var missing *missingBinary
	if uninstall {
		p, err = mcpconfig.Uninstall(opts)
	} else {
		if opts.Server, missing, err = e.mcpServer(h, families); err != nil {
			return err
		}
		if missing != nil && !dryRun {
			return missing
		}
		p, err = mcpconfig.Install(opts)
	}
	var ce *mcpconfig.ConfigError
	if errors.As(err, &ce) {
		return err // already says which file, where, and what to do
	}
	if err != nil {
		return err
	}
	if (uninstall || !noHooks) && mcpconfig.HasHooks(clientName) {
		if err := withHooks(p, h, opts, uninstall); err != nil {
			return err
		}
	}
	if !dryRun && p.Changed() {
		ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
		defer cancel()
		if err := p.Apply(ctx, h.run, h.now()); err != nil {
			return err
		}
		mcpconfig.TidyHooks(p)
	}
	if asJSON {
		type file struct {
			*mcpconfig.Change
			Diff         string   `json:"diff,omitempty"`
			OlderBackups []string `json:"older_backups,omitempty"` // after an uninstall
		}
		out := struct {
			*mcpconfig.Plan
			Files   []file `json:"files"`
			DryRun  bool   `json:"dry_run"`
			Changed bool   `json:"changed"`
			// Warning: the registration names an ihmt-mcp not installed
			// yet (a dry run only); the exit status is then 1.
			Warning string `json:"warning,omitempty"`
		}{Plan: p, DryRun: dryRun, Changed: p.Changed()}
		if missing != nil {
			out.Warning = missing.Error()
		}
		for _, c := range p.Changes {
			f := file{Change: c}
			if dryRun && c.Changed() && c.Via == "" {
				f.Diff = configDiff(c.Old, c.New)
			}
			if !dryRun && uninstall {
				f.OlderBackups = olderBackups(c)
			}
			out.Files = append(out.Files, f)
		}
		if err := e.printJSON(out); err != nil {
			return err
		}
	} else {
		e.printMCPPlan(p, dryRun)
	}
	if missing != nil {
		missing.warn(e, "The registration", "the real run refuses until ihmt-mcp is installed")
		return errReported
	}
	return nil
}

func (e *env) printMCPPlan(p *mcpconfig.Plan, dryRun bool) {
	w := e.stdout
	if !p.Changed() {
		if p.Uninstall {
			fmt.Fprintf(w, "%s: IHMT is not registered and its instructions are absent; nothing changed\n", p.Client)
		} else {
			fmt.Fprintf(w, "%s: already registered (%s) with current instructions; nothing changed\n", p.Client, p.Command)
		}
		return
	}
	if dryRun {
		fmt.Fprintln(w, "dry run: nothing is written or run")
	}
	for _, c := range p.Changes {
		what := map[string]string{"registration": "ihmt-mcp registration", "instructions": "instructions", "hooks": "memory hooks"}[c.What]
		if !c.Changed() {
			fmt.Fprintf(w, "%s: %s unchanged in %s\n", p.Client, what, c.Path)
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", p.Client, describeChange(c, what, dryRun))
		if c.Backup != "" {
			fmt.Fprintf(w, "  backup of the previous content: %s\n", c.Backup)
		}
		if dryRun && c.Via == "" {
			fmt.Fprint(w, prefixLines(configDiff(c.Old, c.New), "  "))
		}
	}
	for _, c := range p.Commands {
		fmt.Fprintf(w, "%s: %s %s\n", p.Client, map[bool]string{true: "would run", false: "ran"}[dryRun], strings.Join(c.Args, " "))
	}
	e.printMCPAfter(p, dryRun)
	e.printHookNotes(p, dryRun)
}

// describeChange says what a change did (or would do) to a file: "created
// PATH (what)", or through a client's own CLI, "added what in PATH through
// the claude CLI".
func describeChange(c *mcpconfig.Change, what string, dryRun bool) string {
	if c.Via != "" {
		verb := map[string]string{"create": "added", "update": "changed", "remove": "removed"}[c.Action]
		if verb == "" {
			verb = "changed"
		}
		if dryRun {
			verb = "would have " + verb
		}
		return fmt.Sprintf("%s %s in %s through the %s CLI", verb, what, c.Path, c.Via)
	}
	act := c.Action
	if c.Restored && c.Action != "remove" {
		act = "restore"
	}
	past := map[string]string{"create": "created", "update": "updated", "remove": "removed", "restore": "restored the earlier content of"}[act]
	if dryRun {
		past = "would " + map[string]string{"restore": "restore the earlier content of"}[act]
		if act != "restore" {
			past = "would " + act
		}
	}
	return fmt.Sprintf("%s %s (%s)", past, c.Path, what)
}

// printMCPAfter says what a person should know once a plan is carried out:
// the older backups an uninstall leaves, sessions to restart after an
// install.
func (e *env) printMCPAfter(p *mcpconfig.Plan, dryRun bool) {
	w := e.stdout
	if !dryRun && p.Uninstall {
		// Backups are the person's safety copies, so they stay; the ones
		// from earlier runs are easy to forget, so name them — apart from
		// the one this run just made, printed with its change.
		for _, c := range p.Changes {
			old := olderBackups(c)
			switch len(old) {
			case 0:
			case 1:
				fmt.Fprintf(w, "%s: 1 older backup of %s remains, from an earlier edit: %s; delete it if you no longer need it\n", p.Client, c.Path, old[0])
			default:
				fmt.Fprintf(w, "%s: %d older backups of %s remain, from earlier edits (newest first): %s; delete them if you no longer need them\n", p.Client, len(old), c.Path, firstFew(old))
			}
		}
	}
	if !dryRun && !p.Uninstall {
		fmt.Fprintf(w, "%s: new sessions use IHMT; restart running ones\n", p.Client)
		if !slices.ContainsFunc(p.Changes, func(c *mcpconfig.Change) bool { return c.What == "instructions" }) {
			fmt.Fprintf(w, "%s: %s keeps standing instructions in its settings, not in a file IHMT edits; ihmt-mcp gives it IHMT's instructions when it connects\n", p.Client, mcpconfig.Title(p.Client))
		}
		if p.Client == mcpconfig.Codex && p.Scope == mcpconfig.ScopeProject {
			fmt.Fprintln(w, "codex: Codex reads a project's .codex/config.toml only when you trust the project")
		}
	}
}

// olderBackups lists the backups of c's file, newest first, but the one
// applying c just made.
func olderBackups(c *mcpconfig.Change) []string {
	var old []string
	for _, b := range mcpconfig.Backups(c.Path) {
		if b != c.Backup {
			old = append(old, b)
		}
	}
	return old
}

func prefixLines(s, prefix string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(prefix + line)
	}
	return b.String()
}

// configDiff shows the lines between the common beginning and end of old and new
// with three lines of context — exact for the one-region edits install and
// uninstall make, and cheap on a large ~/.claude.json.
func configDiff(old, new []byte) string {
	if new == nil {
		return fmt.Sprintf("(the file is removed: %d bytes)\n", len(old))
	}
	a, b := diffLines(old), diffLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	from := max(pre-3, 0)
	to := min(len(a)-suf+3, len(a))
	var out bytes.Buffer
	fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", from+1, to-from, from+1, to-from+(len(b)-len(a)))
	for _, l := range a[from:pre] {
		out.WriteString(" " + l)
	}
	for _, l := range a[pre : len(a)-suf] {
		out.WriteString("-" + l)
	}
	for _, l := range b[pre : len(b)-suf] {
		out.WriteString("+" + l)
	}
	for _, l := range a[len(a)-suf : to] {
		out.WriteString(" " + l)
	}
	return out.String()
}

func diffLines(b []byte) []string {
	var lines []string
	for l := range strings.Lines(string(b)) {
		if !strings.HasSuffix(l, "\n") {
			l += "\n\\ no newline at end of file\n"
		}
		lines = append(lines, l)
	}
	return lines
}

// Package mcpconfig registers ihmt-mcp with the coding agents — Claude Code,
// Codex, opencode, Gemini CLI, GitHub Copilot CLI, Cursor, Claude Desktop,
// VS Code, Windsurf and Zed (clients.go says where each keeps what, from its
// documentation) — and writes IHMT's usage instructions into each agent's
// instructions or rules file, by editing their configuration in place.
//
// The rules every edit keeps:
//
//   - Only what is ours changes: the "ihmt" server entry and the block
//     between the <!-- ihmt:begin --> and <!-- ihmt:end --> markers. Other
//     servers, unrelated keys, comments and formatting keep their bytes, and
//     a decode of the file before and after proves it (the edit is refused
//     otherwise).
//   - A file that does not parse is reported with its line and never
//     written.
//   - Installing twice changes nothing the second time.
//   - Every changed file is first copied to <file>.ihmt-backup-<time>.
//   - Uninstalling removes exactly what install added; when nothing else
//     changed in between, the file gets back its earlier bytes exactly (a
//     backup whose reinstall gives the current content is that earlier
//     state), or is removed if install created it.
//
// Nothing here reads the process environment: every path derives from
// [Env], so tests point HOME at a temporary directory.
package mcpconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
)

// serverName is the name IHMT's server is registered under in every client.
const serverName = "ihmt"

// The clients.
const (
	Claude   = "claude"
	Codex    = "codex"
	OpenCode = "opencode"
)

// Clients lists every client this package can configure.
var Clients = []string{Claude, Codex, OpenCode, Gemini, Copilot, Cursor, ClaudeDesktop, VSCode, Windsurf, Zed}

// hostGOOS is the system the clients run on, unless Env.GOOS says another.
var hostGOOS = runtime.GOOS

// Scopes: the user's own configuration, or one project's (checked in, shared
// with everyone who works on it).
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// opencodeSchema is what opencode's own `mcp add` puts at the top of a new
// config, for editors' completion.
const opencodeSchema = "https://opencode.ai/config.json"

// Env is where the clients keep their configuration.
type Env struct {
	// Home is the user's home directory; required and absolute.
	Home string
	// Getenv reads the few variables the clients themselves honour:
	// CLAUDE_CONFIG_DIR, CODEX_HOME and XDG_CONFIG_HOME. Nil means none is
	// set.
	Getenv func(string) string
	// Project is the project directory (the git top level) for
	// ScopeProject.
	Project string
	// GOOS is the system whose conventions place the desktop clients'
	// files (Claude Desktop, VS Code); "" is this one.
	GOOS string
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// absEnv is an absolute directory from the environment, or "".
func (e Env) absEnv(k string) string {
	if v := e.getenv(k); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return ""
}

// Server is what gets registered.
type Server struct {
	// Command is ihmt-mcp's absolute path: GUI-launched clients have a
	// minimal PATH.
	Command string
	// Env is passed to the server: IHMT_HOME and IHMT_SOCKET when the user
	// set them, since Codex, for one, passes a server almost none of its
	// own environment.
	Env map[string]string
}

// Locations are a client's files for a scope.
type Locations struct {
	// Configs are the files the client may read the server from, the
	// preferred one for a new registration first.
	Configs []string
	// Instructions is the Markdown file the client reads as standing
	// instructions; "" when the client keeps them only in its settings.
	Instructions string
}

// Locate returns where client keeps its configuration for scope.
func (e Env) Locate(client, scope string) (Locations, error) {
	if !filepath.IsAbs(e.Home) {
		return Locations{}, fmt.Errorf("the home directory %q is not absolute", e.Home)
	}
	var base string
	switch scope {
	case ScopeUser:
	case ScopeProject:
		if !filepath.IsAbs(e.Project) {
			return Locations{}, errors.New("--scope project needs a project directory: run it inside the project")
		}
		base = e.Project
	default:
		return Locations{}, fmt.Errorf("unknown scope %q: use user or project", scope)
	}
	if c, ok := jsonClients[client]; ok {
		return e.locateJSONClient(c, base)
	}
	switch client {
	case Claude:
		if base != "" {
			return Locations{Configs: []string{filepath.Join(base, ".mcp.json")}, Instructions: filepath.Join(base, "CLAUDE.md")}, nil
		}
		if dir := e.absEnv("CLAUDE_CONFIG_DIR"); dir != "" {
			return Locations{Configs: []string{filepath.Join(dir, ".claude.json")}, Instructions: filepath.Join(dir, "CLAUDE.md")}, nil
		}
		return Locations{Configs: []string{filepath.Join(e.Home, ".claude.json")}, Instructions: filepath.Join(e.Home, ".claude", "CLAUDE.md")}, nil
	case Codex:
		dir := filepath.Join(base, ".codex")
		if base == "" {
			dir = filepath.Join(e.Home, ".codex")
			if d := e.absEnv("CODEX_HOME"); d != "" {
				dir = d
			}
		}
		instr := filepath.Join(dir, "AGENTS.md")
		if base != "" {
			instr = filepath.Join(base, "AGENTS.md")
		}
		return Locations{Configs: []string{filepath.Join(dir, "config.toml")}, Instructions: instr}, nil
	case OpenCode:
		dir := base
		if base == "" {
			dir = filepath.Join(e.Home, ".config", "opencode")
			if d := e.absEnv("XDG_CONFIG_HOME"); d != "" {
				dir = filepath.Join(d, "opencode")
			}
		}
		// opencode reads both; its own `mcp add` creates the .jsonc.
		return Locations{
			Configs:      []string{filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc")},
			Instructions: filepath.Join(dir, "AGENTS.md"),
		}, nil
	}
	return Locations{}, fmt.Errorf("unknown client %q: use %s", client, strings.Join(Clients, ", "))
}

// ConfigError is a configuration file that cannot be read as what it should
// be. The file is left alone.
type ConfigError struct {
	Path      string
	Line, Col int // 0 when unknown
	Msg       string
}

func (e *ConfigError) Error() string {
	at := e.Path
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d:%d", e.Path, e.Line, e.Col)
	}
	return fmt.Sprintf("%s: %s; ihmt does not edit a file it cannot read — fix that line (or move the file away), then run this again", at, e.Msg)
}

func configError(path string, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return &ConfigError{Path: path, Line: se.line, Col: se.col, Msg: se.msg}
	}
	return &ConfigError{Path: path, Msg: err.Error()}
}

// format edits one kind of configuration file.
type format interface {
	// entry returns the registered server's decoded entry, if any.
	entry(src []byte) (val any, ok bool, err error)
	// want is the decoded entry install writes for srv.
	want(srv Server) any
	// set returns src with the entry for srv, created or replaced.
	set(src []byte, srv Server) ([]byte, error)
	// remove returns src without the entry.
	remove(src []byte) ([]byte, error)
	// server reads back the Server an entry registers.
	server(val any) (Server, bool)
}

func formatFor(client, path string) format {
	switch client {
	case Claude:
		return jsonFormat{path: []string{"mcpServers", serverName}, entryFor: claudeEntry}
	case OpenCode:
		return jsonFormat{path: []string{"mcp", serverName}, entryFor: opencodeEntry, schema: opencodeSchema}
	}
	if c, ok := jsonClients[client]; ok {
		return jsonFormat{path: []string{c.servers, serverName}, entryFor: c.entry}
	}
	return tomlFormat{}
}

func claudeEntry(srv Server) any {
	env := srv.Env
	if env == nil {
		env = map[string]string{}
	}
	// The shape `claude mcp add` writes, so either may update the other.
	return object{{"type", "stdio"}, {"command", srv.Command}, {"args", []string{}}, {"env", env}}
}

func opencodeEntry(srv Server) any {
	e := object{{"type", "local"}, {"command", []string{srv.Command}}, {"enabled", true}}
	if len(srv.Env) > 0 {
		e = append(e, field{"environment", srv.Env})
	}
	return e
}

type jsonFormat struct {
	path     []string
	entryFor func(Server) any
	schema   string // "$schema" of a new file, if any
}

// envOf reads an entry's environment: nil when it has none, false when a
// value is not a string (not an entry install wrote).
func envOf(v any) (map[string]string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, true
	}
	env := map[string]string{}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		env[k] = s
	}
	return env, true
}

func (f jsonFormat) entry(src []byte) (any, bool, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return nil, false, err
	}
	if d.root != nil && d.root.kind != '{' {
		return nil, false, errors.New("the top level is not a JSON object")
	}
	n := d.lookup(f.path...)
	if n == nil {
		return nil, false, nil
	}
	return d.valueOf(n), true, nil
}

func (f jsonFormat) want(srv Server) any { return decodeJSON(render(f.entryFor(srv), "", "  ")) }

func (f jsonFormat) set(src []byte, srv Server) ([]byte, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	var out []byte
	if d.root == nil && f.schema != "" {
		doc := object{{"$schema", f.schema}, {f.path[0], object{{f.path[1], f.entryFor(srv)}}}}
		out = []byte(render(doc, "", "  ") + "\n")
		d, _ = parseJSONC(out) // the schema is all there is to keep
	} else if d.root != nil && d.root.kind != '{' {
		return nil, errors.New("the top level is not a JSON object")
	} else if out, err = d.set(f.path, f.entryFor(srv)); err != nil {
		return nil, err
	}
	return out, f.check(d, out, f.want(srv))
}

func (f jsonFormat) remove(src []byte) ([]byte, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	if d.lookup(f.path...) == nil {
		return src, nil
	}
	out := d.remove(f.path)
	return out, f.check(d, out, nil)
}

// check proves an edit changed the entry at f.path and nothing else.
func (f jsonFormat) check(before *jsonDoc, out []byte, want any) error {
	after, err := parseJSONC(out)
	if err != nil {
		return fmt.Errorf("internal error: the edited file would not parse (%v); nothing was written", err)
	}
	a, _ := before.decode()
	b, _ := after.decode()
	var got any
	if n := after.lookup(f.path...); n != nil {
		got = after.valueOf(n)
	}
	if !sameExcept(a, b, f.path) || !reflect.DeepEqual(got, want) {
		return errors.New("internal error: the edit would change more than IHMT's entry; nothing was written")
	}
	return nil
}

func (f jsonFormat) server(val any) (Server, bool) {
	m, ok := val.(map[string]any)
	if !ok {
		return Server{}, false
	}
	var srv Server
	envKey := "env"
	switch cmd := m["command"].(type) {
	case string: // Claude Code
		srv.Command = cmd
	case []any: // opencode
		envKey = "environment"
		if len(cmd) != 1 {
			return Server{}, false
		}
		srv.Command, _ = cmd[0].(string)
	}
	env, ok := envOf(m[envKey])
	if !ok {
		return Server{}, false
	}
	srv.Env = env
	return srv, srv.Command != ""
}

func decodeJSON(s string) any {
	d, err := parseJSONC([]byte(s))
	if err != nil {
		panic(err)
	}
	v, _ := d.decode()
	return v
}

type tomlFormat struct{}

// codexBlock is the table install writes into Codex's config.toml.
func codexBlock(srv Server) string {
	var b strings.Builder
	b.WriteString("[mcp_servers." + serverName + "]\n")
	b.WriteString("command = " + tomlString(srv.Command) + "\n")
	b.WriteString("args = []\n")
	b.WriteString("# Written by `ihmt mcp install`. IHMT's memory tools only read the memory or\n")
	b.WriteString("# add to it, and a non-interactive Codex (codex exec) cancels every MCP tool\n")
	b.WriteString("# call nobody approved, so they are approved here.\n")
	b.WriteString("default_tools_approval_mode = \"approve\"\n")
	if len(srv.Env) > 0 {
		b.WriteString("\n[mcp_servers." + serverName + ".env]\n")
		for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
			b.WriteString(tomlKey(k) + " = " + tomlString(srv.Env[k]) + "\n")
		}
	}
	return b.String()
}

func tomlKey(k string) string {
	if k != "" && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" {
		return k
	}
	return tomlString(k)
}

func tomlEntry(m map[string]any) (any, bool) {
	servers, ok := m["mcp_servers"].(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := servers[serverName]
	return v, ok
}

func (tomlFormat) entry(src []byte) (any, bool, error) {
	m, err := decodeTOML(src)
	if err != nil {
		return nil, false, err
	}
	v, ok := tomlEntry(m)
	return v, ok, nil
}

func (tomlFormat) want(srv Server) any {
	m, err := decodeTOML([]byte(codexBlock(srv)))
	if err != nil {
		panic(err)
	}
	v, _ := tomlEntry(m)
	return v
}

func (f tomlFormat) set(src []byte, srv Server) ([]byte, error) {
	before, err := decodeTOML(src)
	if err != nil {
		return nil, err
	}
	if err := f.editable(src, before); err != nil {
		return nil, err
	}
	out := setTOMLTable(src, codexBlock(srv))
	return out, f.check(before, out, f.want(srv))
}

func (f tomlFormat) remove(src []byte) ([]byte, error) {
	before, err := decodeTOML(src)
	if err != nil {
		return nil, err
	}
	if _, ok := tomlEntry(before); !ok {
		return src, nil
	}
	if err := f.editable(src, before); err != nil {
		return nil, err
	}
	out := removeTOMLTable(src)
	return out, f.check(before, out, nil)
}

// editable refuses an entry that is not written as [mcp_servers.ihmt]
// tables (an inline table or dotted keys), which the text edit cannot see.
func (tomlFormat) editable(src []byte, m map[string]any) error {
	if _, ok := tomlEntry(m); !ok {
		return nil
	}
	for _, t := range tomlTables(src) {
		if len(t.key) == 2 && ours(t.key) {
			return nil
		}
	}
	return errors.New("mcp_servers.ihmt is written as an inline table or dotted keys, which ihmt does not edit: rewrite it as a [mcp_servers.ihmt] table, or delete it, then run this again")
}

func (tomlFormat) check(before map[string]any, out []byte, want any) error {
	after, err := decodeTOML(out)
	if err != nil {
		return fmt.Errorf("internal error: the edited file would not parse (%v); nothing was written", err)
	}
	got, _ := tomlEntry(after)
	path := []string{"mcp_servers", serverName}
	if !sameExcept(before, after, path) || !reflect.DeepEqual(got, want) {
		return errors.New("internal error: the edit would change more than IHMT's entry; nothing was written")
	}
	return nil
}

func (tomlFormat) server(val any) (Server, bool) {
	m, ok := val.(map[string]any)
	if !ok {
		return Server{}, false
	}
	cmd, _ := m["command"].(string)
	srv := Server{Command: cmd}
	env, ok := envOf(m["env"])
	if !ok {
		return Server{}, false
	}
	srv.Env = env
	return srv, cmd != ""
}

// Change is one file a plan edits.
type Change struct {
	Path   string `json:"path"`
	What   string `json:"what"`   // "registration" or "instructions"
	Action string `json:"action"` // create, update, remove, unchanged, absent
	// Via names the command that makes the change (the claude CLI) instead
	// of a direct edit; New is then unknown.
	Via string `json:"via,omitempty"`
	// Restored: uninstall puts back the bytes from before install.
	Restored bool   `json:"restored,omitempty"`
	Backup   string `json:"backup,omitempty"` // set by Apply
	Old      []byte `json:"-"`                // nil: the file does not exist
	New      []byte `json:"-"`
	// chained: Old is what an earlier change of the same plan writes to
	// the same file (Gemini CLI's settings.json holds the registration
	// and the hooks), so that change's backup is the one to keep.
	chained bool
}

// Changed reports whether the change does anything.
func (c *Change) Changed() bool { return c.Action != "unchanged" && c.Action != "absent" }

// Command is a command a plan runs.
type Command struct {
	Dir  string   `json:"dir,omitempty"`
	Args []string `json:"args"`
}

// Runner runs argv in dir and returns its combined output.
type Runner func(ctx context.Context, dir string, argv []string) ([]byte, error)

// Plan is what an install or uninstall does.
type Plan struct {
	Client    string    `json:"client"`
	Scope     string    `json:"scope"`
	Uninstall bool      `json:"uninstall"`
	Command   string    `json:"server_command,omitempty"` // the ihmt-mcp registered
	Changes   []*Change `json:"files"`
	Commands  []Command `json:"commands,omitempty"`
	// verify checks, after the commands ran, that they did what they
	// should.
	verify func() error
}

// Changed reports whether applying the plan changes anything.
func (p *Plan) Changed() bool {
	for _, c := range p.Changes {
		if c.Changed() {
			return true
		}
	}
	return len(p.Commands) > 0
}

// Options say what to install or uninstall.
type Options struct {
	Env    Env
	Client string
	Scope  string // ScopeUser when empty
	Server Server // install only
	// ClaudeCLI is the claude executable, if installed: Claude Code is then
	// configured through `claude mcp add/remove`, its supported interface,
	// instead of by editing its file.
	ClaudeCLI string
}

func (o *Options) locate() (Locations, error) {
	if o.Scope == "" {
		o.Scope = ScopeUser
	}
	return o.Env.Locate(o.Client, o.Scope)
}

// Install plans registering o.Server with o.Client and writing the
// instructions. It reads files but changes nothing; a malformed file is a
// *ConfigError.
func Install(o Options) (*Plan, error) {
	loc, err := o.locate()
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(o.Server.Command) {
		return nil, fmt.Errorf("ihmt-mcp's path %q is not absolute", o.Server.Command)
	}
	p := &Plan{Client: o.Client, Scope: o.Scope, Command: o.Server.Command}
	path, src, err := pickConfig(o.Client, loc.Configs)
	if err != nil {
		return nil, err
	}
	f, cur, present, c, err := registration(o.Client, path, src)
	if err != nil {
		return nil, err
	}
	switch {
	case present && reflect.DeepEqual(cur, f.want(o.Server)):
	case o.Client == Claude && o.ClaudeCLI != "":
		c.Action, c.Via, c.New = "update", "claude", nil
		if src == nil {
			c.Action = "create"
		}
		if present {
			p.Commands = append(p.Commands, o.claude("remove"))
		}
		add := o.claude("add")
		for _, k := range slices.Sorted(maps.Keys(o.Server.Env)) {
			add.Args = append(add.Args, "-e", k+"="+o.Server.Env[k])
		}
		add.Args = append(add.Args, "--", o.Server.Command)
		p.Commands = append(p.Commands, add)
		want := f.want(o.Server)
		p.verify = verifyEntry(f, path, func(got any, ok bool) bool { return ok && reflect.DeepEqual(got, want) },
			"`claude mcp add` ran, but %s does not hold the expected %q entry: run `ihmt doctor`")
	default:
		out, err := f.set(src, o.Server)
		if err != nil {
			return nil, configError(path, err)
		}
		c.New = out
		c.Action = action(src, out)
	}
	p.Changes = append(p.Changes, c)
	return p.withInstructions(loc.Instructions, jsonClients[o.Client].preamble, false)
}

// Uninstall plans removing what Install added.
func Uninstall(o Options) (*Plan, error) {
	loc, err := o.locate()
	if err != nil {
		return nil, err
	}
	p := &Plan{Client: o.Client, Scope: o.Scope, Uninstall: true}
	for _, path := range loc.Configs {
		src, err := readFile(path)
		if err != nil {
			return nil, err
		}
		f, cur, present, c, err := registration(o.Client, path, src)
		if err != nil {
			return nil, err
		}
		if src == nil {
			c.Action = "absent"
		}
		if !present {
			if src != nil || len(loc.Configs) == 1 {
				p.Changes = append(p.Changes, c)
			}
			continue
		}
		if o.Client == Claude && o.ClaudeCLI != "" {
			c.Action, c.Via, c.New = "update", "claude", nil
			p.Commands = append(p.Commands, o.claude("remove"))
			p.verify = verifyEntry(f, path, func(_ any, ok bool) bool { return !ok },
				"`claude mcp remove` ran, but %s still holds the %q entry")
			p.Changes = append(p.Changes, c)
			continue
		}
		var reinstall func([]byte) ([]byte, error)
		if srv, ok := f.server(cur); ok {
			reinstall = func(b []byte) ([]byte, error) { return f.set(b, srv) }
		}
		has := func(b []byte) bool { _, ok, err := f.entry(b); return ok || err != nil }
		out, restored, err := undo(path, src, reinstall, f.remove, has)
		if err != nil {
			return nil, configError(path, err)
		}
		c.New, c.Restored, c.Action = out, restored, action(src, out)
		p.Changes = append(p.Changes, c)
	}
	return p.withInstructions(loc.Instructions, jsonClients[o.Client].preamble, true)
}

// registration reads IHMT's entry in the configuration at path (src, its
// bytes): the file's format, the entry and whether there is one, and the
// Change that so far changes nothing.
func registration(client, path string, src []byte) (f format, cur any, present bool, c *Change, err error) {
	f = formatFor(client, path)
	if cur, present, err = f.entry(src); err != nil {
		return nil, nil, false, nil, configError(path, err)
	}
	return f, cur, present, &Change{Path: path, What: "registration", Old: src, New: src, Action: "unchanged"}, nil
}

// withInstructions adds the change to the instructions file at path, last:
// the block written (after preamble in a file install creates), or removed.
// A client without an instructions file gets none.
func (p *Plan) withInstructions(path, preamble string, remove bool) (*Plan, error) {
	if path == "" {
		return p, nil
	}
	ic, err := planInstructions(path, preamble, remove)
	if err != nil {
		return nil, err
	}
	p.Changes = append(p.Changes, ic)
	return p, nil
}

// claude is a `claude mcp` command on IHMT's entry (add takes more
// arguments), run in the project for a project scope.
func (o Options) claude(verb string) Command {
	dir := ""
	if o.Scope == ScopeProject {
		dir = o.Env.Project
	}
	return Command{Dir: dir, Args: []string{o.ClaudeCLI, "mcp", verb, "--scope", o.Scope, serverName}}
}

// verifyEntry checks, after the claude CLI ran, that the entry in path is
// as good says; else the error, made of msg with the path and the entry's
// name. A file that no longer parses holds no entry.
func verifyEntry(f format, path string, good func(entry any, present bool) bool, msg string) func() error {
	return func() error {
		data, err := readFile(path)
		if err != nil {
			return err
		}
		got, ok, err := f.entry(data)
		if !good(got, ok && err == nil) {
			return fmt.Errorf(msg, path, serverName)
		}
		return nil
	}
}

// pickConfig chooses the file to register in: the one that already holds
// the entry, else the first that exists, else the first candidate.
func pickConfig(client string, paths []string) (string, []byte, error) {
	var firstPath string
	var first []byte
	for _, path := range paths {
		src, err := readFile(path)
		if err != nil {
			return "", nil, err
		}
		if src == nil {
			continue
		}
		if _, ok, err := formatFor(client, path).entry(src); err != nil {
			return "", nil, configError(path, err)
		} else if ok {
			return path, src, nil
		}
		if firstPath == "" {
			firstPath, first = path, src
		}
	}
	if firstPath == "" {
		return paths[0], nil, nil
	}
	return firstPath, first, nil
}

func planInstructions(path, preamble string, uninstall bool) (*Change, error) {
	src, err := readFile(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, What: "instructions", Old: src, New: src, Action: "unchanged"}
	var out []byte
	if uninstall {
		if src == nil {
			c.Action = "absent"
			return c, nil
		}
		has := func(b []byte) bool { spans, err := findBlocks(b); return len(spans) > 0 || err != nil }
		out, c.Restored, err = undo(path, src, setBlockAfter(preamble), removeBlock, has)
	} else {
		out, err = setBlockAfter(preamble)(src)
	}
	if err != nil {
		return nil, configError(path, err)
	}
	c.New, c.Action = out, action(src, out)
	return c, nil
}

// undo returns cur without what install added. When a backup (or, failing
// that, no file at all) is exactly the state that installing into gives
// cur, nothing else changed since: return that state, byte for byte, with
// restored set. Otherwise remove gives the edit.
//
// A backup that itself holds an IHMT entry or block (an older install) is
// not restored: uninstall must leave no IHMT behind.
func undo(path string, cur []byte, reinstall, remove func([]byte) ([]byte, error), has func([]byte) bool) (out []byte, restored bool, err error) {
	if reinstall != nil {
		for _, b := range backups(path) {
			prior, err := os.ReadFile(b)
			if err != nil || bytes.Equal(prior, cur) || has(prior) {
				continue
			}
			if r, err := reinstall(prior); err == nil && bytes.Equal(r, cur) {
				if prior == nil {
					prior = []byte{}
				}
				return prior, true, nil
			}
		}
		if r, err := reinstall(nil); err == nil && bytes.Equal(r, cur) {
			return nil, true, nil // install created the file
		}
	}
	out, err = remove(cur)
	return out, false, err
}

func action(old, new []byte) string {
	switch {
	case bytes.Equal(old, new) && (old == nil) == (new == nil):
		return "unchanged"
	case old == nil:
		return "create"
	case new == nil:
		return "remove"
	}
	return "update"
}

// readFile returns a file's content, nil if it does not exist.
func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// Apply carries out the plan: a backup of every file before it changes,
// each file written atomically, then the commands.
func (p *Plan) Apply(ctx context.Context, run Runner, now time.Time) error {
	for _, c := range p.Changes {
		if c.Changed() && c.Via == "" {
			if err := c.apply(now); err != nil {
				return err
			}
		}
	}
	if len(p.Commands) == 0 {
		return nil
	}
	for _, c := range p.Changes {
		if c.Via != "" && c.Old != nil {
			b, err := backup(c.Path, c.Old, now)
			if err != nil {
				return err
			}
			c.Backup = b
		}
	}
	for _, cmd := range p.Commands {
		out, err := run(ctx, cmd.Dir, cmd.Args)
		if err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	if p.verify != nil {
		return p.verify()
	}
	return nil
}

// apply writes one change to its file (or removes it), after a backup of
// what it replaces.
func (c *Change) apply(now time.Time) error {
	// The client may rewrite its file at any moment (Claude Code saves
	// ~/.claude.json often); refuse to overwrite a change made since the
	// plan read it. A write in the instant between this check and the
	// rename can still be lost: the backup keeps what was there.
	if cur, err := readFile(c.Path); err != nil {
		return err
	} else if !bytes.Equal(cur, c.Old) || (cur == nil) != (c.Old == nil) {
		return fmt.Errorf("%s changed while ihmt was editing it; nothing was written to it: run this again", c.Path)
	}
	mode := fs.FileMode(0o600) // configs may hold tokens
	if fi, err := os.Stat(c.Path); err == nil {
		mode = fi.Mode().Perm()
	}
	if c.Old != nil && !c.chained {
		b, err := backup(c.Path, c.Old, now)
		if err != nil {
			return err
		}
		c.Backup = b
	}
	if c.New == nil {
		if err := os.Remove(c.Path); err != nil {
			return fmt.Errorf("remove %s: %w", c.Path, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.Write(c.Path, c.New, mode); err != nil {
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	return nil
}

const backupInfix = ".ihmt-backup-"

// backup copies data beside path as <path>.ihmt-backup-<time>, private to
// the user since configurations may hold tokens.
func backup(path string, data []byte, now time.Time) (string, error) {
	stamp := now.UTC().Format("20060102T150405Z")
	for n := 1; ; n++ {
		name := path + backupInfix + stamp
		if n > 1 {
			name += fmt.Sprintf("-%03d", n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
}

// backups lists path's backups, newest first.
func backups(path string) []string {
	matches, _ := filepath.Glob(globEscape(path) + backupInfix + "*")
	slices.Sort(matches)
	slices.Reverse(matches)
	return matches
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

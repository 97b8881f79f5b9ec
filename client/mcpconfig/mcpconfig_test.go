package mcpconfig

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/client/instructions"
)

const mcpPath = "/opt/ihmt/bin/ihmt-mcp"

var srv = Server{Command: mcpPath}

// fixtures are configurations a user might already have: other servers,
// comments, unrelated keys, odd formatting. Each must survive untouched.
var fixtures = map[string]struct {
	file, content string
	// mustKeep are pieces of the fixture that install must leave as
	// they are.
	mustKeep []string
}{
	Claude: {".claude.json", `{
  "numStartups": 42,
  "theme": "dark",
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "/usr/bin/gh-mcp",
      "args": ["--read-only"],
      "env": {"GH_TOKEN": "x"}
    }
  },
  "projects": {"/src/app": {"allowedTools": []}}
}`, []string{`"numStartups": 42`, `"args": ["--read-only"]`, `"projects": {"/src/app": {"allowedTools": []}}`}},
	Codex: {".codex/config.toml", `# my Codex settings
model = "o3"  # the good one
approval_policy = "on-request"

[mcp_servers.github]
command = "/usr/bin/gh-mcp"
args = [
  "--read-only",
  # a comment inside an array
  "[not a table]",
]

[mcp_servers.github.env]
GH_TOKEN = "x"

# Profiles come last.
[profiles.fast]
model = "o4-mini"
`, []string{"# my Codex settings", `model = "o3"  # the good one`, "# a comment inside an array", "# Profiles come last.\n[profiles.fast]"}},
	OpenCode: {".config/opencode/opencode.json", `{
  // opencode reads JSON with comments
  "$schema": "https://opencode.ai/config.json",
  "theme": "tokyonight",
  "mcp": {
    "github": {
      "type": "local",
      "command": ["/usr/bin/gh-mcp"], // trailing comment
      "enabled": true,
    },
  },
  /* block
     comment */
  "model": "anthropic/claude-sonnet-4-5"
}
`, []string{"// opencode reads JSON with comments", "// trailing comment", "/* block\n     comment */", `"theme": "tokyonight"`}},
	Gemini: {".gemini/settings.json", `{
  "theme": "GitHub",
  "mcpServers": {
    "github": {"command": "/usr/bin/gh-mcp", "args": ["--read-only"]}
  },
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {
    "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "audit", "type": "command", "command": "audit.sh"}]}]
  }
}
`, []string{`"theme": "GitHub"`, `{"command": "/usr/bin/gh-mcp", "args": ["--read-only"]}`, `"command": "audit.sh"`}},
	Copilot: {".copilot/mcp-config.json", `{
  "mcpServers": {
    "github": {
      "tools": ["*"],
      "type": "local",
      "command": "/usr/bin/gh-mcp",
      "args": []
    }
  }
}
`, []string{`"tools": ["*"]`, `"command": "/usr/bin/gh-mcp"`}},
	Cursor: {".cursor/mcp.json", `{"mcpServers": {"github": {"command": "/usr/bin/gh-mcp", "args": []}}, "theme": "dark"}
`, []string{`"github": {"command": "/usr/bin/gh-mcp", "args": []}`, `"theme": "dark"`}},
	ClaudeDesktop: {".config/Claude/claude_desktop_config.json", `{
	"mcpServers": {
		"github": {
			"command": "/usr/bin/gh-mcp",
			"args": ["--read-only"]
		}
	},
	"theme": "dark"
}
`, []string{"\t\t\t\"command\": \"/usr/bin/gh-mcp\"", `"theme": "dark"`}},
	VSCode: {".config/Code/User/mcp.json", `{
  // VS Code reads JSON with comments
  "servers": {
    "github": {
      "type": "stdio",
      "command": "/usr/bin/gh-mcp", // trailing comment
      "args": [],
    },
  },
  "inputs": [],
  "theme": "dark"
}
`, []string{"// VS Code reads JSON with comments", "// trailing comment", `"inputs": []`}},
	Windsurf: {".codeium/windsurf/mcp_config.json", `{
  "mcpServers": {
    "github": {"command": "/usr/bin/gh-mcp", "args": [], "disabled": false}
  },
  "theme": "dark"
}
`, []string{`"disabled": false}`, `"theme": "dark"`}},
	Zed: {".config/zed/settings.json", `// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark",
  "context_servers": {
    "github": {
      "command": "/usr/bin/gh-mcp",
      "args": [],
    },
  },
  /* fonts */
  "buffer_font_size": 15,
}
`, []string{"// Zed settings\n//\n// For information", "/* fonts */", `"buffer_font_size": 15,`}},
}

// onFixtures runs f for every client, each on a home of its own that holds
// that client's fixture at cfg.
func onFixtures(t *testing.T, f func(t *testing.T, client string, env Env, cfg string)) {
	for _, client := range Clients {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			cfg := filepath.Join(env.Home, fixtures[client].file)
			write(t, cfg, fixtures[client].content)
			f(t, client, env, cfg)
		})
	}
}

func testEnv(t *testing.T) Env {
	home := t.TempDir()
	return Env{Home: home, Getenv: func(string) string { return "" }, GOOS: "linux"}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// readIf reads path when there is one ("" for a client without the file).
func readIf(t *testing.T, path string) string {
	if path == "" {
		return ""
	}
	return read(t, path)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var clock = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func apply(t *testing.T, p *Plan) {
	t.Helper()
	clock = clock.Add(time.Second)
	if err := p.Apply(context.Background(), nil, clock); err != nil {
		t.Fatal(err)
	}
}

func install(t *testing.T, env Env, client string) *Plan {
	t.Helper()
	p, err := Install(Options{Env: env, Client: client, Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, p)
	return p
}

func uninstall(t *testing.T, env Env, client string) *Plan {
	t.Helper()
	p, err := Uninstall(Options{Env: env, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, p)
	return p
}

// TestInstallUninstallFixtures: on an existing configuration, install adds
// the server and the instructions and keeps everything else; a second
// install changes nothing; uninstall gives back the original bytes.
func TestInstallUninstallFixtures(t *testing.T) {
	onFixtures(t, func(t *testing.T, client string, env Env, cfg string) {
		fx := fixtures[client]
		loc, _ := env.Locate(client, ScopeUser)
		notes := "# My notes\n\nAlways run the tests.\n"
		hasInstr := loc.Instructions != ""
		if hasInstr {
			write(t, loc.Instructions, notes)
		}

		p := install(t, env, client)
		got := read(t, cfg)
		for _, keep := range fx.mustKeep {
			if !strings.Contains(got, keep) {
				t.Errorf("install lost %q:\n%s", keep, got)
			}
		}
		if !strings.Contains(got, mcpPath) {
			t.Errorf("install did not register %s:\n%s", mcpPath, got)
		}
		r := Inspect(env, client, ScopeUser)
		if !r.Registered || r.Command != mcpPath || !r.Current || r.InstructionsPresent != hasInstr || r.InstructionsCurrent != hasInstr || r.Problem != "" {
			t.Errorf("after install: %+v", r)
		}
		// The other server is still there, as the client would read it.
		if !strings.Contains(got, "gh-mcp") {
			t.Errorf("the other server is gone:\n%s", got)
		}
		if instr := readIf(t, loc.Instructions); hasInstr && (!strings.HasPrefix(instr, notes) || strings.Count(instr, beginMarker) != 1 || !strings.Contains(instr, strings.TrimSpace(instructions.Text))) {
			t.Errorf("instructions file:\n%s", instr)
		}
		for _, c := range p.Changes {
			if c.Backup == "" || read(t, c.Backup) != map[string]string{"registration": fx.content, "instructions": notes}[c.What] {
				t.Errorf("%s: no faithful backup (%q)", c.Path, c.Backup)
			}
		}

		// Idempotent.
		again, err := Install(Options{Env: env, Client: client, Server: srv})
		if err != nil {
			t.Fatal(err)
		}
		if again.Changed() {
			t.Errorf("a second install would change: %+v", again.Changes)
		}
		nBackups := len(backups(cfg))
		apply(t, again)
		if read(t, cfg) != got || len(backups(cfg)) != nBackups {
			t.Error("a second install changed the file or made a backup")
		}

		u := uninstall(t, env, client)
		if read(t, cfg) != fx.content {
			t.Errorf("uninstall did not restore the config byte for byte:\n got: %q\nwant: %q", read(t, cfg), fx.content)
		}
		if hasInstr && read(t, loc.Instructions) != notes {
			t.Errorf("uninstall did not restore the instructions:\n%q", read(t, loc.Instructions))
		}
		for _, c := range u.Changes {
			if c.Changed() && !c.Restored {
				t.Errorf("%s: not reported as restored", c.Path)
			}
		}
		if r := Inspect(env, client, ScopeUser); r.Registered || r.InstructionsPresent {
			t.Errorf("after uninstall: %+v", r)
		}
	})
}

// TestUninstallAfterOtherEdits: when the user changed the file after
// install, uninstall removes only IHMT's entry and keeps their change.
func TestUninstallAfterOtherEdits(t *testing.T) {
	edits := map[string][2]string{
		Claude:   {`"theme": "dark"`, `"theme": "light"`},
		Codex:    {`model = "o3"`, `model = "o3-pro"`},
		OpenCode: {`"theme": "tokyonight"`, `"theme": "nord"`},
		Gemini:   {`"theme": "GitHub"`, `"theme": "ANSI"`},
		Copilot:  {`"args": []`, `"args": ["--x"]`},
		Cursor:   {`"theme": "dark"`, `"theme": "light"`},
		Windsurf: {`"theme": "dark"`, `"theme": "light"`},
		VSCode:   {`"theme": "dark"`, `"theme": "light"`},
		Zed:      {`"buffer_font_size": 15`, `"buffer_font_size": 16`},

		ClaudeDesktop: {`"theme": "dark"`, `"theme": "light"`},
	}
	onFixtures(t, func(t *testing.T, client string, env Env, cfg string) {
		fx := fixtures[client]
		install(t, env, client)
		e := edits[client]
		write(t, cfg, strings.Replace(read(t, cfg), e[0], e[1], 1))
		u := uninstall(t, env, client)
		want := strings.Replace(fx.content, e[0], e[1], 1)
		if got := read(t, cfg); got != want {
			t.Errorf("uninstall after an edit:\n got: %q\nwant: %q", got, want)
		}
		if u.Changes[0].Restored {
			t.Error("reported as a byte-for-byte restore, but it cannot be")
		}
	})
}

// TestFreshHome: with no configuration at all, install creates the files
// the clients read, and uninstall removes them again.
func TestFreshHome(t *testing.T) {
	for _, client := range Clients {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			env.Getenv = func(string) string { return "" }
			p := install(t, env, client)
			var created []string
			for _, c := range p.Changes {
				if c.Action != "create" {
					t.Errorf("%s: %s, want create", c.Path, c.Action)
				}
				created = append(created, c.Path)
			}
			r := Inspect(env, client, ScopeUser)
			if loc, _ := env.Locate(client, ScopeUser); !r.Registered || !r.Current || r.InstructionsCurrent != (loc.Instructions != "") {
				t.Errorf("after install: %+v", r)
			}
			uninstall(t, env, client)
			for _, path := range created {
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s still exists after uninstall", path)
				}
			}
		})
	}
}

// TestMalformedConfigReported: a file that does not parse is reported with
// its line and left alone.
func TestMalformedConfigReported(t *testing.T) {
	bad := map[string]struct {
		content string
		line    int
	}{
		Claude:   {"{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"x\": \n  }\n}\n", 5},
		Codex:    {"model = \"o3\"\n\n[mcp_servers.github\ncommand = \"x\"\n", 3},
		OpenCode: {"{\n  // fine\n  \"mcp\": {\n    \"a\": [1, 2\n  }\n}\n", 5},
	}
	for _, c := range Clients {
		if _, ok := bad[c]; !ok { // the JSON clients: a missing value
			bad[c] = struct {
				content string
				line    int
			}{"{\n  \"theme\": \"dark\",\n  \"x\": \n}\n", 4}
		}
	}
	for _, client := range Clients {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			cfg := filepath.Join(env.Home, fixtures[client].file)
			write(t, cfg, bad[client].content)
			for _, op := range []func(Options) (*Plan, error){Install, Uninstall} {
				_, err := op(Options{Env: env, Client: client, Server: srv})
				var ce *ConfigError
				if !errors.As(err, &ce) {
					t.Fatalf("err = %v, want a ConfigError", err)
				}
				if ce.Path != cfg || ce.Line != bad[client].line || !strings.Contains(err.Error(), "fix that line") {
					t.Errorf("error %q: path %s line %d, want %s line %d", err, ce.Path, ce.Line, cfg, bad[client].line)
				}
			}
			if read(t, cfg) != bad[client].content {
				t.Error("a malformed config was changed")
			}
			if len(backups(cfg)) != 0 {
				t.Error("backups were made for a refused edit")
			}
		})
	}
}

// TestInstructionsReplacedNotDuplicated: an older copy of the block is
// replaced in place, and extra copies are removed.
func TestInstructionsReplacedNotDuplicated(t *testing.T) {
	env := testEnv(t)
	loc, _ := env.Locate(Codex, ScopeUser)
	old := "# Mine\n\n" + beginMarker + "\nan older IHMT text\n" + endMarker + "\n\n## More of mine\n\n" + beginMarker + "\nanother copy\n" + endMarker + "\n"
	write(t, loc.Instructions, old)
	install(t, env, Codex)
	got := read(t, loc.Instructions)
	if strings.Count(got, beginMarker) != 1 || strings.Count(got, endMarker) != 1 {
		t.Errorf("want one block:\n%s", got)
	}
	if strings.Contains(got, "older IHMT text") || strings.Contains(got, "another copy") {
		t.Errorf("old copies kept:\n%s", got)
	}
	if !strings.HasPrefix(got, "# Mine\n\n"+beginMarker) || !strings.Contains(got, "## More of mine\n") {
		t.Errorf("the user's text moved or went:\n%s", got)
	}
	// Uninstall takes the block out and leaves the rest.
	uninstall(t, env, Codex)
	if got := read(t, loc.Instructions); strings.Contains(got, beginMarker) || !strings.Contains(got, "# Mine") || !strings.Contains(got, "## More of mine") {
		t.Errorf("after uninstall:\n%s", got)
	}

	// A begin marker without its end is refused, not guessed at.
	write(t, loc.Instructions, "x\n"+beginMarker+"\ntext\n")
	if _, err := Install(Options{Env: env, Client: Codex, Server: srv}); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("unpaired marker: err = %v", err)
	}
}

// TestCodexReplacesOwnTables: an earlier [mcp_servers.ihmt] with an env
// sub-table (as `codex mcp add` writes it) is replaced, not duplicated.
func TestCodexReplacesOwnTables(t *testing.T) {
	env := testEnv(t)
	cfg := filepath.Join(env.Home, ".codex", "config.toml")
	write(t, cfg, "model = \"o3\"\n\n[mcp_servers.ihmt]\ncommand = \"/old/ihmt-mcp\"\n\n[mcp_servers.ihmt.env]\nIHMT_SOCKET = \"/tmp/s\"\n\n# next\n[mcp_servers.other]\ncommand = \"o\"\n")
	p, err := Install(Options{Env: env, Client: Codex, Server: Server{Command: mcpPath, Env: map[string]string{"IHMT_HOME": "/data/ihmt"}}})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, p)
	got := read(t, cfg)
	want := "model = \"o3\"\n\n" + codexBlock(Server{Command: mcpPath, Env: map[string]string{"IHMT_HOME": "/data/ihmt"}}) + "\n# next\n[mcp_servers.other]\ncommand = \"o\"\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "/old/") || strings.Contains(got, "IHMT_SOCKET") {
		t.Error("the old table survived")
	}
	// The written table is what Codex wants: approval pre-set, with a why.
	if !strings.Contains(got, "default_tools_approval_mode = \"approve\"") || !strings.Contains(got, "cancels every MCP tool") {
		t.Error("no approval mode, or no comment saying why")
	}

	// An entry written as an inline table is not something a text edit
	// can replace: refused, with what to do.
	write(t, cfg, "[mcp_servers]\nihmt = { command = \"/old\" }\n")
	if _, err := Install(Options{Env: env, Client: Codex, Server: srv}); err == nil || !strings.Contains(err.Error(), "inline table") {
		t.Errorf("inline table: err = %v", err)
	}
}

// TestJSONEditStyles: one-line objects, trailing commas and an empty file
// are edited in the file's own style and stay valid.
func TestJSONEditStyles(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"one line": {`{"theme":"dark","mcp":{"a":{"type":"local"}}}`,
			`{"theme":"dark","mcp":{"a":{"type":"local"}, "ihmt": {"type":"local","command":["/opt/ihmt/bin/ihmt-mcp"],"enabled":true}}}`},
		"empty mcp": {"{\n  \"mcp\": {}\n}\n",
			"{\n  \"mcp\": {\n    \"ihmt\": {\n      \"type\": \"local\",\n      \"command\": [\n        \"/opt/ihmt/bin/ihmt-mcp\"\n      ],\n      \"enabled\": true\n    }\n  }\n}\n"},
		"tabs": {"{\n\t\"theme\": \"dark\"\n}",
			"{\n\t\"theme\": \"dark\",\n\t\"mcp\": {\n\t\t\"ihmt\": {\n\t\t\t\"type\": \"local\",\n\t\t\t\"command\": [\n\t\t\t\t\"/opt/ihmt/bin/ihmt-mcp\"\n\t\t\t],\n\t\t\t\"enabled\": true\n\t\t}\n\t}\n}"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := formatFor(OpenCode, "").set([]byte(tc.in), srv)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, tc.want)
			}
			back, err := formatFor(OpenCode, "").remove(out)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := formatFor(OpenCode, "").entry(back); ok {
				t.Error("remove left the entry")
			}
		})
	}
}

// TestOpencodePrefersExistingJSONC: opencode's own `mcp add` writes
// opencode.jsonc; install edits that file rather than starting a second.
func TestOpencodePrefersExistingJSONC(t *testing.T) {
	env := testEnv(t)
	jsonc := filepath.Join(env.Home, ".config", "opencode", "opencode.jsonc")
	write(t, jsonc, "{\n  // mine\n  \"theme\": \"nord\",\n}\n")
	p := install(t, env, OpenCode)
	if p.Changes[0].Path != jsonc {
		t.Errorf("edited %s, want %s", p.Changes[0].Path, jsonc)
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".config", "opencode", "opencode.json")); err == nil {
		t.Error("created a second config file")
	}
	if got := read(t, jsonc); !strings.Contains(got, "// mine") || !strings.Contains(got, mcpPath) {
		t.Errorf("opencode.jsonc:\n%s", got)
	}
}

// TestClaudeThroughCLI: with the claude CLI present, registration goes
// through `claude mcp add` (after `remove` when an older entry differs),
// and an entry that is already right runs nothing.
func TestClaudeThroughCLI(t *testing.T) {
	env := testEnv(t)
	cfg := filepath.Join(env.Home, ".claude.json")
	write(t, cfg, `{"mcpServers": {"ihmt": {"type": "stdio", "command": "/old/ihmt-mcp", "args": [], "env": {}}}}`)
	var ran [][]string
	fake := func(_ context.Context, dir string, argv []string) ([]byte, error) {
		ran = append(ran, argv)
		if slices.Contains(argv, "add") {
			// What the real CLI does to the file.
			write(t, cfg, `{"mcpServers": {"ihmt": {"type": "stdio", "command": "`+mcpPath+`", "args": [], "env": {"IHMT_HOME": "/d"}}}}`)
		}
		return nil, nil
	}
	s := Server{Command: mcpPath, Env: map[string]string{"IHMT_HOME": "/d"}}
	p, err := Install(Options{Env: env, Client: Claude, Server: s, ClaudeCLI: "/bin/claude"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(context.Background(), fake, clock); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"/bin/claude", "mcp", "remove", "--scope", "user", "ihmt"},
		{"/bin/claude", "mcp", "add", "--scope", "user", "ihmt", "-e", "IHMT_HOME=/d", "--", mcpPath},
	}
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("ran %q\nwant %q", ran, want)
	}
	if p.Changes[0].Backup == "" {
		t.Error("no backup before the CLI edited the file")
	}
	ran = nil
	p, err = Install(Options{Env: env, Client: Claude, Server: s, ClaudeCLI: "/bin/claude"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Changed() || len(p.Commands) > 0 {
		t.Errorf("second install plans %+v", p.Commands)
	}
	u, err := Uninstall(Options{Env: env, Client: Claude, ClaudeCLI: "/bin/claude"})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Commands) != 1 || !slices.Equal(u.Commands[0].Args, []string{"/bin/claude", "mcp", "remove", "--scope", "user", "ihmt"}) {
		t.Errorf("uninstall commands %+v", u.Commands)
	}
}

// TestProjectScope: project scope writes the project's own files.
func TestProjectScope(t *testing.T) {
	env := testEnv(t)
	env.Project = t.TempDir()
	for client, file := range map[string]string{Claude: ".mcp.json", Codex: ".codex/config.toml", OpenCode: "opencode.json"} {
		p, err := Install(Options{Env: env, Client: client, Scope: ScopeProject, Server: srv})
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(env.Project, file); p.Changes[0].Path != want {
			t.Errorf("%s: %s, want %s", client, p.Changes[0].Path, want)
		}
		if !strings.HasPrefix(p.Changes[1].Path, env.Project) {
			t.Errorf("%s: instructions in %s, outside the project", client, p.Changes[1].Path)
		}
	}
	if _, err := Install(Options{Env: Env{Home: env.Home}, Client: Claude, Scope: ScopeProject, Server: srv}); err == nil {
		t.Error("project scope without a project was accepted")
	}
}

// TestLocateHonoursClientVariables: the variables the clients themselves
// read move their files.
func TestLocateHonoursClientVariables(t *testing.T) {
	vars := map[string]string{"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "XDG_CONFIG_HOME": "/cfg"}
	env := Env{Home: "/home/u", Getenv: func(k string) string { return vars[k] }}
	for client, want := range map[string]string{Claude: "/c/.claude.json", Codex: "/x/config.toml", OpenCode: "/cfg/opencode/opencode.json"} {
		loc, err := env.Locate(client, ScopeUser)
		if err != nil || loc.Configs[0] != want {
			t.Errorf("%s: %v %v, want %s", client, loc.Configs, err, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	env := testEnv(t)
	for _, client := range Clients {
		text, file, err := Snippet(env, client, ScopeUser, srv)
		if err != nil || !strings.Contains(text, mcpPath) || file == "" {
			t.Errorf("%s: %q %q %v", client, text, file, err)
		}
		// The snippet is itself a valid config for that client.
		f := formatFor(client, file)
		if v, ok, err := f.entry([]byte(text)); err != nil || !ok {
			t.Errorf("%s: snippet does not parse as a registration: %v", client, err)
		} else if s, _ := f.server(v); s.Command != mcpPath {
			t.Errorf("%s: snippet registers %q", client, s.Command)
		}
	}
}

// TestInUse: what IHMT leaves in a client's directories after an install
// and an uninstall (its backups, an interrupted write's temporary file)
// does not make the client "in use"; a file of the client's own, in its
// configuration or state directory, does.
func TestInUse(t *testing.T) {
	own := map[string]string{
		Claude:   ".claude/settings.json",
		Codex:    ".codex/auth.json",
		OpenCode: ".local/share/opencode/storage/session.json",
		Gemini:   ".gemini/oauth_creds.json",
		Copilot:  ".copilot/config.json",
		Cursor:   ".cursor/argv.json",
		VSCode:   ".config/Code/User/settings.json",
		Windsurf: ".codeium/windsurf/installation_id",
		Zed:      ".config/zed/keymap.json",

		ClaudeDesktop: ".config/Claude/config.json",
	}
	for _, client := range Clients {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			if r := Inspect(env, client, ScopeUser); r.InUse != "" {
				t.Errorf("an empty home: in use (%s)", r.InUse)
			}
			install(t, env, client)
			uninstall(t, env, client)
			install(t, env, client)
			uninstall(t, env, client)
			loc, _ := env.Locate(client, ScopeUser)
			left := cmp.Or(loc.Instructions, loc.Configs[0]) // a file of IHMT's that had backups
			if loc.Instructions != "" && len(backups(left)) == 0 {
				t.Fatalf("no backups of %s to test with", left)
			}
			write(t, filepath.Join(filepath.Dir(left), "."+filepath.Base(left)+".tmp123"), "half")
			if r := Inspect(env, client, ScopeUser); r.InUse != "" || r.Registered {
				t.Errorf("only IHMT's leftovers: in use (%s), registered %v", r.InUse, r.Registered)
			}
			// The positive control, on the same home.
			path := filepath.Join(env.Home, own[client])
			write(t, path, "{}")
			want := path
			if client == OpenCode {
				want = filepath.Join(env.Home, ".local", "share", "opencode", "storage")
			}
			if r := Inspect(env, client, ScopeUser); r.InUse != want {
				t.Errorf("with %s: in use = %q, want %q", path, r.InUse, want)
			}
			// A configuration of its own counts too.
			env2 := testEnv(t)
			write(t, filepath.Join(env2.Home, fixtures[client].file), fixtures[client].content)
			if r := Inspect(env2, client, ScopeUser); r.InUse != filepath.Join(env2.Home, fixtures[client].file) {
				t.Errorf("with its configuration: in use = %q", r.InUse)
			}
		})
	}
}

package mcpconfig

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testHook = Hook{Command: "/opt/ihmt/bin/ihmt", Env: map[string]string{"IHMT_SOCKET": "/run/me/ihmt dir/ihmtd.sock"}}

// hookFixtures are hook files a user may already have: their own hooks on
// the same events and on others, and unrelated settings. Each must keep
// its meaning through an install and come back byte for byte.
var hookFixtures = map[string]string{
	"claude": `{
  "model": "opus",
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo mine"}]}]
  }
}
`,
	"codex": `{
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [{"type": "command", "command": "scan-secrets.py", "timeout": 30}]
      }
    ]
  }
}
`,
	"gemini": `{
  // The person's own settings and hooks.
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {
    "BeforeTool": [{"matcher": "write_file|replace", "hooks": [{"name": "audit", "type": "command", "command": "audit.sh", "timeout": 5000}]}],
    "BeforeAgent": [{"hooks": [{"type": "command", "command": "echo mine"}]}]
  },
  "hooksConfig": {"notifications": false}
}
`,
}

func applyChange(t *testing.T, c *Change) {
	t.Helper()
	if c.Changed() {
		if err := c.apply(time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHooksInstallUninstall: for each client, into no file and into a file
// with the user's own hooks: install adds IHMT's hooks and keeps the rest,
// a second install changes nothing, and uninstall restores the bytes.
func TestHooksInstallUninstall(t *testing.T) {
	for _, client := range Clients {
		if !HasHooks(client) {
			continue
		}
		for _, withFixture := range []bool{false, true} {
			fixture := hookFixtures[client]
			if withFixture && fixture == "" {
				continue
			}
			if !withFixture {
				fixture = ""
			}
			t.Run(client+map[bool]string{true: " into the user's file", false: " into no file"}[withFixture], func(t *testing.T) {
				env := Env{Home: t.TempDir()}
				o := Options{Env: env, Client: client}
				path, err := env.HookFile(client, ScopeUser)
				if err != nil {
					t.Fatal(err)
				}
				if withFixture {
					os.MkdirAll(filepath.Dir(path), 0o700)
					os.WriteFile(path, []byte(fixture), 0o600)
				}
				c, err := InstallHooks(o, testHook)
				if err != nil {
					t.Fatal(err)
				}
				if !c.Changed() {
					t.Fatal("install changes nothing")
				}
				applyChange(t, c)
				got, _ := os.ReadFile(path)
				if client == Gemini && (!strings.Contains(string(got), `"name": "ihmt-briefing"`) || !strings.Contains(string(got), `"BeforeAgent"`) || !strings.Contains(string(got), `"timeout": 10000`)) {
					t.Fatalf("not Gemini CLI's hooks:\n%s", got)
				}
				if client == Copilot && (!strings.Contains(string(got), `"userPromptSubmitted"`) || !strings.Contains(string(got), "--hook copilot --event prompt")) {
					t.Fatalf("not Copilot CLI's hooks:\n%s", got)
				}
				if n := strings.Count(string(got), hookMarker+client); client != OpenCode && n != 2 {
					t.Fatalf("%d IHMT hooks in %s, want 2:\n%s", n, path, got)
				}
				if client == OpenCode && !strings.Contains(string(got), `spawn(IHMT, ["context", "--hook", "opencode"]`) {
					t.Fatalf("the plugin does not run ihmt context:\n%s", got)
				}
				if client != OpenCode && !strings.Contains(string(got), `IHMT_SOCKET='/run/me/ihmt dir/ihmtd.sock' /opt/ihmt/bin/ihmt context --hook `+client) {
					t.Fatalf("the hook command is not quoted for a shell:\n%s", got)
				}
				for _, keep := range []string{"echo mine", "audit.sh", `"model": "opus"`, "scan-secrets.py"} {
					if strings.Contains(fixture, keep) && !strings.Contains(string(got), keep) {
						t.Fatalf("install lost %q:\n%s", keep, got)
					}
				}
				st := InspectHooks(env, client, ScopeUser, testHook)
				if !st.Installed || !st.Current || st.Problem != "" {
					t.Fatalf("inspect after install: %+v", st)
				}
				// Positive control for Current: another ihmt is not current.
				if st := InspectHooks(env, client, ScopeUser, Hook{Command: "/elsewhere/ihmt"}); st.Current {
					t.Fatalf("hooks of another ihmt read as current: %+v", st)
				}
				again, err := InstallHooks(o, testHook)
				if err != nil || again.Changed() {
					t.Fatalf("second install: %v, action %s", err, again.Action)
				}
				u, err := UninstallHooks(o)
				if err != nil {
					t.Fatal(err)
				}
				applyChange(t, u)
				after, err := os.ReadFile(path)
				switch {
				case withFixture && !bytes.Equal(after, []byte(fixture)):
					t.Fatalf("uninstall did not restore the file:\n%s\nwant:\n%s", after, fixture)
				case !withFixture && !errors.Is(err, os.ErrNotExist):
					t.Fatalf("uninstall left %s: %s", path, after)
				}
				if st := InspectHooks(env, client, ScopeUser, testHook); st.Installed {
					t.Fatalf("inspect after uninstall: %+v", st)
				}
			})
		}
	}
}

// TestHooksUninstallAfterUserEdit: the user changed the file after the
// install; uninstall removes IHMT's groups only and keeps their change.
func TestHooksUninstallAfterUserEdit(t *testing.T) {
	env := Env{Home: t.TempDir()}
	o := Options{Env: env, Client: Claude}
	c, err := InstallHooks(o, testHook)
	if err != nil {
		t.Fatal(err)
	}
	applyChange(t, c)
	edited := strings.Replace(string(c.New), `"hooks": {`, `"hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],`, 1)
	os.WriteFile(c.Path, []byte(edited), 0o600)
	u, err := UninstallHooks(o)
	if err != nil {
		t.Fatal(err)
	}
	if u.Restored {
		t.Fatal("restored a backup over the user's edit")
	}
	applyChange(t, u)
	got, _ := os.ReadFile(c.Path)
	if strings.Contains(string(got), hookMarker) || !strings.Contains(string(got), "notify-send done") {
		t.Fatalf("after uninstall:\n%s", got)
	}
}

func TestHooksRefuseWhatTheyCannotEdit(t *testing.T) {
	tests := []struct {
		name, client, content, why string
	}{
		{"malformed JSON", Claude, `{"hooks": {`, "settings.json:1:"},
		{"hooks not an object", Claude, `{"hooks": ["x"]}`, `"hooks" is not a JSON object`},
		{"event not a list", Codex, `{"hooks": {"SessionStart": {"matcher": "x"}}}`, "is not a list"},
		{"top level not an object", Codex, `[1, 2]`, "not a JSON object"},
		{"someone else's plugin", OpenCode, "export const Mine = async () => ({});\n", "IHMT did not write"},
		{"gemini: malformed settings", Gemini, `{"hooks": {"SessionStart": [}`, "settings.json:1:"},
		{"gemini: BeforeAgent not a list", Gemini, `{"hooks": {"BeforeAgent": "x"}}`, "is not a list"},
		{"copilot: someone else's ihmt.json", Copilot, `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "echo hi"}]}}`, "IHMT did not write"},
		{"copilot: not JSON", Copilot, `{"version": 1,`, "IHMT did not write"},
		{"copilot: mixed, ours and another", Copilot, `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "/x/ihmt context --hook copilot --event start"}, {"type": "command", "bash": "echo hi"}]}}`, "IHMT did not write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := Env{Home: t.TempDir()}
			path, _ := env.HookFile(tt.client, ScopeUser)
			os.MkdirAll(filepath.Dir(path), 0o700)
			os.WriteFile(path, []byte(tt.content), 0o600)
			_, err := InstallHooks(Options{Env: env, Client: tt.client}, testHook)
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("err %v, want a ConfigError saying %q", err, tt.why)
			}
		})
	}
	// Positive control: an empty object takes the hooks.
	env := Env{Home: t.TempDir()}
	path, _ := env.HookFile(Claude, ScopeUser)
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte("{}\n"), 0o600)
	if c, err := InstallHooks(Options{Env: env, Client: Claude}, testHook); err != nil || !c.Changed() {
		t.Fatalf("into {}: %v", err)
	}
	if _, err := InstallHooks(Options{Env: env, Client: Claude}, Hook{Command: "ihmt"}); err == nil {
		t.Fatal("a relative ihmt path was accepted")
	}
}

func TestHookFiles(t *testing.T) {
	env := Env{Home: "/home/u", Project: "/src/app", Getenv: func(k string) string {
		return map[string]string{"CODEX_HOME": "/cx"}[k]
	}}
	for _, tt := range []struct{ client, scope, want string }{
		{Claude, ScopeUser, "/home/u/.claude/settings.json"},
		{Claude, ScopeProject, "/src/app/.claude/settings.json"},
		{Codex, ScopeUser, "/cx/hooks.json"},
		{Codex, ScopeProject, "/src/app/.codex/hooks.json"},
		{OpenCode, ScopeUser, "/home/u/.config/opencode/plugins/ihmt.js"},
		{OpenCode, ScopeProject, "/src/app/.opencode/plugins/ihmt.js"},
		{Gemini, ScopeUser, "/home/u/.gemini/settings.json"},
		{Gemini, ScopeProject, "/src/app/.gemini/settings.json"},
		{Copilot, ScopeUser, "/home/u/.copilot/hooks/ihmt.json"},
		{Copilot, ScopeProject, "/src/app/.github/hooks/ihmt.json"},
	} {
		if got, err := env.HookFile(tt.client, tt.scope); err != nil || got != tt.want {
			t.Errorf("%s %s: %q %v, want %q", tt.client, tt.scope, got, err, tt.want)
		}
	}
}

// TestHookFilesCopilotHome: COPILOT_HOME moves Copilot CLI's hooks with its
// configuration.
func TestHookFilesCopilotHome(t *testing.T) {
	env := Env{Home: "/home/u", Getenv: func(k string) string { return map[string]string{"COPILOT_HOME": "/ch"}[k] }}
	if got, err := env.HookFile(Copilot, ScopeUser); err != nil || got != "/ch/hooks/ihmt.json" {
		t.Fatalf("%q %v", got, err)
	}
	for _, c := range []string{Cursor, VSCode, Zed, Windsurf, ClaudeDesktop} {
		if _, err := env.HookFile(c, ScopeUser); !errors.Is(err, errNoHooks) {
			t.Errorf("%s: %v, want errNoHooks", c, err)
		}
	}
}

// TestCopilotHooksBesideTheUsers: the person's own hooks files in Copilot
// CLI's hooks directory are never read as IHMT's, nor touched.
func TestCopilotHooksBesideTheUsers(t *testing.T) {
	env := Env{Home: t.TempDir()}
	path, _ := env.HookFile(Copilot, ScopeUser)
	mine := filepath.Join(filepath.Dir(path), "mine.json")
	const theirs = `{"version": 1, "hooks": {"userPromptSubmitted": [{"type": "command", "bash": "./log-prompt.sh"}]}}` + "\n"
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(mine, []byte(theirs), 0o600)
	o := Options{Env: env, Client: Copilot}
	for _, uninstall := range []bool{false, true} {
		p := &Plan{Client: Copilot}
		if err := AddHooks(p, o, testHook, uninstall); err != nil {
			t.Fatal(err)
		}
		if err := p.Apply(t.Context(), nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		TidyHooks(p)
		if got, _ := os.ReadFile(mine); string(got) != theirs {
			t.Fatalf("the person's hooks file changed: %s", got)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("uninstall left %s", path)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	if len(left) != 1 || left[0] != mine {
		t.Fatalf("the hooks directory holds %q, want only the person's file (no backups of IHMT's)", left)
	}
}

// TestGeminiOneFile: Gemini CLI's settings.json holds the registration and
// the hooks. One install writes both with one backup, of the file as it
// was; a second changes nothing; uninstall gives back the bytes — unless
// the person changed the file since, when only IHMT's entry and hooks go.
func TestGeminiOneFile(t *testing.T) {
	for _, edited := range []bool{false, true} {
		t.Run(map[bool]string{false: "untouched since", true: "edited since"}[edited], func(t *testing.T) {
			env := Env{Home: t.TempDir()}
			path, _ := env.HookFile(Gemini, ScopeUser)
			fixture := hookFixtures[Gemini]
			os.MkdirAll(filepath.Dir(path), 0o700)
			os.WriteFile(path, []byte(fixture), 0o600)
			o := Options{Env: env, Client: Gemini, Server: Server{Command: "/opt/ihmt/bin/ihmt-mcp"}}
			plan := func(uninstall bool) *Plan {
				t.Helper()
				var p *Plan
				var err error
				if uninstall {
					p, err = Uninstall(o)
				} else {
					p, err = Install(o)
				}
				if err == nil {
					err = AddHooks(p, o, testHook, uninstall)
				}
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			p := plan(false)
			if err := p.Apply(t.Context(), nil, time.Now()); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if !strings.Contains(string(got), `"ihmt": {`) || strings.Count(string(got), hookMarker+Gemini) != 2 || !strings.Contains(string(got), "echo mine") {
				t.Fatalf("after install:\n%s", got)
			}
			if b := backups(path); len(b) != 1 {
				t.Fatalf("backups %q, want one", b)
			} else if prior, _ := os.ReadFile(b[0]); string(prior) != fixture {
				t.Fatalf("the backup is not the file as it was:\n%s", prior)
			}
			if again := plan(false); again.Changed() {
				t.Fatal("a second install changes something")
			}
			if edited {
				os.WriteFile(path, []byte(strings.Replace(string(got), `"hooksConfig": {"notifications": false}`, `"hooksConfig": {"notifications": true}`, 1)), 0o600)
			}
			u := plan(true)
			if err := u.Apply(t.Context(), nil, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(path)
			restored := u.Changes[len(u.Changes)-1].Restored
			switch {
			case !edited && (string(after) != fixture || !restored):
				t.Fatalf("uninstall did not give back the file (restored %v):\n%s", restored, after)
			case edited && (restored || strings.Contains(string(after), "ihmt") || !strings.Contains(string(after), `"notifications": true`) || !strings.Contains(string(after), "echo mine")):
				t.Fatalf("after an edit, uninstall must remove IHMT's and keep the rest (restored %v):\n%s", restored, after)
			}
		})
	}
}

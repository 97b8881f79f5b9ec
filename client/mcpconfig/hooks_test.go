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
	} {
		if got, err := env.HookFile(tt.client, tt.scope); err != nil || got != tt.want {
			t.Errorf("%s %s: %q %v, want %q", tt.client, tt.scope, got, err, tt.want)
		}
	}
}

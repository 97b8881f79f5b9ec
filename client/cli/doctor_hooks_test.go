package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorHooks: doctor finds each agent's memory hooks after an install,
// warns when an install left them out (--no-hooks) or when they are not
// what this ihmt writes, and for Codex without its CLI says trust is
// unknown rather than fine.
func TestDoctorHooks(t *testing.T) {
	hookCheck := func(t *testing.T, h *host, cl string) check {
		t.Helper()
		d := &doctor{e: &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}, h: h, ctx: context.Background()}
		d.hooks()
		for _, c := range d.checks {
			if c.Name == cl+" hooks" {
				return c
			}
		}
		return check{}
	}
	tests := []struct {
		client, flag, status, finding string
	}{
		{"claude", "", checkOK, "session-start and per-prompt memory in"},
		{"opencode", "", checkOK, "plugins/ihmt.js"},
		{"codex", "", checkWarn, "whether Codex trusts them is unknown"},
		{"claude", "--no-hooks", checkWarn, "no memory hooks"},
		{"codex", "--no-hooks", checkWarn, "no memory hooks"},
		{"gemini", "", checkOK, ".gemini/settings.json"},
		{"copilot", "", checkOK, ".copilot/hooks/ihmt.json"},
		{"gemini", "--no-hooks", checkWarn, "no memory hooks"},
		{"copilot", "--no-hooks", checkWarn, "no memory hooks"},
	}
	for _, tt := range tests {
		t.Run(tt.client+" "+tt.flag, func(t *testing.T) {
			bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0", "ihmt": "exit 0"})
			h := testHost(t, bin, nil, &recorder{})
			args := []string{"mcp", "install", "--client", tt.client}
			if tt.flag != "" {
				args = append(args, tt.flag)
			}
			if code, out, errb := runCLI(t, args...); code != 0 {
				t.Fatalf("mcp install: %d %s%s", code, out, errb)
			}
			if c := hookCheck(t, h, tt.client); c.Status != tt.status || !strings.Contains(c.Finding, tt.finding) {
				t.Fatalf("got %+v, want %s with %q", c, tt.status, tt.finding)
			}
			if tt.client == "gemini" && tt.flag == "" {
				// Gemini CLI's own switch turns them off: a warning; its
				// twin, the switch on, is the OK above.
				settings := filepath.Join(h.getenv("HOME"), ".gemini", "settings.json")
				b, err := os.ReadFile(settings)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(settings, []byte(strings.Replace(string(b), "{", `{"hooksConfig": {"disabled": ["ihmt-prompt-memory"]},`, 1)), 0o600)
				if c := hookCheck(t, h, tt.client); c.Status != checkWarn || !strings.Contains(c.Finding, "turns off ihmt-prompt-memory") {
					t.Fatalf("hooks disabled in Gemini CLI: %+v", c)
				}
				os.WriteFile(settings, b, 0o600)
			}
			// Another ihmt's hooks are not current.
			if tt.flag == "" && tt.client != "codex" {
				h.exe = "/elsewhere/ihmt"
				if c := hookCheck(t, h, tt.client); c.Status != checkWarn || !strings.Contains(c.Finding, "differ") {
					t.Fatalf("another ihmt: %+v", c)
				}
			}
		})
	}
	// Nothing installed, nothing registered: no hooks check at all (the
	// registration check speaks for the agent).
	h := testHost(t, fakeBinDir(t, nil), nil, &recorder{})
	if c := hookCheck(t, h, "claude"); c.Name != "" {
		t.Fatalf("a hooks check for an agent without IHMT: %+v", c)
	}
}

// TestHookNotes: install says what a person must do for the hooks it
// wrote to run — trust, where the client asks for it — and says nothing
// where nothing is needed (the benign twins: the user scope).
func TestHookNotes(t *testing.T) {
	tests := []struct {
		client, scope, want string // want "": no note
	}{
		{"copilot", "project", "runs a repository's .github/hooks only in a folder you trusted"},
		{"copilot", "user", ""},
		{"gemini", "project", "warns of a project's hooks"},
		{"gemini", "user", ""},
		{"codex", "user", "only once you trust it"},
		{"claude", "user", ""},
	}
	for _, tt := range tests {
		t.Run(tt.client+" "+tt.scope, func(t *testing.T) {
			bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0", "ihmt": "exit 0"})
			testHost(t, bin, nil, &recorder{})
			code, out, errb := runCLI(t, "mcp", "install", "--client", tt.client, "--scope", tt.scope)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errb)
			}
			for _, n := range []string{"trusted", "trust it", "warns of"} {
				if tt.want == "" && strings.Contains(out, n) {
					t.Fatalf("a note where none is needed:\n%s", out)
				}
			}
			if tt.want != "" && !strings.Contains(out, tt.want) {
				t.Fatalf("no note saying %q:\n%s", tt.want, out)
			}
		})
	}
}

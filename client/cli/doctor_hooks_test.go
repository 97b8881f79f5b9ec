package cli

import (
	"context"
	"io"
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

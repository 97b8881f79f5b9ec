package cli

import (
	"strings"
	"testing"
)

// TestMCPInstallTools: --tools picks the families the registered shim
// serves, through IHMT_TOOLS in its environment; all three (the default)
// write nothing; an unknown family is a usage error that writes nothing.
func TestMCPInstallTools(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0"})
	testHost(t, bin, nil, &recorder{})
	for _, c := range []struct {
		tools string
		want  string // in the snippet; "" means no IHMT_TOOLS at all
		code  int
	}{
		{"memory,session", `IHMT_TOOLS = "memory,session"`, 0},
		{"project, memory,project", `IHMT_TOOLS = "project,memory"`, 0},
		{"memory,session,project", "", 0},
		{"", "", 0},
		{"memory,files", "", exitUsage},
		{",", "", exitUsage},
	} {
		args := []string{"mcp", "config", "--client", "codex"}
		if c.tools != "" {
			args = append(args, "--tools", c.tools)
		}
		code, out, errb := runCLI(t, args...)
		if code != c.code {
			t.Errorf("--tools %q: exit %d, want %d: %s", c.tools, code, c.code, errb)
			continue
		}
		if code != 0 {
			if !strings.Contains(errb, "memory, session and/or project") {
				t.Errorf("--tools %q: the error does not say what to use: %s", c.tools, errb)
			}
			continue
		}
		// Positive control: the snippet is the registration.
		if !strings.Contains(out, "[mcp_servers.ihmt]") {
			t.Fatalf("--tools %q: no registration in %s", c.tools, out)
		}
		if has := strings.Contains(out, "IHMT_TOOLS"); has != (c.want != "") || c.want != "" && !strings.Contains(out, c.want) {
			t.Errorf("--tools %q: snippet\n%s\nwant %q", c.tools, out, c.want)
		}
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPInstallCommand: the command end to end on a temporary HOME —
// dry run, install, idempotent second install, config snippet, uninstall.
func TestMCPInstallCommand(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0"})
	h := testHost(t, bin, map[string]string{"IHMT_SOCKET": "/run/ihmt-test/ihmtd.sock"}, &recorder{})
	home, _ := h.home()
	cfg := filepath.Join(home, ".codex", "config.toml")
	before := "# mine\nmodel = \"o3\"\n"
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	mcp := filepath.Join(bin, "ihmt-mcp")

	code, out, errb := runCLI(t, "mcp", "install", "--client", "codex", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errb)
	}
	for _, want := range []string{"would update " + cfg, "+[mcp_servers.ihmt]", `+command = "` + mcp + `"`, "+IHMT_SOCKET = \"/run/ihmt-test/ihmtd.sock\"", "would create " + filepath.Join(home, ".codex", "AGENTS.md")} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run does not show %q:\n%s", want, out)
		}
	}
	if got, _ := os.ReadFile(cfg); string(got) != before {
		t.Fatal("a dry run changed the config")
	}

	if code, out, errb := runCLI(t, "mcp", "install", "--client", "codex"); code != 0 || !strings.Contains(out, "backup: "+cfg+".ihmt-backup-") {
		t.Fatalf("install: exit %d: %s%s", code, out, errb)
	}
	if code, out, _ := runCLI(t, "mcp", "install", "--client", "codex"); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Errorf("second install: exit %d: %s", code, out)
	}
	code, out, errb = runCLI(t, "mcp", "config", "--client", "opencode")
	if code != 0 || !strings.Contains(out, `"`+mcp+`"`) || !strings.Contains(errb, "opencode.json") {
		t.Errorf("config: exit %d: %s%s", code, out, errb)
	}
	if code, out, errb := runCLI(t, "mcp", "install", "--client", "codex", "--uninstall"); code != 0 || !strings.Contains(out, "restored") {
		t.Errorf("uninstall: exit %d: %s%s", code, out, errb)
	}
	if got, _ := os.ReadFile(cfg); string(got) != before {
		t.Errorf("uninstall did not restore the config:\n%s", got)
	}

	// A malformed config: named with its line, exit 1, untouched.
	bad := "model = \"o3\"\n[mcp_servers\n"
	os.WriteFile(cfg, []byte(bad), 0o600)
	code, _, errb = runCLI(t, "mcp", "install", "--client", "codex")
	if code != 1 || !strings.Contains(errb, cfg+":2:") {
		t.Errorf("malformed: exit %d: %s", code, errb)
	}
	if got, _ := os.ReadFile(cfg); string(got) != bad {
		t.Error("a malformed config was changed")
	}

	for _, args := range [][]string{{"mcp", "install"}, {"mcp", "install", "--client", "vim"}, {"mcp", "install", "--client", "codex", "--scope", "team"}} {
		if code, _, _ := runCLI(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

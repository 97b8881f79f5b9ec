package cli

import (
	"encoding/json"
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

	if code, out, errb := runCLI(t, "mcp", "install", "--client", "codex"); code != 0 || !strings.Contains(out, "backup of the previous content: "+cfg+".ihmt-backup-") {
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

// TestMCPUninstallBackups: an uninstall names the backup it made with the
// change it made, and lists as older only the backups earlier runs left —
// none on the first round, the first round's on the second.
func TestMCPUninstallBackups(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0"})
	h := testHost(t, bin, nil, &recorder{})
	home, _ := h.home()
	cfg := filepath.Join(home, ".codex", "config.toml")
	first := cfg + ".ihmt-backup-20261129T120000Z"
	second := first + "-002"

	runCLI(t, "mcp", "install", "--client", "codex")
	code, out, errb := runCLI(t, "mcp", "uninstall", "--client", "codex")
	if code != 0 || !strings.Contains(out, "removed "+cfg) || !strings.Contains(out, "backup of the previous content: "+first+"\n") {
		t.Fatalf("first uninstall: exit %d: %s%s", code, out, errb)
	}
	if strings.Contains(out, "older") || strings.Contains(out, "earlier") {
		t.Errorf("first uninstall mentions older backups, but there are none:\n%s", out)
	}

	runCLI(t, "mcp", "install", "--client", "codex")
	code, out, errb = runCLI(t, "mcp", "uninstall", "--client", "codex")
	if code != 0 || !strings.Contains(out, "backup of the previous content: "+second+"\n") {
		t.Fatalf("second uninstall: exit %d: %s%s", code, out, errb)
	}
	want := "codex: 1 older backup of " + cfg + " remains, from an earlier edit: " + first + ";"
	if !strings.Contains(out, want) {
		t.Errorf("second uninstall does not say %q:\n%s", want, out)
	}
	for line := range strings.Lines(out) {
		if strings.Contains(line, "older") && strings.Contains(line, second) {
			t.Errorf("this run's own backup is listed as older: %s", line)
		}
	}

	// The same facts for scripts: this run's backup, and the older ones.
	runCLI(t, "mcp", "install", "--client", "codex")
	code, out, _ = runCLI(t, "mcp", "uninstall", "--client", "codex", "--json")
	var plan struct {
		Files []struct {
			Path, Backup string
			OlderBackups []string `json:"older_backups"`
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); code != 0 || err != nil || len(plan.Files) == 0 {
		t.Fatalf("--json: exit %d, %v: %s", code, err, out)
	}
	if f := plan.Files[0]; f.Path != cfg || f.Backup != first+"-003" || strings.Join(f.OlderBackups, " ") != second+" "+first {
		t.Errorf("--json: %+v", f)
	}
}

// TestMCPWithoutShim: with no ihmt-mcp anywhere ihmt looks, the snippet
// and the dry run are printed anyway, naming where `go install` puts it,
// with a warning on stderr; the real install refuses with the same hint.
// With ihmt-mcp beside ihmt (the positive control) there is no warning.
func TestMCPWithoutShim(t *testing.T) {
	bin := t.TempDir()
	h := testHost(t, bin, map[string]string{"GOPATH": "$HOME/gopath"}, &recorder{})
	home, _ := h.home()
	expected := filepath.Join(home, "gopath", "bin", "ihmt-mcp")
	hint := "go install ./daemon/cmd/ihmtd ./shim/cmd/ihmt-mcp ./client/cmd/ihmt"

	code, out, errb := runCLI(t, "mcp", "config", "--client", "codex")
	if code != 0 || !strings.Contains(out, `command = "`+expected+`"`) {
		t.Errorf("config: exit %d: %s%s", code, out, errb)
	}
	for _, want := range []string{"warning: ihmt-mcp was not found", "beside " + filepath.Join(bin, "ihmt"), "The snippet uses " + expected, hint, "$(go env GOPATH)/bin"} {
		if !strings.Contains(errb, want) {
			t.Errorf("config: stderr does not say %q:\n%s", want, errb)
		}
	}
	code, out, _ = runCLI(t, "mcp", "config", "--client", "opencode", "--json")
	var snip struct {
		Command string `json:"server_command"`
		Found   bool   `json:"server_found"`
		Warning string
		Snippet string
	}
	if err := json.Unmarshal([]byte(out), &snip); code != 0 || err != nil || snip.Found || snip.Command != expected || !strings.Contains(snip.Warning, hint) || !strings.Contains(snip.Snippet, expected) {
		t.Errorf("config --json: exit %d, %v, %+v", code, err, snip)
	}

	code, out, errb = runCLI(t, "mcp", "install", "--client", "codex", "--dry-run")
	if code != 1 || !strings.Contains(out, `+command = "`+expected+`"`) || !strings.Contains(errb, "the real run refuses until ihmt-mcp is installed") || !strings.Contains(errb, hint) {
		t.Errorf("dry run: exit %d: %s%s", code, out, errb)
	}
	code, out, errb = runCLI(t, "mcp", "install", "--client", "codex")
	if code != 1 || !strings.Contains(errb, "ihmt-mcp is not installed") || !strings.Contains(errb, hint) || !strings.Contains(errb, "must be on PATH") {
		t.Errorf("install: exit %d: %s%s", code, out, errb)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); err == nil {
		t.Error("a refused install wrote the codex configuration")
	}

	// Installed where `go install` puts it, it is found there, PATH or not.
	os.MkdirAll(filepath.Dir(expected), 0o755)
	os.WriteFile(expected, []byte("#!/bin/sh\n"), 0o755)
	if code, out, errb := runCLI(t, "mcp", "config", "--client", "codex"); code != 0 || strings.Contains(errb, "warning") || !strings.Contains(out, expected) {
		t.Errorf("config with %s: exit %d: %s%s", expected, code, out, errb)
	}
	// Beside ihmt, it is preferred, without a warning.
	os.WriteFile(filepath.Join(bin, "ihmt-mcp"), []byte("#!/bin/sh\n"), 0o755)
	code, out, errb = runCLI(t, "mcp", "config", "--client", "codex")
	if code != 0 || strings.Contains(errb, "warning") || !strings.Contains(out, `command = "`+filepath.Join(bin, "ihmt-mcp")+`"`) {
		t.Errorf("config with ihmt-mcp beside ihmt: exit %d: %s%s", code, out, errb)
	}
	if code, out, errb := runCLI(t, "mcp", "install", "--client", "codex", "--dry-run"); code != 0 || strings.Contains(errb, "warning") {
		t.Errorf("dry run with ihmt-mcp beside ihmt: exit %d: %s%s", code, out, errb)
	}
}

// TestMCPInstallDocumentedClients: the clients configured from their
// documentation alone, through the command: a dry run shows the entry, an
// install writes it and says where the instructions are (or that the
// client keeps them in its settings), doctor reads it back, uninstall takes
// it out; a project scope where the client reads none is refused, and the
// same install with --scope user is the positive control.
func TestMCPInstallDocumentedClients(t *testing.T) {
	for _, tc := range []struct {
		client, config, entry, instructions string
	}{
		{"zed", ".config/zed/settings.json", `"context_servers"`, ""},
		{"vscode", ".config/Code/User/mcp.json", `"type": "stdio"`, ".config/Code/User/prompts/ihmt.instructions.md"},
		{"windsurf", ".codeium/windsurf/mcp_config.json", `"mcpServers"`, ".codeium/windsurf/memories/global_rules.md"},
		{"claude-desktop", ".config/Claude/claude_desktop_config.json", `"mcpServers"`, ""},
	} {
		t.Run(tc.client, func(t *testing.T) {
			bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0"})
			h := testHost(t, bin, nil, &recorder{})
			home, _ := h.home()
			cfg := filepath.Join(home, tc.config)
			code, out, errb := runCLI(t, "mcp", "install", "--client", tc.client, "--dry-run")
			if code != 0 || !strings.Contains(out, "would create "+cfg) || !strings.Contains(out, tc.entry) {
				t.Fatalf("dry run: exit %d:\n%s%s", code, out, errb)
			}
			if _, err := os.Stat(cfg); err == nil {
				t.Fatal("a dry run wrote the config")
			}
			code, out, errb = runCLI(t, "mcp", "install", "--client", tc.client)
			if code != 0 {
				t.Fatalf("install: exit %d: %s%s", code, out, errb)
			}
			got, err := os.ReadFile(cfg)
			if err != nil || !strings.Contains(string(got), filepath.Join(bin, "ihmt-mcp")) {
				t.Fatalf("install wrote %q (%v)", got, err)
			}
			if tc.instructions == "" && !strings.Contains(out, "keeps standing instructions in its settings") {
				t.Errorf("install does not say where the instructions come from:\n%s", out)
			}
			if tc.instructions != "" {
				if b, err := os.ReadFile(filepath.Join(home, tc.instructions)); err != nil || !strings.Contains(string(b), "<!-- ihmt:begin -->") {
					t.Errorf("instructions %s: %q %v", tc.instructions, b, err)
				}
			}
			_, r, text := runDoctor(t)
			if c := r.find(tc.client); c.Status != checkOK || !strings.Contains(c.Finding, "registered in "+cfg) {
				t.Errorf("doctor: %+v\n%s", c, text)
			}
			if code, out, errb := runCLI(t, "mcp", "install", "--client", tc.client, "--uninstall"); code != 0 {
				t.Errorf("uninstall: exit %d: %s%s", code, out, errb)
			}
			if _, err := os.Stat(cfg); err == nil {
				t.Errorf("uninstall left %s, which install created", cfg)
			}
		})
	}
	bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0"})
	testHost(t, bin, nil, &recorder{})
	for _, c := range []string{"claude-desktop", "windsurf"} {
		if code, _, errb := runCLI(t, "mcp", "install", "--client", c, "--scope", "project", "--dry-run"); code != 2 || !strings.Contains(errb, "no project configuration") {
			t.Errorf("%s --scope project: exit %d: %s", c, code, errb)
		}
		if code, _, errb := runCLI(t, "mcp", "install", "--client", c, "--dry-run"); code != 0 {
			t.Errorf("%s --scope user: exit %d: %s", c, code, errb)
		}
	}
}

// TestDoctorGeminiFolderTrust: Gemini CLI starts no MCP server in a folder
// the person has not trusted, and doctor says so for the folder it runs in;
// once the folder is trusted, the same check passes.
func TestDoctorGeminiFolderTrust(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0"})
	h := testHost(t, bin, nil, &recorder{})
	home, _ := h.home()
	if code, out, errb := runCLI(t, "mcp", "install", "--client", "gemini"); code != 0 {
		t.Fatalf("install: exit %d: %s%s", code, out, errb)
	}
	_, r, text := runDoctor(t)
	if c := r.find("gemini folder"); c.Status != checkWarn || !strings.Contains(c.Finding, "starts no MCP server in "+h.cwd) || !strings.Contains(c.Fix, "trust") {
		t.Errorf("untrusted folder: %+v\n%s", c, text)
	}
	if c := r.find("gemini"); c.Status != checkOK {
		t.Errorf("the registration itself: %+v", c)
	}
	trust := `{"` + h.cwd + `": "TRUST_FOLDER"}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(trust), 0o600); err != nil {
		t.Fatal(err)
	}
	_, r, text = runDoctor(t)
	if c := r.find("gemini folder"); c.Status != checkOK {
		t.Errorf("trusted folder: %+v\n%s", c, text)
	}
}

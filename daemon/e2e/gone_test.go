package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoneStaysGoneThroughTheCLI: a person's export taken before a forget
// and a purge, imported again with `ihmt import`, brings neither memory
// back — the CLI says "2 skipped: forgotten on …" — and the purged text is
// in no file of the store; the memory never forgotten is unchanged (the
// control), and purge says what it removed, the summary tree included.
func TestGoneStaysGoneThroughTheCLI(t *testing.T) {
	e := servedEnv(t)
	env := e.environ("github.com/x/gone")
	var ids []string
	for _, text := range []string{
		"The release train leaves on Thursdays.",
		"The old staging host is called puffinridge.",
		"Dana keeps the spare office key behind the narwhalcove poster.",
	} {
		var r struct {
			ID string `json:"id"`
		}
		e.cliJSON(t, &r, env, "save", "--json", text)
		ids = append(ids, r.ID)
	}
	export := e.ihmt(env, "export")
	if export.code != 0 || strings.Count(export.stdout, "\n") != 3 {
		t.Fatalf("export: %s", export)
	}
	file := filepath.Join(t.TempDir(), "before.jsonl")
	os.WriteFile(file, []byte(export.stdout), 0o600)
	for _, id := range ids[1:] {
		if r := e.ihmt(env, "forget", id, "--reason", "no longer true"); r.code != 0 {
			t.Fatalf("forget: %s", r)
		}
	}
	if r := e.ihmt(env, "consolidate", "--force"); r.code != 0 {
		t.Fatalf("consolidate: %s", r)
	}
	purge := e.ihmt(env, "purge", ids[2])
	if purge.code != 0 || !strings.Contains(purge.stdout, "summary tree") {
		t.Fatalf("purge should say what it removed, the summary tree included: %s", purge)
	}
	imp := e.ihmt(env, "import", file)
	if imp.code != 0 || !strings.Contains(imp.stdout, "2 skipped: ") || !strings.Contains(imp.stdout, "forgotten on ") || !strings.Contains(imp.stdout, "purged on ") {
		t.Fatalf("import of the older export: %s", imp)
	}
	var js map[string]any
	e.cliJSON(t, &js, env, "import", "--json", file)
	if js["skipped"] != float64(2) || js["unchanged"] != float64(1) {
		t.Errorf("import --json: %v", js)
	}
	if r := e.ihmt(env, "search", "puffinridge staging host"); strings.Contains(r.stdout, ids[1]) {
		t.Errorf("the forgotten memory is found again after the import:\n%s", r)
	}
	if r := e.ihmt(env, "search", "release train Thursdays"); !strings.Contains(r.stdout, ids[0][:8]) {
		t.Errorf("control: the memory never forgotten must still be found:\n%s", r)
	}
	e.ihmt(env, "daemon", "stop")
	filepath.WalkDir(e.home, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(p); strings.Contains(strings.ToLower(string(data)), "narwhalcov") {
			t.Errorf("the purged text is back in %s", p)
		}
		return nil
	})
}

// TestAuditVerifyCatchesACutLog: `ihmt audit verify` passes on an intact
// log (the control) and fails, naming what is missing, once the log's last
// entries are cut off while the daemon was stopped, or the log emptied.
func TestAuditVerifyCatchesACutLog(t *testing.T) {
	for _, keep := range []int{1, 0} {
		e := servedEnv(t)
		env := e.environ("github.com/x/audit")
		for _, text := range []string{"Audit one: the CI runs on arm64.", "Audit two: the docs build nightly.", "Audit three: tags are signed."} {
			if r := e.ihmt(env, "save", text); r.code != 0 {
				t.Fatalf("save: %s", r)
			}
		}
		if r := e.ihmt(env, "audit", "verify"); r.code != 0 || !strings.Contains(r.stdout, "ok:") {
			t.Fatalf("control, intact log: %s", r)
		}
		if r := e.ihmt(env, "daemon", "stop"); r.code != 0 {
			t.Fatalf("daemon stop: %s", r)
		}
		log := filepath.Join(e.home, "log.jsonl")
		data, _ := os.ReadFile(log)
		lines := strings.SplitAfter(string(data), "\n")
		os.WriteFile(log, []byte(strings.Join(lines[:keep], "")), 0o600)
		e.waitReady(t, e.startDaemon(t))
		r := e.ihmt(env, "audit", "verify")
		want := "cut off"
		if keep == 0 {
			want = "all of them are missing"
		}
		if r.code == 0 || !strings.Contains(r.stdout, "BROKEN") || !strings.Contains(r.stdout, want) {
			t.Errorf("log cut to %d lines: %s", keep, r)
		}
	}
}

package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncThroughTheCLI: two daemons, each with its own store, sync through
// one bare repository with `ihmt sync` — the real binaries over their real
// sockets. What one saves the other finds; what one forgets the other
// forgets; status and doctor say how sync stands, in text and in JSON.
func TestSyncThroughTheCLI(t *testing.T) {
	remote := filepath.Join(t.TempDir(), "memory.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v: %s", err, out)
	}
	laptop, desktop := servedEnv(t), servedEnv(t)
	// The same project on both machines: its git remote names it.
	lenv, denv := laptop.environ("github.com/x/sync"), desktop.environ("github.com/x/sync")

	if r := laptop.ihmt(lenv, "sync"); r.code == 0 || !strings.Contains(r.stderr, "ihmt sync init") {
		t.Fatalf("sync before init should say to run init: %s", r)
	}
	if r := laptop.ihmt(lenv, "sync", "init", remote, "--device", "laptop"); r.code != 0 || !strings.Contains(r.stdout, "device laptop") {
		t.Fatalf("sync init: %s", r)
	}
	if r := desktop.ihmt(denv, "sync", "init", remote, "--device", "desktop"); r.code != 0 {
		t.Fatalf("sync init: %s", r)
	}
	var saved struct {
		ID string `json:"id"`
	}
	laptop.cliJSON(t, &saved, lenv, "save", "--json", "The staging database is PostgreSQL 17 on port 5433.")
	other := ""
	{
		var r struct {
			ID string `json:"id"`
		}
		desktop.cliJSON(t, &r, denv, "save", "--json", "Code review needs two approvals before a merge.")
		other = r.ID
	}
	var rep map[string]any
	laptop.cliJSON(t, &rep, lenv, "sync", "--json")
	if rep["report"] == nil {
		t.Fatalf("sync --json: %v", rep)
	}
	if r := desktop.ihmt(denv, "sync"); r.code != 0 || !strings.Contains(r.stdout, "received 1") {
		t.Fatalf("desktop sync: %s", r)
	}
	laptop.ihmt(lenv, "sync")
	if r := desktop.ihmt(denv, "search", "which database does staging use"); !strings.Contains(r.stdout, saved.ID[:8]) {
		t.Errorf("the desktop does not find the laptop's memory:\n%s", r)
	}
	if r := laptop.ihmt(lenv, "search", "how many approvals does code review need"); !strings.Contains(r.stdout, other[:8]) {
		t.Errorf("the laptop does not find the desktop's memory:\n%s", r)
	}

	if r := desktop.ihmt(denv, "forget", saved.ID, "--reason", "moved"); r.code != 0 {
		t.Fatalf("forget: %s", r)
	}
	desktop.ihmt(denv, "sync")
	if r := laptop.ihmt(lenv, "sync"); r.code != 0 {
		t.Fatalf("laptop sync: %s", r)
	}
	if r := laptop.ihmt(lenv, "search", "which database does staging use"); strings.Contains(r.stdout, saved.ID[:8]) {
		t.Errorf("the laptop still finds the memory the desktop forgot:\n%s", r)
	}

	var st struct {
		Status struct {
			Enabled bool     `json:"enabled"`
			Device  string   `json:"device"`
			Remote  string   `json:"remote"`
			ToSend  int64    `json:"to_send"`
			Devices []string `json:"devices"`
		} `json:"status"`
	}
	laptop.cliJSON(t, &st, lenv, "sync", "status", "--json")
	if !st.Status.Enabled || st.Status.Device != "laptop" || st.Status.Remote != remote || len(st.Status.Devices) != 2 {
		t.Errorf("sync status --json: %+v", st.Status)
	}
	if r := laptop.ihmt(lenv, "sync", "status"); !strings.Contains(r.stdout, "last sync:") || !strings.Contains(r.stdout, "to receive: 0") {
		t.Errorf("sync status: %s", r)
	}
	doc := laptop.ihmt(lenv, "doctor", "--json")
	var checks struct {
		Checks []struct{ Name, Status, Finding string } `json:"checks"`
	}
	if err := json.Unmarshal([]byte(doc.stdout), &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, doc)
	}
	found := false
	for _, c := range checks.Checks {
		if c.Name == "sync" {
			found = true
			if c.Status != "ok" || !strings.Contains(c.Finding, "device laptop") {
				t.Errorf("doctor's sync check: %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("doctor has no sync check:\n%s", doc.stdout)
	}
}

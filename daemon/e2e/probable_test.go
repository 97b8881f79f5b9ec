package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestProbableSupersessionThroughCLI: a correction worded unlike what it
// corrects changes the answer through the real daemon; `ihmt conflicts`
// names the inferred link; `ihmt unlink` undoes it, and the old memory
// answers as current again.
func TestProbableSupersessionThroughCLI(t *testing.T) {
	e := servedEnv(t)
	env := e.environ("")
	for i := range 12 {
		e.ihmt(env, "save", "--scope", "global", "--date", "2024-01-02", fmt.Sprintf("Unrelated note %d about topic number %d and its own details.", i, i*7))
	}
	var old, nw struct{ ID string }
	e.cliJSON(t, &old, env, "save", "--json", "--scope", "global", "--date", "2024-03-01", "The session cache runs on Redis 7 on the app host.")
	e.cliJSON(t, &nw, env, "save", "--json", "--scope", "global", "--date", "2024-09-01", "Redis is gone: Valkey 8 runs the session cache now.")

	var found struct {
		Status  string
		Results []struct {
			Memory  struct{ ID string }
			Current bool
			Notices []string
		}
	}
	e.cliJSON(t, &found, env, "search", "--json", "what runs the session cache?")
	if found.Status != "found" || len(found.Results) < 2 || found.Results[0].Memory.ID != nw.ID || found.Results[1].Current {
		t.Fatalf("the correction should answer, the old memory below it outdated: %+v", found)
	}
	if n := found.Results[1].Notices; len(n) == 0 || !strings.HasPrefix(n[0], "PROBABLY OUTDATED") {
		t.Errorf("the old memory's notice: %q", n)
	}
	r := e.ihmt(env, "conflicts")
	if r.code != 0 || !strings.Contains(r.stdout, "probable") || !strings.Contains(r.stdout, old.ID+" (2024-03-01) → "+nw.ID) {
		t.Fatalf("conflicts should list the probable link:\n%s", r)
	}
	if r := e.ihmt(env, "unlink", nw.ID, old.ID); r.code == 0 {
		t.Fatalf("unlink the wrong way round should fail:\n%s", r)
	}
	if r := e.ihmt(env, "unlink", old.ID, nw.ID); r.code != 0 || !strings.Contains(r.stdout, "current again") {
		t.Fatalf("unlink: %s", r)
	}
	e.cliJSON(t, &found, env, "search", "--json", "what runs the session cache?")
	for _, h := range found.Results {
		if h.Memory.ID == old.ID && (!h.Current || len(h.Notices) > 0) {
			t.Errorf("after unlink the old memory is current again: %+v", h)
		}
	}
	if r := e.ihmt(env, "conflicts"); strings.Contains(r.stdout, "probable") {
		t.Errorf("conflicts still lists the undone link:\n%s", r)
	}
}

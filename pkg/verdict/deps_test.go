package verdict_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ihmt-dev/ihmt"

// deps lists what pkg names links, as go list sees it.
func deps(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list %s: %v", pkg, err)
	}
	has := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		has[p] = true
	}
	return has
}

// TestDeps: the verdict is a leaf: it links nothing of the engine; and the
// rankings outside the long-term store (session notes, the code index)
// judge by it without linking the store. The positive controls: the
// listing sees what each does link.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for p := range deps(t, "pkg/verdict") {
		if strings.HasPrefix(p, module+"/") && p != module+"/pkg/verdict" {
			t.Errorf("pkg/verdict links %s: the verdict must stay a pure leaf of the engine", p)
		}
	}
	for _, pkg := range []string{"pkg/lookup", "pkg/scratch", "pkg/codeindex"} {
		has := deps(t, pkg)
		if has[module+"/pkg/store"] {
			t.Errorf("%s links pkg/store: it judges through pkg/verdict", pkg)
		}
		if !has[module+"/pkg/verdict"] || !has[module+"/pkg/index"] {
			t.Errorf("%s's dependencies lack pkg/verdict or pkg/index; is the listing right?", pkg)
		}
	}
	if !deps(t, "pkg/store")[module+"/pkg/verdict"] {
		t.Error("pkg/store does not link pkg/verdict: the listing cannot be trusted")
	}
}

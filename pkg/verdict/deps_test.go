package verdict_test

import (
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestDeps: the verdict is a leaf: it links nothing of the engine; and the
// rankings outside the long-term store (session notes, the code index)
// judge by it without linking the store. The positive controls: the
// listing sees what each does link.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for p := range testenv.Deps(t, "pkg/verdict") {
		if strings.HasPrefix(p, "pkg/") && p != "pkg/verdict" {
			t.Errorf("pkg/verdict links %s: the verdict must stay a pure leaf of the engine", p)
		}
	}
	for _, pkg := range []string{"pkg/lookup", "pkg/scratch", "pkg/codeindex"} {
		has := testenv.Deps(t, pkg)
		if has["pkg/store"] {
			t.Errorf("%s links pkg/store: it judges through pkg/verdict", pkg)
		}
		if !has["pkg/verdict"] || !has["pkg/index"] {
			t.Errorf("%s's dependencies lack pkg/verdict or pkg/index; is the listing right?", pkg)
		}
	}
	if !testenv.Deps(t, "pkg/store")["pkg/verdict"] {
		t.Error("pkg/store does not link pkg/verdict: the listing cannot be trusted")
	}
}

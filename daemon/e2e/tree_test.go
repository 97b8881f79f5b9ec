package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// treeJSON is `ihmt tree --json`.
type treeJSON struct {
	Nodes []struct {
		Depth int    `json:"depth"`
		ID    string `json:"id"`
		Layer int    `json:"layer"`
		Group string `json:"group"`
		Title string `json:"title"`
	} `json:"nodes"`
	Stats struct {
		Ready    bool  `json:"ready"`
		Leaves   int64 `json:"leaves"`
		Pending  int64 `json:"pending"`
		Branches int64 `json:"branches"`
	} `json:"stats"`
}

func (tj treeJSON) leaves() []string {
	var out []string
	for _, n := range tj.Nodes {
		if n.Layer == 0 {
			out = append(out, n.ID)
		}
	}
	return out
}

// TestTreeThroughCLI: memories saved through the CLI are consolidated into
// summary branches; `ihmt tree` shows every one of them within the caller's
// scope (another project's only with --scope all); `ihmt consolidate
// --force` closes partial groups; a search names each answer's place in the
// tree; `ihmt rebuild`
// rebuilds it from the leaves.
func TestTreeThroughCLI(t *testing.T) {
	e := servedEnv(t)
	alpha, beta := e.environ("github.com/x/alpha"), e.environ("github.com/x/beta")

	var saved []string
	for i := range 19 {
		var s struct {
			ID string `json:"id"`
		}
		e.cliJSON(t, &s, alpha, "save", "--json", "--domain", "software.go",
			fmt.Sprintf("Service %d listens on port %d and logs to journald.", i, 8000+i))
		saved = append(saved, s.ID)
	}
	var other struct {
		ID string `json:"id"`
	}
	e.cliJSON(t, &other, beta, "save", "--json", "The beta service listens on port 9999.")

	var c struct {
		Written int64 `json:"written"`
		Stats   struct {
			Pending  int64 `json:"pending"`
			Branches int64 `json:"branches"`
		} `json:"stats"`
	}
	e.cliJSON(t, &c, alpha, "consolidate", "--json")
	// 19 memories of one group: two full branches of 8 and 3 left over,
	// plus beta's one.
	var tj treeJSON
	e.cliJSON(t, &tj, alpha, "tree", "--json", "--depth", "0")
	if !tj.Stats.Ready || tj.Stats.Branches < 2 {
		t.Fatalf("tree stats after consolidate: %+v", tj.Stats)
	}
	got := tj.leaves()
	for _, id := range saved {
		if !slices.Contains(got, id) {
			t.Fatalf("memory %s missing from the outline %v", id, got)
		}
	}
	if slices.Contains(got, other.ID) {
		t.Fatalf("alpha's outline shows beta's memory")
	}
	e.cliJSON(t, &tj, alpha, "tree", "--json", "--depth", "0", "--scope", "all")
	if !slices.Contains(tj.leaves(), other.ID) {
		t.Fatalf("positive control: --scope all shows beta's memory: %v", tj.leaves())
	}

	r := e.ihmt(alpha, "tree")
	if r.code != 0 || !strings.Contains(r.stdout, "project:github.com/x/alpha|software.go") || !strings.Contains(r.stdout, "[layer 1, 8 items]") {
		t.Fatalf("ihmt tree: %s", r)
	}

	e.cliJSON(t, &c, alpha, "consolidate", "--json", "--force")
	if c.Written == 0 || c.Stats.Pending != 1 { // beta's lone memory has no group to join
		t.Fatalf("consolidate --force: %+v", c)
	}

	var a struct {
		Status   string `json:"status"`
		Coverage struct {
			ViaTree    bool `json:"via_tree"`
			Exhaustive bool `json:"exhaustive"`
		} `json:"coverage"`
		Results []struct {
			Memory   cliMemory `json:"memory"`
			TreePath []string  `json:"tree_path"`
		} `json:"results"`
	}
	e.cliJSON(t, &a, alpha, "search", "--json", "which service listens on port 8007?")
	if a.Status != "found" || a.Results[0].Memory.ID != saved[7] || !a.Coverage.Exhaustive || len(a.Results[0].TreePath) == 0 {
		t.Fatalf("search names where the answer sits in the tree: %+v", a)
	}

	var rb struct {
		Tree struct {
			Leaves   int64 `json:"leaves"`
			Branches int64 `json:"branches"`
		} `json:"tree"`
	}
	e.cliJSON(t, &rb, alpha, "rebuild", "--json")
	if rb.Tree.Leaves != 20 || rb.Tree.Branches < 2 {
		t.Fatalf("rebuild: tree %+v, want 20 leaves under branches", rb.Tree)
	}
}

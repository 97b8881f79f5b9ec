package tree

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// TestIDNumbers checks ids survive the trip through their numbers exactly,
// and that nothing but an id's exact spelling gets a number.
func TestIDNumbers(t *testing.T) {
	for _, c := range []struct {
		id     string
		leaf   bool
		branch bool
		num    uint64
	}{
		{"0000000000000000", true, false, 0},
		{"ffffffffffffffff", true, false, ^uint64(0)},
		{"0123456789abcdef", true, false, 0x0123456789abcdef},
		{"b0123456789abcdef", false, true, 0x0123456789abcdef},
		{"bffffffffffffffff", false, true, ^uint64(0)},
		{"0123456789ABCDEF", false, false, 0}, // upper case is not an id
		{"B0123456789abcdef", false, false, 0},
		{"0123456789abcde", false, false, 0},
		{"0123456789abcdef0", false, false, 0},
		{"b0123456789abcde", true, false, 0xb0123456789abcde}, // 16 hex digits: a leaf's
		{"c0123456789abcdef", false, false, 0},
		{"0123456789abcdeg", false, false, 0},
		{"", false, false, 0},
	} {
		v, ok := leafNum(c.id)
		if ok != c.leaf || (ok && (v != c.num || leafString(v) != c.id)) {
			t.Errorf("leafNum(%q) = %x, %v", c.id, v, ok)
		}
		v, ok = branchNum(c.id)
		if ok != c.branch || (ok && (v != c.num || branchString(v) != c.id)) {
			t.Errorf("branchNum(%q) = %x, %v", c.id, v, ok)
		}
		if _, ok := leafNum(c.id); ok != leaf.IsID(c.id) {
			t.Errorf("leafNum(%q) disagrees with leaf.IsID", c.id)
		}
		if _, ok := branchNum(c.id); ok != isBranchID(c.id) {
			t.Errorf("branchNum(%q) disagrees with isBranchID", c.id)
		}
	}
}

// TestNodeChildren checks a node gives back its children exactly, leaves
// and branches told apart by where they are (layer 1: leaves; above:
// branches; a hand-made mix says which), and compares a file's children
// to them by their exact spelling.
func TestNodeChildren(t *testing.T) {
	leafA, leafB := "00000000000000a1", "ffffffffffffff02"
	brA, brB := "b00000000000000a1", "b1234567890abcdef" // brA: leafA's number
	for _, c := range []struct {
		name     string
		layer    int
		children []string
		mixed    bool
	}{
		{"leaves", 1, []string{leafA, leafB}, false},
		{"branches", 2, []string{brA, brB}, false},
		{"mixed, leaf first", 2, []string{leafA, brA, brB}, true},
		{"mixed, branch first", 3, []string{brB, leafB, leafA}, true},
	} {
		n := newNode(c.layer, "g", c.children)
		if got := n.children(); !slices.Equal(got, c.children) {
			t.Errorf("%s: children %q, want %q", c.name, got, c.children)
		}
		if (n.mixed != nil) != c.mixed {
			t.Errorf("%s: mixed %v", c.name, n.mixed != nil)
		}
		for i, id := range c.children {
			if n.child(i) != id || !n.isChild(i, id) || n.leaf(i) != leaf.IsID(id) {
				t.Errorf("%s: child %d is not %s", c.name, i, id)
			}
			// The same number spelled as the other kind, or in upper
			// case, is another id.
			other := "b" + id
			if !n.leaf(i) {
				other = id[1:]
			}
			if n.isChild(i, other) {
				t.Errorf("%s: child %d taken for %s", c.name, i, other)
			}
		}
		if n.isChild(0, "0") || n.isChild(0, "") {
			t.Errorf("%s: a malformed id matched", c.name)
		}
	}
}

// TestTermCounts runs termCounts against a map doing what the tree's
// rarity table did (a count reaching 0 deletes the term), through growth,
// repacking and clipping.
func TestTermCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c termCounts
	c.reset()
	want := make(map[string]int32)
	terms := make([]string, 3000)
	for i := range terms {
		terms[i] = string(rune('a'+r.IntN(26))) + string(rune('a'+r.IntN(26))) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	terms[0] = "" // the empty term is a term too
	check := func(when string) {
		t.Helper()
		if got := c.toMap(); !maps.Equal(got, want) || c.len() != len(want) {
			t.Fatalf("%s: %d terms, want %d", when, c.len(), len(want))
		}
		for _, k := range terms[:200] {
			if c.get(k) != want[k] {
				t.Fatalf("%s: get(%q) = %d, want %d", when, k, c.get(k), want[k])
			}
		}
	}
	for round := range 20 {
		if round == 5 {
			c.reserve(5000)
		}
		for range 2000 {
			k := terms[r.IntN(len(terms))]
			d := int32(r.IntN(5) - 2)
			c.add(k, d)
			if x := want[k] + d; x > 0 {
				want[k] = x
			} else {
				delete(want, k)
			}
		}
		check("after adds")
		if round%4 == 0 {
			c.clip()
			check("after clip")
		}
	}
	// Everything out, then back: the table stays usable.
	for k, n := range want {
		c.add(k, -n)
	}
	clear(want)
	check("emptied")
	c.add("again", 3)
	want["again"] = 3
	check("refilled")
}

// TestOpenKeepsMixedBranch checks a branch over both a leaf and a branch,
// which consolidation never writes but a catalog edited by hand can list,
// is kept as it always was: consistent, so not a repair, with its children
// told apart (see node.mixed).
func TestOpenKeepsMixedBranch(t *testing.T) {
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	items := simpleItems("g", 0, 9)
	addAll(t, tr, items)
	consolidate(t, tr, false) // one branch over the first 8; the 9th waits
	under := parentMap(tr)[items[0].ID]
	kids := []string{items[8].ID, under}
	mixed := Branch{ID: branchID(kids), Layer: 2, Group: "g", Title: "mixed", Created: testNow,
		Children: []ChildSummary{{ID: kids[0], Title: "a leaf"}, {ID: kids[1], Title: "a branch"}}}
	data, err := encodeJSON(mixed)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, filepath.Join(branchesDir, "2", mixed.ID+".json"), string(data))
	f, err := os.OpenFile(filepath.Join(dir, catalogLogName), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"gen":%d,"branches":[{"id":%q,"layer":2,"group":"g","children":[%q,%q]}]}`+"\n", tr.cat.gen, mixed.ID, kids[0], kids[1])
	f.Close()

	re := mustOpen(t, dir)
	if r := re.Repairs(); len(r) != 0 {
		t.Fatalf("repaired %v", r)
	}
	if err := checkInvariants(re); err != nil {
		t.Fatal(err)
	}
	if _, n := re.node(mixed.ID); n == nil || n.mixed == nil || !slices.Equal(n.children(), kids) {
		t.Fatalf("mixed branch held as %+v", n)
	}
	if got := re.Path(items[8].ID); !slices.Equal(got, []string{mixed.ID}) {
		t.Fatalf("path of the leaf %v", got)
	}
	if got := re.Path(items[0].ID); !slices.Equal(got, []string{mixed.ID, under}) {
		t.Fatalf("path under the branch %v", got)
	}
	if b, ok := re.Branch(mixed.ID); !ok || b.Title != "mixed" {
		t.Fatalf("branch read back %v %+v", ok, b)
	}
	if st := re.Stats(); st.Leaves != 9 || st.Branches != 2 || st.Root != 1 || st.Pending != 0 || st.Layers != 2 {
		t.Fatalf("stats %+v", st)
	}
	snap := re.snapshot()
	if len(snap.Branches) != 2 || !slices.Equal(snap.Branches[1].Children, kids) {
		t.Fatalf("catalog entries %+v", snap.Branches)
	}
	// Damage the mixed branch: dropping it frees both kinds of child.
	write(t, dir, filepath.Join(branchesDir, "2", mixed.ID+".json"), "{")
	if _, ok := re.Branch(mixed.ID); ok {
		t.Fatal("damaged branch read")
	}
	consolidate(t, re, false)
	if got := re.Path(items[0].ID); !slices.Equal(got, []string{under}) {
		t.Fatalf("after the drop, path %v", got)
	}
	if got := re.Path(items[8].ID); got != nil {
		t.Fatalf("after the drop, the leaf's path %v (its summary was in the dropped file)", got)
	}
	if err := checkInvariants(re); err != nil {
		t.Fatal(err)
	}
}

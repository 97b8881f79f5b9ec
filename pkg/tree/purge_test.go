package tree

import (
	"bytes"
	"testing"
)

// TestPurge: a purged leaf's words leave every file of the tree — its
// branch, the branches above, root.json, the catalog — in the three places
// a leaf can be (filed and live, filed and removed, parentless), and stay
// out after a reopen and more consolidations; the other leaves stay held
// and the invariants hold (the controls).
func TestPurge(t *testing.T) {
	// stem is what every form of the word holds, its keywords stemmed too.
	const word, stem = "quokkaborne", "quokkabor"
	for _, where := range []string{"filed", "removed", "parentless"} {
		t.Run(where, func(t *testing.T) {
			dir := t.TempDir()
			items := simpleItems("global|general", 0, 70)
			target := 20
			if where == "parentless" {
				target = 69 // after the last full branch of 8
			}
			items[target].Text = "The " + word + " office sits on zebrafishton street."
			tr := growTree(t, dir, items, 40)
			consolidate(t, tr, false)
			if where != "parentless" {
				consolidate(t, tr, true)
			}
			id := items[target].ID
			if !holds(readDir(t, dir), stem) {
				t.Fatal("control: the word should be in the tree's files before the purge")
			}
			if where == "removed" {
				tr.Remove(id)
				consolidate(t, tr, false)
			}
			if !tr.Mentions(id) {
				t.Fatal("Mentions should be true before the purge")
			}
			st, err := tr.Purge(id)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkInvariants(tr); err != nil {
				t.Fatal(err)
			}
			if where != "parentless" && st.Branches == 0 || !st.Root || !st.Catalog {
				t.Errorf("purge stats %+v", st)
			}
			if holds(readDir(t, dir), stem) {
				t.Fatalf("after the purge the word is still in the tree's files")
			}
			consolidate(t, tr, true)
			tr2 := mustOpen(t, dir)
			consolidate(t, tr2, true)
			if holds(readDir(t, dir), stem) {
				t.Fatalf("after a reopen the word is back in the tree's files")
			}
			if tr2.Mentions(id) || tr2.Holds(id) {
				t.Error("the purged leaf is still in the tree")
			}
			for i, it := range items {
				if i != target && !tr2.Holds(it.ID) {
					t.Errorf("control: leaf %d (%s) is no longer held", i, it.ID)
				}
			}
			if got, err := tr2.Purge(id); err != nil || got.Files() != 0 {
				t.Errorf("purging twice: %+v, %v (want nothing to do)", got, err)
			}
		})
	}
}

func holds(files map[string][]byte, word string) bool {
	for _, data := range files {
		if bytes.Contains(data, []byte(word)) {
			return true
		}
	}
	return false
}

package tree

import (
	"fmt"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// PurgeStats says what Purge took out of the tree's files.
type PurgeStats struct {
	// Branches counts the branch files deleted: the leaf's own branch and
	// every branch above it, whose titles, excerpts and keywords were
	// drawn from its words.
	Branches int
	// Root and Catalog report that root.json and catalog.json were
	// rewritten without the leaf (catalog.log is folded in and removed).
	Root, Catalog bool
}

// Files is how many files Purge deleted or rewrote.
func (p PurgeStats) Files() int {
	return p.Branches + b2i(p.Root) + b2i(p.Catalog)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Purge takes every trace of leaf id's text out of the tree's files, for a
// memory whose text is being destroyed. Remove is not enough: branch files
// are immutable, so a removed leaf's words stay in its branch's entry for
// it, in the title and keywords of every branch above it (drawn from its
// summary), in the catalog's rarity counts (and the catalog log's lines
// that added them) and, for a parentless leaf, in root.json.
//
// So Purge deletes the leaf's branch and every branch above it; their
// other children return to the root with the summaries the deleted files
// held (a leaf's summary comes from its own text alone, a branch's from its
// children's), and the next Consolidate files them again. The leaf's
// keywords leave the rarity counts, and catalog.json and root.json are
// rewritten whole at once, the catalog log with them. A leaf the tree
// does not mention costs nothing.
func (t *Tree) Purge(id string) (PurgeStats, error) {
	var st PurgeStats
	if !leaf.IsID(id) {
		return st, fmt.Errorf("purge %q: %w", id, ErrBadID)
	}
	if !t.Mentions(id) {
		return st, nil
	}
	if e, ok := t.root[id]; ok {
		t.countKeywords(e.sum, -1)
		t.unroot(e)
	}
	if v, ok := leafNum(id); ok {
		if pv, ok := t.parent[v]; ok {
			before := len(t.branches)
			t.purgeFiled(id, pv)
			st.Branches = before - len(t.branches)
		}
	}
	delete(t.gone, id)
	delete(t.ops, id)
	t.rootDirty = true
	if err := t.writeSnapshot(t.cat.gen + 1); err != nil {
		return st, fmt.Errorf("purge %s: rewrite the catalog: %w", id, err)
	}
	st.Catalog = true
	if err := t.writeRoot(); err != nil {
		return st, fmt.Errorf("purge %s: rewrite the root: %w", id, err)
	}
	st.Root = true
	return st, nil
}

// purgeFiled drops the branch pv that files leaf id, with the branches
// above it, and returns the other children to the root.
func (t *Tree) purgeFiled(id string, pv uint64) {
	pid, n := branchString(pv), t.branches[pv]
	group := n.group
	// The siblings' summaries are only in the branch's file: read them
	// before it goes. If it cannot be read, its leaves come back with the
	// next Reconcile, as for a damaged branch.
	b, err := t.loadBranch(pid, n)
	wasGone := map[string]bool{}
	if err == nil {
		for _, c := range b.Children {
			wasGone[c.ID] = t.gone[c.ID]
		}
	}
	ids := []string{pid}
	for len(ids) > 0 {
		rise, _ := t.drop(ids)
		ids = ids[:0]
		for _, r := range rise {
			_, rn := t.node(r)
			rb, err := t.loadBranch(r, rn)
			if err != nil {
				t.note("dropped branch %s: %v", r, err)
				ids = append(ids, r)
				continue
			}
			t.push(&rootEntry{sum: branchSummary(rb), group: rn.group, layer: int(rn.layer)})
		}
	}
	if b == nil {
		t.note("purge %s: its branch %s could not be read (%v); its other leaves wait for Reconcile", id, pid, err)
		return
	}
	for _, c := range b.Children {
		switch {
		case c.ID == id:
			t.countKeywords(c, -1)
		case !wasGone[c.ID]:
			t.push(&rootEntry{sum: cloneSummary(c), group: group, layer: 0})
		}
	}
}

// Mentions reports whether any of the tree's files may hold words of leaf
// id: it is in the root, or filed in a branch, removed or not.
func (t *Tree) Mentions(id string) bool {
	if _, ok := t.root[id]; ok {
		return true
	}
	return t.filed(id)
}

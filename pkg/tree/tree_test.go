package tree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

var testNow = time.Date(2026, 3, 11, 9, 30, 0, 0, time.UTC)

func testOpts() Options { return Options{Now: func() time.Time { return testNow }} }

func mustOpen(t testing.TB, dir string) *Tree {
	t.Helper()
	tr, err := Open(dir, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInvariants(tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func addAll(t testing.TB, tr *Tree, items []Item) {
	t.Helper()
	for _, it := range items {
		if err := tr.Add(it); err != nil {
			t.Fatal(err)
		}
	}
}

func consolidate(t testing.TB, tr *Tree, force bool) int {
	t.Helper()
	n, err := tr.Consolidate(force)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInvariants(tr); err != nil {
		t.Fatal(err)
	}
	return n
}

// growTree opens a tree under dir and saves items to it in two runs, the
// first cut, each followed by a consolidation.
func growTree(t testing.TB, dir string, items []Item, cut int) *Tree {
	t.Helper()
	tr := mustOpen(t, dir)
	addAll(t, tr, items[:cut])
	consolidate(t, tr, false)
	addAll(t, tr, items[cut:])
	consolidate(t, tr, false)
	return tr
}

// simpleItems returns n leaves of one group with distinct, readable texts.
func simpleItems(group string, from, n int) []Item {
	var out []Item
	for i := from; i < from+n; i++ {
		out = append(out, Item{ID: testID(i), Group: group,
			Text: fmt.Sprintf("Note %d about the staging database. We moved topic%d to PostgreSQL because replica%d lagged.", i, i%7, i%3)})
	}
	return out
}

// readDir returns every file under dir by relative path.
func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := make(map[string][]byte)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(t testing.TB, a, b map[string][]byte, skip ...string) {
	t.Helper()
	for _, s := range skip {
		delete(a, s)
		delete(b, s)
	}
	ka, kb := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))
	if !slices.Equal(ka, kb) {
		t.Fatalf("different files:\n%v\n%v", ka, kb)
	}
	for _, k := range ka {
		if !bytes.Equal(a[k], b[k]) {
			t.Fatalf("%s differs:\n%s\n----\n%s", k, a[k], b[k])
		}
	}
}

// reachableOnDisk walks root.json and the branch files it leads to, as a
// person browsing would, and returns the leaves reached.
func reachableOnDisk(t testing.TB, dir string) map[string]bool {
	t.Helper()
	var root rootFile
	data, err := os.ReadFile(filepath.Join(dir, rootName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	leaves := make(map[string]bool)
	var walk func(id string, layer int)
	walk = func(id string, layer int) {
		if layer == 0 {
			leaves[id] = true
			return
		}
		var b Branch
		data, err := os.ReadFile(filepath.Join(dir, branchesDir, fmt.Sprint(layer), id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &b); err != nil {
			t.Fatal(err)
		}
		for _, c := range b.Children {
			cl := 0
			if isBranchID(c.ID) {
				cl = -1
				for l := 1; l < layer; l++ {
					if _, err := os.Stat(filepath.Join(dir, branchesDir, fmt.Sprint(l), c.ID+".json")); err == nil {
						cl = l
					}
				}
				if cl < 0 {
					t.Fatalf("branch %s: child %s has no file below layer %d", id, c.ID, layer)
				}
			}
			walk(c.ID, cl)
		}
	}
	for _, it := range root.Items {
		walk(it.ID, it.Layer)
	}
	return leaves
}

// testNode is a branch's structure with its children's ids spelled out.
type testNode struct {
	layer    int
	group    string
	children []string
}

// branchMap returns the tree's branches by id, ids spelled out.
func branchMap(tr *Tree) map[string]*testNode {
	m := make(map[string]*testNode, len(tr.branches))
	for v, n := range tr.branches {
		m[branchString(v)] = &testNode{layer: int(n.layer), group: n.group, children: n.children()}
	}
	return m
}

// parentMap returns the parent of every item a branch lists, leaves' and
// branches', ids spelled out.
func parentMap(tr *Tree) map[string]string {
	m := make(map[string]string, len(tr.parent))
	for c, p := range tr.parent {
		m[leafString(c)] = branchString(p)
	}
	for v, n := range tr.branches {
		if n.hasParent {
			m[branchString(v)] = branchString(n.parent)
		}
	}
	return m
}

// checkInvariants checks the in-memory tree is one consistent structure:
// the catalog and the branches agree, the root is exactly the parentless
// items, everything is reachable from it exactly once, and the queues
// count what they hold.
func checkInvariants(tr *Tree) error {
	branches, parent := branchMap(tr), parentMap(tr)
	for id, b := range branches {
		if branchID(b.children) != id {
			return fmt.Errorf("branch %s: bad id", id)
		}
		top := 0
		for _, c := range b.children {
			if parent[c] != id {
				return fmt.Errorf("branch %s: child %s has parent %q", id, c, parent[c])
			}
			if isBranchID(c) {
				cb := branches[c]
				if cb == nil || cb.group != b.group {
					return fmt.Errorf("branch %s: bad child branch %s", id, c)
				}
				top = max(top, cb.layer)
			}
		}
		if b.layer != top+1 {
			return fmt.Errorf("branch %s: layer %d over children of layer %d", id, b.layer, top)
		}
	}
	for c, p := range parent {
		b := branches[p]
		if b == nil || !slices.Contains(b.children, c) {
			return fmt.Errorf("catalog: %s → %s, which does not list it", c, p)
		}
		if _, ok := tr.root[c]; ok {
			return fmt.Errorf("%s is in the root and has a parent", c)
		}
	}
	for id := range tr.gone {
		if _, ok := parent[id]; !ok {
			return fmt.Errorf("gone %s has no parent", id)
		}
	}
	for id, b := range branches {
		_, hasParent := parent[id]
		if _, inRoot := tr.root[id]; inRoot == hasParent {
			return fmt.Errorf("branch %s: in root %v, has parent %v", id, inRoot, hasParent)
		}
		if e := tr.root[id]; e != nil && (e.layer != b.layer || e.group != b.group) {
			return fmt.Errorf("root entry %s disagrees with its branch", id)
		}
	}
	seen := make(map[string]bool)
	var walk func(id string) error
	walk = func(id string) error {
		if seen[id] {
			return fmt.Errorf("%s reached twice", id)
		}
		seen[id] = true
		if b := branches[id]; b != nil {
			for _, c := range b.children {
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for id, e := range tr.root {
		if !e.inRoot || e.sum.ID != id {
			return fmt.Errorf("root entry %s not marked in root", id)
		}
		if err := walk(id); err != nil {
			return err
		}
	}
	for id := range branches {
		if !seen[id] {
			return fmt.Errorf("branch %s unreachable", id)
		}
	}
	for c := range parent {
		if !seen[c] {
			return fmt.Errorf("%s unreachable", c)
		}
	}
	live := 0
	for k, q := range tr.queues {
		n := 0
		for _, e := range q.items {
			if e.inRoot {
				n++
				if e.group != k.group || e.layer != k.layer {
					return fmt.Errorf("queue %v holds %s of %s/%d", k, e.sum.ID, e.group, e.layer)
				}
			}
		}
		if n != q.live {
			return fmt.Errorf("queue %v counts %d, holds %d", k, q.live, n)
		}
		if (q.live >= tr.bf) != tr.ready[k] {
			return fmt.Errorf("queue %v: %d live, ready %v", k, q.live, tr.ready[k])
		}
		live += n
	}
	if live != len(tr.root) || tr.rootIdx.live != len(tr.root) {
		return fmt.Errorf("queues hold %d, index %d, root %d", live, tr.rootIdx.live, len(tr.root))
	}
	return nil
}

// checkFiles checks every branch file agrees with the catalog's record of
// it, as a read would.
func checkFiles(tr *Tree) error {
	for v, n := range tr.branches {
		if _, err := tr.loadBranch(branchString(v), n); err != nil {
			return err
		}
	}
	return nil
}

func TestConsolidateShape(t *testing.T) {
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	items := simpleItems("global|software.go", 0, 70)
	addAll(t, tr, items)
	// 70 leaves: 8 branches of 8 at layer 1, which make one branch at
	// layer 2; 6 leaves wait for more.
	if n := consolidate(t, tr, false); n != 9 {
		t.Fatalf("wrote %d branches, want 9", n)
	}
	st := tr.Stats()
	if st.Layers != 2 || st.Branches != 9 || st.Pending != 6 || st.Root != 7 || st.Leaves != 70 {
		t.Fatalf("stats %+v", st)
	}
	for id := range branchMap(tr) {
		b, ok := tr.Branch(id)
		if !ok {
			t.Fatalf("branch %s unreadable", id)
		}
		if len(b.Children) != DefaultBranchFactor {
			t.Errorf("branch %s has %d children", b.ID, len(b.Children))
		}
		if b.Title == "" || len(b.Keywords) == 0 {
			t.Errorf("branch %s has no title or keywords: %+v", b.ID, b)
		}
	}
	// Arrival order: the first branch holds the first eight leaves.
	first, _ := tr.Branch(parentMap(tr)[items[0].ID])
	for i, c := range first.Children {
		if c.ID != items[i].ID {
			t.Fatalf("child %d is %s, want %s", i, c.ID, items[i].ID)
		}
	}
	// 512+ leaves make layer 3.
	addAll(t, tr, simpleItems("global|software.go", 70, 500))
	consolidate(t, tr, false)
	if st := tr.Stats(); st.Layers != 3 {
		t.Fatalf("570 leaves: %d layers, want 3", st.Layers)
	}
	leaves := reachableOnDisk(t, dir)
	if len(leaves) != 570 {
		t.Fatalf("%d leaves reachable on disk, want 570", len(leaves))
	}
}

func TestConsolidateIdempotent(t *testing.T) {
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	addAll(t, tr, simpleItems("global|a", 0, 30))
	addAll(t, tr, simpleItems("global|b", 30, 11))
	if n := consolidate(t, tr, false); n != 3+1 {
		t.Fatalf("wrote %d, want 4", n)
	}
	before := readDir(t, dir)
	if n := consolidate(t, tr, false); n != 0 {
		t.Fatalf("second run wrote %d branches", n)
	}
	sameFiles(t, before, readDir(t, dir))
	// Adding what is already there changes nothing either.
	addAll(t, tr, simpleItems("global|a", 0, 30))
	if n := consolidate(t, tr, false); n != 0 {
		t.Fatalf("re-adding wrote %d branches", n)
	}
	sameFiles(t, before, readDir(t, dir))
	// Nor does reopening.
	tr = mustOpen(t, dir)
	if r := tr.Repairs(); len(r) != 0 {
		t.Fatalf("clean reopen repaired %v", r)
	}
	if n := consolidate(t, tr, false); n != 0 {
		t.Fatalf("after reopen wrote %d", n)
	}
	sameFiles(t, before, readDir(t, dir))
}

func TestForceClosesPartialGroups(t *testing.T) {
	dir := t.TempDir()
	tr, err := Open(dir, Options{BranchFactor: 4, Now: testOpts().Now})
	if err != nil {
		t.Fatal(err)
	}
	addAll(t, tr, simpleItems("g1", 0, 3))  // partial
	addAll(t, tr, simpleItems("g2", 3, 9))  // two full, one left
	addAll(t, tr, simpleItems("g3", 12, 1)) // a single leaf
	if n := consolidate(t, tr, false); n != 2 {
		t.Fatalf("wrote %d, want 2", n)
	}
	// force: g1's three leaves close; g2's two layer-1 branches close into
	// a layer-2 one; lone items (g2's last leaf, g3's leaf) stay.
	if n := consolidate(t, tr, true); n != 2 {
		t.Fatalf("force wrote %d, want 2", n)
	}
	var got []string
	for _, l := range tr.Outline(1) {
		got = append(got, fmt.Sprintf("%s/%d/%d", l.Group, l.Layer, l.Children))
	}
	want := []string{"g1/1/3", "g2/2/2", "g2/0/0", "g3/0/0"}
	if !slices.Equal(got, want) {
		t.Fatalf("root %v, want %v", got, want)
	}
	for id, b := range branchMap(tr) {
		if len(b.children) > 4 || len(b.children) < 2 {
			t.Errorf("branch %s has %d children", id, len(b.children))
		}
	}
	if n := consolidate(t, tr, true); n != 0 {
		t.Fatalf("forcing again wrote %d", n)
	}
}

func TestRemoveAndBack(t *testing.T) {
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	items := simpleItems("g", 0, 10)
	addAll(t, tr, items)
	consolidate(t, tr, false)
	if !tr.Remove(items[2].ID) || !tr.Remove(items[9].ID) {
		t.Fatal("remove failed")
	}
	if tr.Remove(items[2].ID) || tr.Remove("b0000000000000000") || tr.Remove(testID(999)) {
		t.Fatal("removed something not there")
	}
	consolidate(t, tr, false)
	check := func(tr *Tree) {
		t.Helper()
		st := tr.Stats()
		if st.Leaves != 8 || st.Gone != 1 || st.Pending != 1 {
			t.Fatalf("stats %+v", st)
		}
		lines := tr.Outline(0)
		if len(lines) != 1+7+1 || lines[0].Gone != 1 || lines[0].Children != 7 {
			t.Fatalf("outline %+v", lines)
		}
		for _, l := range lines {
			if l.ID == items[2].ID || l.ID == items[9].ID {
				t.Fatalf("removed leaf in outline")
			}
		}
	}
	check(tr)
	check(mustOpen(t, dir))
	// Back in its old branch.
	addAll(t, tr, items[2:3])
	consolidate(t, tr, false)
	tr = mustOpen(t, dir)
	if st := tr.Stats(); st.Gone != 0 || st.Leaves != 9 {
		t.Fatalf("after re-add: %+v", tr.Stats())
	}
	if p := tr.Path(items[2].ID); len(p) != 1 {
		t.Fatalf("path %v", p)
	}
}

func TestReconcile(t *testing.T) {
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	items := simpleItems("g", 0, 20)
	addAll(t, tr, items[:18])
	consolidate(t, tr, false)
	// The store knows 20 leaves, leaf 3 and leaf 17 were forgotten.
	live := slices.Concat(items[:3], items[4:17], items[18:])
	tr = mustOpen(t, dir)
	added, removed, err := tr.Reconcile(live)
	if err != nil || added != 2 || removed != 2 {
		t.Fatalf("reconcile: +%d -%d %v", added, removed, err)
	}
	consolidate(t, tr, false)
	got := reachableOnDisk(t, dir)
	for _, it := range live {
		if !got[it.ID] {
			t.Fatalf("%s unreachable", it.ID)
		}
	}
	if st := tr.Stats(); st.Leaves != len(live) {
		t.Fatalf("stats %+v", st)
	}
}

func TestEveryLeafReachable(t *testing.T) {
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	items := genCorpus(1500, 1)
	live := make(map[string]bool)
	for i, it := range items {
		addAll(t, tr, []Item{it})
		live[it.ID] = true
		if i%47 == 0 && i > 0 {
			victim := items[(i*31)%i].ID
			if tr.Remove(victim) {
				delete(live, victim)
			}
		}
		if i%50 == 0 {
			consolidate(t, tr, i%500 == 0)
		}
	}
	consolidate(t, tr, false)
	for _, tr := range []*Tree{tr, mustOpen(t, dir)} {
		got := reachableOnDisk(t, dir)
		for id := range live {
			if !got[id] {
				t.Fatalf("%s unreachable from root.json", id)
			}
		}
		if st := tr.Stats(); st.Leaves != len(live) {
			t.Fatalf("stats %+v, %d live", st, len(live))
		}
	}
}

var errCrash = errors.New("simulated crash")

func TestInterruptedConsolidation(t *testing.T) {
	items := simpleItems("global|personal", 0, 30)
	// The reference: the same saves, never interrupted.
	ref := t.TempDir()
	growTree(t, ref, items, 20)

	dir := t.TempDir()
	tr := mustOpen(t, dir)
	addAll(t, tr, items[:20])
	consolidate(t, tr, false)
	addAll(t, tr, items[20:])
	tr.crash = func() error { return errCrash }
	if _, err := tr.Consolidate(false); !errors.Is(err, errCrash) {
		t.Fatalf("got %v", err)
	}
	// The branch file is durable, the catalog does not know it.
	orphans := 0
	for name := range readDir(t, dir) {
		if strings.HasPrefix(name, branchesDir) && !strings.Contains(name, ".tmp") {
			orphans++
		}
	}
	if orphans != 3 {
		t.Fatalf("%d branch files, want 3 (two committed, one orphan)", orphans)
	}

	tr = mustOpen(t, dir)
	if r := tr.Repairs(); len(r) != 1 || !strings.Contains(r[0], "orphan") {
		t.Fatalf("repairs %v", r)
	}
	if st := tr.Stats(); st.Branches != 2 || st.Pending != 4 {
		t.Fatalf("after open: %+v", st)
	}
	// The store catches the tree up with the leaves it never persisted.
	if added, _, err := tr.Reconcile(items); err != nil || added != 10 {
		t.Fatalf("reconcile added %d, %v", added, err)
	}
	consolidate(t, tr, false)
	sameFiles(t, readDir(t, ref), readDir(t, dir))

	// A crash after the catalog but before root.json: a stale root.json.
	stale, err := os.ReadFile(filepath.Join(dir, rootName))
	if err != nil {
		t.Fatal(err)
	}
	more := simpleItems("global|personal", 30, 2)
	addAll(t, tr, more)
	consolidate(t, tr, false)
	want := readDir(t, dir)
	if err := os.WriteFile(filepath.Join(dir, rootName), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	tr = mustOpen(t, dir)
	tr.Reconcile(slices.Concat(items, more))
	consolidate(t, tr, false)
	sameFiles(t, want, readDir(t, dir))
}

func TestRebuildDeterministic(t *testing.T) {
	items := genCorpus(1500, 2)
	build := func() map[string][]byte {
		dir := t.TempDir()
		tr := mustOpen(t, dir)
		if err := tr.Rebuild(items); err != nil {
			t.Fatal(err)
		}
		if err := checkInvariants(tr); err != nil {
			t.Fatal(err)
		}
		// Twice in the same directory, over what the first left.
		if err := tr.Rebuild(items); err != nil {
			t.Fatal(err)
		}
		return readDir(t, dir)
	}
	a, b := build(), build()
	sameFiles(t, a, b)

	// Growing the same tree save by save, consolidating now and then,
	// writes the same branches (ids, so structure; their keywords may
	// differ, as rarity grows with the store) in the same root order.
	prefix := items[:600]
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	for i, it := range prefix {
		addAll(t, tr, []Item{it})
		if i%37 == 0 {
			consolidate(t, tr, false)
		}
	}
	consolidate(t, tr, false)
	other := mustOpen(t, t.TempDir())
	if err := other.Rebuild(prefix); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(structure(tr), structure(other)) {
		t.Fatalf("incremental and rebuilt trees differ:\n%v\n%v", structure(tr), structure(other))
	}
}

// structure lists a tree's shape: every line of its outline by id.
func structure(tr *Tree) []string {
	var out []string
	for _, l := range tr.Outline(0) {
		out = append(out, fmt.Sprintf("%d %s %s %d", l.Depth, l.ID, l.Group, l.Children))
	}
	return out
}

func TestEncodeRootMatchesJSON(t *testing.T) {
	tr := mustOpen(t, t.TempDir())
	check := func() {
		t.Helper()
		want, err := encodeJSON(tr.rootFile())
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.encodeRoot()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("encodeRoot:\n%s\nencoding/json:\n%s", got, want)
		}
	}
	check() // empty
	items := genCorpus(100, 8)
	items[0].Text = "Tags <b> & \"quotes\" \u2028 and \x01 control, ünïcode"
	items[0].Tags = []string{"a<b>", "c&d"}
	addAll(t, tr, items)
	check()
	consolidate(t, tr, true)
	check()
}

// churn opens a tree under dir whose catalog log folds at compactAt, adds
// items one at a time with step after each (to remove, re-add and
// consolidate as a test likes), and consolidates at the end. It fails
// unless the log was folded in at least twice, so that a reopen reads a
// compacted snapshot and the log written after it.
func churn(t *testing.T, dir string, compactAt int64, items []Item, step func(tr *Tree, i int)) *Tree {
	t.Helper()
	tr := mustOpen(t, dir)
	tr.compactAt = compactAt
	for i, it := range items {
		addAll(t, tr, []Item{it})
		step(tr, i)
	}
	consolidate(t, tr, false)
	if tr.cat.gen < 2 {
		t.Fatalf("the log was folded in %d times (log %d bytes)", tr.cat.gen, tr.cat.logSize)
	}
	return tr
}

func TestCatalogLogCompacts(t *testing.T) {
	dir := t.TempDir()
	items := genCorpus(1200, 3)
	tr := churn(t, dir, 8<<10, items, func(tr *Tree, i int) {
		if i%5 == 4 {
			tr.Remove(items[i-3].ID)
		}
		if i%10 == 9 {
			addAll(t, tr, items[i-8:i-7]) // back
		}
		if i%8 == 0 {
			if _, err := tr.Consolidate(false); err != nil {
				t.Fatal(err)
			}
		}
	})
	re := mustOpen(t, dir)
	if !maps.Equal(parentMap(re), parentMap(tr)) || !maps.Equal(re.gone, tr.gone) || re.Stats() != tr.Stats() || len(re.Repairs()) != 0 {
		t.Fatalf("reopened: %+v, want %+v, repairs %v", re.Stats(), tr.Stats(), re.Repairs())
	}
	// The same catalog written whole every time reads back the same.
	dir2 := t.TempDir()
	tr2 := mustOpen(t, dir2)
	tr2.rewriteCatalog = true
	addAll(t, tr2, items[:300])
	consolidate(t, tr2, false)
	if _, err := os.Stat(filepath.Join(dir2, catalogLogName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("rewrite mode wrote a log: %v", err)
	}
	if re := mustOpen(t, dir2); !maps.Equal(parentMap(re), parentMap(tr2)) {
		t.Fatal("rewritten catalog reads back different")
	}
}

func TestOutline(t *testing.T) {
	tr := mustOpen(t, t.TempDir())
	addAll(t, tr, simpleItems("global|software.go", 0, 66))
	consolidate(t, tr, false)
	all := tr.Outline(0)
	if len(all) != 1+8+64+2 {
		t.Fatalf("%d lines", len(all))
	}
	if all[0].Layer != 2 || all[0].Children != 8 || all[0].Depth != 0 || all[1].Depth != 1 || all[2].Depth != 2 {
		t.Fatalf("outline starts %+v", all[:3])
	}
	if got := len(tr.Outline(2)); got != 1+8+2 {
		t.Fatalf("depth 2: %d lines", got)
	}
	s := all[0].String()
	if !strings.Contains(s, "[layer 2, 8 items]") || !strings.Contains(s, "global|software.go") {
		t.Fatalf("line %q", s)
	}
	if !strings.HasPrefix(all[2].String(), "    Note ") {
		t.Fatalf("leaf line %q", all[2].String())
	}
}

func TestAddRejectsBadIDs(t *testing.T) {
	tr := mustOpen(t, t.TempDir())
	for _, id := range []string{"", "xyz", "../../etc/passwd", "B0000000000000000", strings.Repeat("A", 16)} {
		if err := tr.Add(Item{ID: id, Group: "g"}); !errors.Is(err, ErrBadID) {
			t.Errorf("Add(%q) = %v", id, err)
		}
	}
}

func TestOpenRepairs(t *testing.T) {
	items := simpleItems("g", 0, 40)
	template := t.TempDir()
	tr := growTree(t, template, items, 36)
	files := readDir(t, template)
	var aBranch, aTop string
	for name := range files {
		if strings.HasPrefix(name, filepath.Join(branchesDir, "1")) {
			aBranch = name
		}
	}
	for _, e := range tr.root {
		if e.layer > 0 {
			aTop = e.sum.ID
		}
	}
	cases := []struct {
		name  string
		setup func(dir string)
	}{
		{"garbage branch", func(dir string) { write(t, dir, aBranch, "{not json") }},
		{"branch renamed", func(dir string) {
			os.Rename(filepath.Join(dir, aBranch), filepath.Join(dir, branchesDir, "1", "b0123456789abcdef.json"))
		}},
		{"branch under another layer", func(dir string) {
			os.MkdirAll(filepath.Join(dir, branchesDir, "3"), 0o700)
			write(t, dir, filepath.Join(branchesDir, "3", filepath.Base(aBranch)), string(files[aBranch]))
		}},
		{"garbage catalog", func(dir string) { write(t, dir, catalogLogName, "\x00\x01garbage") }},
		{"torn log", func(dir string) {
			log := files[catalogLogName]
			write(t, dir, catalogLogName, string(log[:len(log)-5]))
		}},
		{"catalog points nowhere", func(dir string) {
			// A branch over a root branch whose file was never written,
			// and a malformed entry.
			kids := []string{aTop, testID(999)}
			f, _ := os.OpenFile(filepath.Join(dir, catalogLogName), os.O_APPEND|os.O_WRONLY, 0)
			fmt.Fprintf(f, `{"gen":0,"branches":[{"id":%q,"layer":2,"group":"g","children":[%q,%q]},{"id":"../x","layer":1,"group":"g","children":[%q]}]}`+"\n",
				branchID(kids), kids[0], kids[1], aTop)
			f.Close()
		}},
		{"garbage root", func(dir string) { write(t, dir, rootName, "[]") }},
		{"stray files", func(dir string) {
			write(t, dir, filepath.Join(branchesDir, "x", "y"), "z")
			write(t, dir, filepath.Join(branchesDir, "1", ".b0.json.tmp123"), "z")
			write(t, dir, filepath.Join(branchesDir, "1", "notes.txt"), "z")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range files {
				write(t, dir, name, string(data))
			}
			c.setup(dir)
			tr := mustOpen(t, dir)
			if len(tr.Repairs()) == 0 {
				t.Fatal("no repair reported")
			}
			// Converged: a second open finds nothing to repair, except
			// stray files it never owned.
			tr = mustOpen(t, dir)
			if r := tr.Repairs(); len(r) != 0 && c.name != "stray files" {
				t.Fatalf("second open repaired %v", r)
			}
			if _, _, err := tr.Reconcile(items); err != nil {
				t.Fatal(err)
			}
			consolidate(t, tr, false)
			got := reachableOnDisk(t, dir)
			for _, it := range items {
				if !got[it.ID] {
					t.Fatalf("%s unreachable", it.ID)
				}
			}
		})
	}
}

func write(t testing.TB, dir, name, data string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestExtractive(t *testing.T) {
	s := Extractive{}.Describe(Item{ID: testID(1), Text: "Decided to move staging to PostgreSQL 17.\nThe replicas lagged; PostgreSQL handles it.", Tags: []string{"db"}})
	if s.Title != "Decided to move staging to PostgreSQL 17." {
		t.Errorf("title %q", s.Title)
	}
	if len(s.Keywords) == 0 || s.Keywords[0] != "postgresql" {
		t.Errorf("keywords %v", s.Keywords)
	}
	long := strings.Repeat("word ", 100)
	if d := (Extractive{}).Describe(Item{Text: long}); len(d.Excerpt) > excerptLen || !strings.HasSuffix(d.Excerpt, "…") {
		t.Errorf("excerpt %d bytes: %q", len(d.Excerpt), d.Excerpt)
	}
	title, kws := Extractive{}.Summarize("g", []ChildSummary{
		{Title: "Staging runs PostgreSQL 17", Keywords: []string{"postgresql", "stage"}},
		{Title: "Backups of PostgreSQL nightly", Keywords: []string{"postgresql", "backup"}},
		{Title: "Lunch with Luis", Keywords: []string{"lunch", "luis"}},
	})
	if kws[0] != "postgresql" || !strings.Contains(title, "PostgreSQL") {
		t.Errorf("summary %q %v", title, kws)
	}
}

// TestDamagedBranchFoundLazily damages a branch file Open does not read
// (one below the root): Open trusts the catalog's structure and reports
// nothing; a search that meets the file skips it and still returns the
// exhaustive top k; the outline lists its children untitled; the next
// Consolidate drops it and the branch above it, and Reconcile brings its
// leaves back.
func TestDamagedBranchFoundLazily(t *testing.T) {
	dir := t.TempDir()
	tr := mustOpen(t, dir)
	items := simpleItems("g", 0, 80)
	addAll(t, tr, items)
	consolidate(t, tr, false) // 10 layer-1 branches, 8 of them under a layer-2 one
	victim := parentMap(tr)[items[0].ID]
	top := parentMap(tr)[victim]
	if top == "" {
		t.Fatal("the first branch should be below the root")
	}
	write(t, dir, filepath.Join(branchesDir, "1", victim+".json"), `{"id": "garbage"`)

	tr = mustOpen(t, dir)
	if r := tr.Repairs(); len(r) != 0 {
		t.Fatalf("open read a file below the root: %v", r)
	}
	ix := newRefIndex(items)
	all := func(int32) bool { return true }
	terms := tokenize.Terms("note staging database topic3")
	res := tr.Search(Query{Scorer: &refScorer{ix: ix, terms: terms, vis: all}, Beam: 16})
	want, _, _ := ix.exhaustive(terms, all, DefaultK)
	if len(res.Hits) != len(want) {
		t.Fatalf("%d hits, want %d", len(res.Hits), len(want))
	}
	for i := range want {
		if res.Hits[i].ID != want[i].ID {
			t.Fatalf("hit %d: %s, want %s", i, res.Hits[i].ID, want[i].ID)
		}
	}
	untitled := 0
	for _, l := range tr.Outline(0) {
		if l.Title == "" {
			untitled++
		}
	}
	if untitled != 8 {
		t.Fatalf("%d untitled lines, want the damaged branch's 8 children", untitled)
	}
	if _, ok := tr.Branch(victim); ok {
		t.Fatal("Branch returned a damaged branch")
	}

	consolidate(t, tr, false)
	if _, n := tr.node(victim); n != nil {
		t.Fatal("the damaged branch survived")
	}
	if _, n := tr.node(top); n != nil {
		t.Fatal("the branch above the damaged one survived")
	}
	if r := strings.Join(tr.Repairs(), "\n"); !strings.Contains(r, victim) || !strings.Contains(r, "8 leaves") {
		t.Fatalf("repairs %q", r)
	}
	if st := tr.Stats(); st.Leaves != 72 {
		t.Fatalf("after the repair: %+v", st)
	}
	if added, _, err := tr.Reconcile(items); err != nil || added != 8 {
		t.Fatalf("reconcile added %d, %v", added, err)
	}
	consolidate(t, tr, false)
	if err := checkFiles(tr); err != nil {
		t.Fatal(err)
	}
	got := reachableOnDisk(t, dir)
	for _, it := range items {
		if !got[it.ID] {
			t.Fatalf("%s unreachable", it.ID)
		}
	}
	if r := mustOpen(t, dir).Repairs(); len(r) != 0 {
		t.Fatalf("reopen repaired %v", r)
	}
}

// TestCatalogRoundTrip checks catalog.json as encodeCatalog renders it
// reads back as what was written.
func TestCatalogRoundTrip(t *testing.T) {
	for _, snap := range []catalogSnapshot{
		{Version: catalogVersion, Gen: 1},
		{Version: catalogVersion, Gen: 7, Leaves: 3, Gone: []string{testID(1)},
			Branches: []branchEntry{
				{ID: branchID([]string{testID(1), testID(2)}), Layer: 1, Group: "global|<a&b>", Children: []string{testID(1), testID(2)}},
				{ID: "b0000000000000001", Layer: 2, Group: "g\u2028\"x\"", Children: []string{"b0000000000000002"}},
			},
			Keywords: map[string]int32{"postgresql": 2, "ünïcode": 1}},
	} {
		data, err := encodeCatalog(snap)
		if err != nil {
			t.Fatal(err)
		}
		var got catalogSnapshot
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("%v:\n%s", err, data)
		}
		if snap.Gone == nil {
			snap.Gone = []string{}
		}
		if snap.Keywords == nil {
			snap.Keywords = map[string]int32{}
		}
		if fmt.Sprint(got) != fmt.Sprint(snap) {
			t.Fatalf("read back\n%+v\nwrote\n%+v", got, snap)
		}
	}
}

// TestReopenKeepsRarity checks the rarity counts a reopened tree starts
// from are the ones the tree had: the catalog's (every leaf filed in a
// branch, through the log and its compactions) plus root.json's.
func TestReopenKeepsRarity(t *testing.T) {
	dir := t.TempDir()
	items := genCorpus(900, 4)
	tr := churn(t, dir, 16<<10, items, func(tr *Tree, i int) {
		if i%7 == 3 {
			tr.Remove(items[i-2].ID) // parentless or filed, as it happens
		}
		if i%11 == 0 {
			addAll(t, tr, items[i/2:i/2+1]) // back, or already there
		}
		if i%13 == 0 {
			consolidate(t, tr, i%130 == 0)
		}
	})
	re := mustOpen(t, dir)
	if re.kwN != tr.kwN || !maps.Equal(re.kwDF.toMap(), tr.kwDF.toMap()) {
		t.Fatalf("reopened with %d leaves and %d terms counted, want %d and %d", re.kwN, re.kwDF.len(), tr.kwN, tr.kwDF.len())
	}
	// A rebuild counts the same leaves once each.
	if err := re.Rebuild(items); err != nil {
		t.Fatal(err)
	}
	again := mustOpen(t, dir)
	if again.kwN != len(items) || !maps.Equal(again.kwDF.toMap(), re.kwDF.toMap()) {
		t.Fatalf("after a rebuild: %d leaves counted, want %d", again.kwN, len(items))
	}
}

// TestTitlesSayWhatIsShared: a branch's title names what its children
// share, as they wrote it — never one child's sentence, never a stem; a
// leaf's title is not cut at ';' (its first half can say the opposite of
// the whole) and is never key or certificate material.
func TestTitlesSayWhatIsShared(t *testing.T) {
	x := Extractive{}
	kids := []ChildSummary{
		x.Describe(Item{ID: testID(1), Text: "The session cache runs on Redis 7 on the app host."}),
		x.Describe(Item{ID: testID(2), Text: "Redis is gone; Valkey 8 runs the session cache now."}),
		x.Describe(Item{ID: testID(3), Text: "Kubernetes dotfiles live in the infra repository."}),
	}
	if kids[1].Title != "Redis is gone; Valkey 8 runs the session cache now." {
		t.Errorf("title cut at ';': %q", kids[1].Title)
	}
	title, _ := x.Summarize("g", kids)
	for _, k := range kids {
		if title == k.Title {
			t.Errorf("the branch is titled with one child's sentence: %q", title)
		}
	}
	if first := strings.Split(title, ", ")[:2]; !slices.Contains(first, "Redis") || !slices.Contains(first, "cache") {
		t.Errorf("the branch title %q does not start with what its children share (Redis, the cache)", title)
	}
	for _, stem := range []string{"kubernet", "dotfil", "redi", "cach"} {
		for _, w := range strings.Split(title, ", ") {
			if w == stem {
				t.Errorf("the title %q shows the stem %q", title, stem)
			}
		}
	}
	// Positive control: the keywords are stems, which the title must not show.
	if !slices.Contains(kids[0].Keywords, "redi") && !slices.Contains(kids[0].Keywords, "cach") {
		t.Fatalf("keywords %v: are they still stems?", kids[0].Keywords)
	}

	cert := "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UE\n-----END CERTIFICATE-----\n# test fixture for the TLS loader\n"
	if got := x.Describe(Item{ID: testID(4), Text: cert}).Title; got != "# test fixture for the TLS loader" {
		t.Errorf("a certificate's leaf is titled %q, want its first line of words", got)
	}
	if got := x.Describe(Item{ID: testID(5), Text: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"}).Title; got != "" {
		t.Errorf("a key's leaf is titled %q, want none", got)
	}
	if got := x.Describe(Item{ID: testID(6), Text: "Plain text opens this one.\n"}).Title; got != "Plain text opens this one." { // the benign twin
		t.Errorf("plain text titled %q", got)
	}
}

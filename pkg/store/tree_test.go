package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// treeCorpus saves n memories over a few domains, scopes and sessions (so
// neighbours are linked), with a few forgotten, and waits for the tree.
func treeCorpus(t *testing.T, s *Store, n int) []string {
	t.Helper()
	words := strings.Fields(`deploy staging postgres port review luis cousin concert lisbon pnpm
		editor vim migration index cache token rotate backup restore kafka queue retry timeout
		latency budget invoice customer refund schema column vacuum replica failover dns`)
	domains := []string{"", "software.go", "personal", "process.ops"}
	r := rand.New(rand.NewPCG(3, 5))
	var ids []string
	var by []Caller
	ctx := context.Background()
	for i := range n {
		c := alice
		if i%3 == 1 {
			c = bob
		}
		c.Session = fmt.Sprintf("s%d", i/7)
		var b strings.Builder
		fmt.Fprintf(&b, "note %d:", i)
		for range 4 + r.IntN(14) {
			b.WriteString(" " + words[r.IntN(len(words))])
		}
		if i%4 == 0 {
			b.WriteString("?") // questions link to their neighbours at other weights (index.NeighbourLink)
		}
		scope := ScopeUnspecified
		if i%5 == 0 {
			scope = ScopeGlobal
		}
		res, err := s.Save(ctx, SaveInput{Caller: c, Content: b.String(), Scope: scope, Domain: domains[i%len(domains)]})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Leaf.ID)
		by = append(by, c)
	}
	for i := 0; i < n; i += 37 {
		if _, err := s.Forget(ctx, by[i], ids[i], "test"); err != nil {
			t.Fatal(err)
		}
	}
	s.Flush()
	return ids
}

// TestSearchThroughTreeEqualsExhaustive: with the tree caught up, searches
// descend it — and still return exactly what an exhaustive BM25 over every
// visible memory returns, scope, neighbours' lent words and forgotten
// memories included.
func TestSearchThroughTreeEqualsExhaustive(t *testing.T) {
	s := open(t, t.TempDir())
	treeCorpus(t, s, 1500)
	st := s.TreeStats()
	if !st.Ready || st.Branches < 100 || st.Layers < 2 {
		t.Fatalf("tree = %+v, want it built over 1,500 memories", st)
	}
	queries := []string{"deploy staging", "postgres port review", "luis", "cache token rotate backup", "kafka", "invoice refund customer schema", "dns failover replica", "vim", "concert lisbon cousin"}
	for _, c := range []Caller{alice, bob, nobody} {
		for _, scope := range []SearchScope{ScopeDefault, ScopeOnlyGlobal, ScopeAll} {
			for _, q := range queries {
				in := SearchInput{Caller: c, Scope: scope, Query: q, Limit: 10}
				got := evaluate(t, s, in, EvalOptions{Descend: true, Plain: true})
				want := evaluate(t, s, in, EvalOptions{Plain: true})
				if len(want.Ranked) == 0 {
					t.Fatalf("%q: positive control: the exhaustive search finds nothing", q)
				}
				if cov := got.Coverage; !cov.ViaTree || !cov.Exhaustive || cov.NodesRead == 0 {
					t.Errorf("%q: coverage %+v, want a descent that is exhaustive-equivalent", q, cov)
				}
				if !sameRanking(got.Ranked, want.Ranked) {
					t.Fatalf("%s %v %q:\n tree       %v\n exhaustive %v", c.Agent.Name, scope, q, ids(got), ids(want))
				}
			}
		}
	}
	// The descent itself at small k, where its pruning bites hardest,
	// against the index's exhaustive top k.
	for _, c := range []Caller{alice, bob, nobody} {
		for _, q := range queries {
			terms := tokenize.Terms(q)
			weights := slices.Repeat([]float64{1}, len(terms))
			s.mu.RLock()
			vis, _, err := s.visible(c, ScopeAll)
			if err != nil {
				s.mu.RUnlock()
				t.Fatal(err)
			}
			r := s.reader()
			for _, k := range []int{1, 10} {
				got, cov, ok := r.Descend(s.ix.WeightedScorer(terms, weights, vis), k, vis, recall.Visible(r, vis, recall.Moment{}))
				want, _ := s.ix.Search(index.Query{Terms: terms, Visible: vis, Limit: k})
				if !ok || !cov.ViaTree || !cov.Exhaustive || len(want) == 0 || !sameHits(got, want) {
					t.Errorf("%s %q k=%d: descent %v (%+v), exhaustive %v", c.Agent.Name, q, k, got, cov, want)
				}
			}
			s.mu.RUnlock()
		}
	}
	// Through Search itself: the same answer either way, and the coverage
	// says which path ran.
	for _, q := range queries {
		viaIndex := find(t, s, SearchInput{Query: q})
		viaTree := evaluate(t, s, SearchInput{Query: q}, EvalOptions{Descend: true})
		if !slices.Equal(ids(viaIndex), ids(viaTree)) || viaIndex.Verdict != viaTree.Verdict {
			t.Fatalf("%q: index path %v %v, tree path %v %v", q, viaIndex.Verdict, ids(viaIndex), viaTree.Verdict, ids(viaTree))
		}
		if viaIndex.Coverage.ViaTree || !viaTree.Coverage.ViaTree || !viaTree.Coverage.Exhaustive ||
			viaTree.Coverage.LeavesScored > viaTree.Coverage.LeavesVisible || viaTree.Coverage.LeavesVisible == 0 {
			t.Errorf("%q: coverage %+v (index) and %+v (tree)", q, viaIndex.Coverage, viaTree.Coverage)
		}
	}
}

// outlineLeaves returns the leaves of the whole outline a caller sees
// under scope, id → title, and the tree's counts.
func outlineLeaves(t testing.TB, s *Store, c Caller, scope SearchScope) (map[string]string, TreeStats) {
	t.Helper()
	lines, st, err := s.Outline(c, scope, 0)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, l := range lines {
		if l.Layer == 0 {
			titles[l.ID] = l.Title
		}
	}
	return titles, st
}

// sameRanking compares two top-k rankings: the same scores in order, and
// the same memories wherever a score is not tied at the cut.
func sameRanking(a, b []Hit) bool {
	if len(a) != len(b) {
		return false
	}
	last := b[len(b)-1].Score
	set := func(hs []Hit) []string {
		var out []string
		for _, h := range hs {
			if h.Score != last {
				out = append(out, h.Leaf.ID)
			}
		}
		slices.Sort(out)
		return out
	}
	for i := range a {
		if d := a[i].Score - b[i].Score; d > 1e-9 || d < -1e-9 {
			return false
		}
	}
	return slices.Equal(set(a), set(b))
}

// TestTreeOutlineReachesEveryLiveMemory: every live memory hangs somewhere
// under the root; forgotten ones do not appear; a caller sees only the
// groups of its scope.
func TestTreeOutlineReachesEveryLiveMemory(t *testing.T) {
	s := open(t, t.TempDir())
	ids := treeCorpus(t, s, 300)
	leaves, st := outlineLeaves(t, s, nobody, ScopeAll)
	for i, id := range ids {
		_, shown := leaves[id]
		if forgotten := i%37 == 0; shown == forgotten {
			t.Fatalf("memory %d (%s): in outline = %v, forgotten = %v", i, id, shown, forgotten)
		}
	}
	if st.Leaves != len(leaves) {
		t.Errorf("stats count %d leaves, the outline shows %d", st.Leaves, len(leaves))
	}

	// Alice's default outline: global and her project, never Bob's.
	lines, _, err := s.Outline(alice, ScopeDefault, 1)
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, l := range lines {
		groups = append(groups, l.Group)
	}
	if !slices.ContainsFunc(groups, func(g string) bool { return strings.HasPrefix(g, "project:"+alice.Project+"|") }) ||
		!slices.ContainsFunc(groups, func(g string) bool { return strings.HasPrefix(g, "global|") }) {
		t.Fatalf("positive control: alice's outline lacks her project or the global groups: %v", groups)
	}
	if slices.ContainsFunc(groups, func(g string) bool { return strings.Contains(g, bob.Project) }) {
		t.Fatalf("alice's outline shows bob's project: %v", groups)
	}
}

// TestTreeSurvivesRestartAndRebuild: a restart reuses the tree as it is
// (nothing rewritten), and dropping every derived file rebuilds the same
// branches from the leaves.
func TestTreeSurvivesRestartAndRebuild(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	treeCorpus(t, s, 400)
	before := branchFiles(t, dir)
	stats := s.TreeStats()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(before) < 20 {
		t.Fatalf("positive control: %d branch files", len(before))
	}

	s = open(t, dir)
	s.Flush()
	if got := branchFiles(t, dir); !slices.Equal(got, before) {
		t.Fatalf("a restart changed the branches: %d before, %d after", len(before), len(got))
	}
	if got := s.TreeStats(); got != stats {
		t.Fatalf("tree after restart = %+v, before %+v", got, stats)
	}
	s.Close()
	if stats.Gone == 0 {
		t.Fatalf("positive control: the forgotten memories should be listed gone: %+v", stats)
	}

	// Dropping every derived file rebuilds the tree from the live leaves,
	// and the rebuild is deterministic: twice, the same branches. (It need
	// not equal the incremental tree, whose branches still list the
	// memories forgotten after they were written.)
	rebuild := func() []string {
		if err := DropSnapshots(dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, treeDir)); !os.IsNotExist(err) {
			t.Fatalf("DropSnapshots left the tree: %v", err)
		}
		s := open(t, dir)
		s.Flush()
		if got := s.TreeStats(); got.Leaves != stats.Leaves || got.Gone != 0 {
			t.Fatalf("rebuilt tree = %+v, want the %d live leaves and nothing gone", got, stats.Leaves)
		}
		s.Close()
		return branchFiles(t, dir)
	}
	first := rebuild()
	if second := rebuild(); !slices.Equal(first, second) || len(first) < 20 {
		t.Fatalf("two rebuilds from the same leaves differ: %d and %d branch files", len(first), len(second))
	}
}

func branchFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, treeDir, "branches"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, filepath.Base(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestNearTieAcrossGroupsIsAmbiguous: two memories that match a long query
// about equally but live in different parts of the tree (another domain)
// are a choice to make, not an answer; within one group the best answers.
func TestNearTieAcrossGroupsIsAmbiguous(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	in := func(sess, text, domain string) {
		c := alice
		c.Session = sess // alone in its session: nothing lent
		if _, err := s.Save(ctx, SaveInput{Caller: c, Content: text, Domain: domain}); err != nil {
			t.Fatal(err)
		}
	}
	in("a", "Rotate the staging token every Monday before the deploy window.", "process.ops")
	in("b", "Rotate the staging token every Monday before the deploy freeze.", "software.go")
	r := find(t, s, SearchInput{Query: "when do we rotate the staging token before deploy?"})
	if r.Verdict != Ambiguous || len(r.Hits) != 2 {
		t.Fatalf("across domains: verdict %v with %d hits, want ambiguous with both", r.Verdict, len(r.Hits))
	}

	// Positive control: the same near tie inside one group answers.
	in("c", "Rotate the billing token every Friday before the release window.", "process.ops")
	in("d", "Rotate the billing token every Friday before the release freeze.", "process.ops")
	r = find(t, s, SearchInput{Query: "when do we rotate the billing token before release?"})
	if r.Verdict != Found {
		t.Fatalf("within one domain: verdict %v (%s), want found", r.Verdict, r.Message)
	}
}

// TestTreeStatsDoNotWaitForConsolidation: Stats (ihmt status, the bench)
// reads what the tree held after its last change, even while a long
// consolidation holds the tree — and that figure follows the tree.
func TestTreeStatsDoNotWaitForConsolidation(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	for i := range 20 {
		save(t, s, alice, fmt.Sprintf("Memory %d about the staging cluster and its cache warm-up script.", i), ScopeGlobal)
	}
	if _, _, err := s.Consolidate(ctx, true); err != nil {
		t.Fatal(err)
	}
	if st := s.TreeStats(); !st.Ready || st.Leaves != 20 {
		t.Fatalf("positive control: tree stats %+v, want ready with 20 leaves", st)
	}
	s.treeMu.Lock() // as a consolidation does
	got := make(chan TreeStats, 1)
	go func() { got <- s.TreeStats() }()
	select {
	case st := <-got:
		if st.Leaves != 20 {
			t.Errorf("stats during a consolidation: %+v, want the 20 leaves held", st)
		}
	case <-time.After(5 * time.Second):
		t.Error("TreeStats waited for the consolidation")
	}
	s.treeMu.Unlock()
}

// sameHits is sameRanking for the index's hits.
func sameHits(a, b []index.Hit) bool {
	conv := func(hs []index.Hit) []Hit {
		out := make([]Hit, len(hs))
		for i, h := range hs {
			out[i] = Hit{Score: h.Score}
			out[i].Leaf.ID = fmt.Sprint(h.Doc)
		}
		return out
	}
	return sameRanking(conv(a), conv(b))
}

package tree

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// world is a tree over a synthetic corpus and the reference index over the
// same leaves, with some leaves forgotten (gone from both), some saved but
// not yet consolidated, and some the tree was never told about.
type world struct {
	tr    *Tree
	ix    *refIndex
	items []Item
	gen   *corpusGen
}

func newWorld(t testing.TB, n int, seed uint64) *world {
	t.Helper()
	g := newCorpusGen(seed)
	items := make([]Item, n)
	for i := range items {
		items[i] = g.next()
	}
	tr := mustOpen(t, t.TempDir())
	// Most leaves are consolidated; the last 1% are saved but pending, and
	// 0.25% never reached the tree at all (the guarantee must find them).
	cut, unknown := n-n/100, n-n/400
	if err := tr.Rebuild(items[:cut]); err != nil {
		t.Fatal(err)
	}
	addAll(t, tr, items[cut:unknown])
	ix := newRefIndex(items)
	// Forget 2%.
	for i := 7; i < n; i += 50 {
		ix.dead[i] = true
		tr.Remove(items[i].ID)
	}
	return &world{tr: tr, ix: ix, items: items, gen: g}
}

// queries draws n queries of at least one term.
func (w *world) queries(n int) [][]string {
	var queries [][]string
	for len(queries) < n {
		if q := w.gen.query(w.items); len(q) > 0 {
			queries = append(queries, q)
		}
	}
	return queries
}

// visibility is a caller's view: every group, or global plus one project.
type visibility struct {
	name  string
	group func(string) bool
}

var views = []visibility{
	{"all", func(string) bool { return true }},
	{"global+a", func(g string) bool {
		return strings.HasPrefix(g, "global|") || strings.HasPrefix(g, "project:github.com/x/a|")
	}},
	{"global", func(g string) bool { return strings.HasPrefix(g, "global|") }},
}

func (w *world) query(terms []string, v visibility, k int, loose bool) (Query, *refScorer) {
	vis := func(d int32) bool { return v.group(w.ix.group[d]) }
	sc := &refScorer{ix: w.ix, terms: terms, vis: vis, loose: loose}
	return Query{Scorer: sc, K: k, VisibleGroup: v.group, Visible: func(id string) bool {
		d, ok := w.ix.byID[id]
		return ok && vis(int32(d))
	}}, sc
}

// TestSearchEqualsExhaustive is the guarantee's property test: on a
// 20,000-leaf corpus, for 500 random queries under three visibilities, with
// three kinds of scorer (tight bounds, loose bounds, tight bounds with
// scored postings) and without the descent, the top 10 equals exhaustive
// BM25's top 10, scores and order included. It logs what each costs.
func TestSearchEqualsExhaustive(t *testing.T) {
	n, queries := 20000, 500
	if testing.Short() {
		n, queries = 4000, 150
	}
	w := newWorld(t, n, 42)
	t.Logf("tree: %+v", w.tr.Stats())
	type tally struct {
		queries, nodes, leaves, touched, union, hits, viaGuarantee, top1 int
	}
	modes := []string{"tight bound (max contribution)", "loose bound (idf×(k1+1))",
		"tight bound + scored postings", "tight bound, guarantee alone (no descent)",
		"tight bound + scored postings, guarantee alone (no descent)"}
	tallies := make([]tally, len(modes))
	for q := 0; q < queries; q++ {
		terms := w.gen.query(w.items)
		if len(terms) == 0 {
			continue
		}
		v := views[q%len(views)]
		want, touched, union := w.ix.exhaustive(terms, func(d int32) bool { return v.group(w.ix.group[d]) }, 10)
		for m := range modes {
			query, sc := w.query(terms, v, 10, m == 1)
			if m == 2 || m == 4 {
				query.Scorer = refScorerC{sc}
			}
			if m >= 3 {
				query.Beam = -1
			}
			res := w.tr.Search(query)
			if !res.Exhaustive {
				t.Fatal("not exhaustive")
			}
			if len(res.Hits) != len(want) {
				t.Fatalf("query %d %v (%s, %s): %d hits, want %d", q, terms, v.name, modes[m], len(res.Hits), len(want))
			}
			for i := range want {
				g := res.Hits[i]
				if g.ID != want[i].ID || g.Score != want[i].Score || g.Matched != want[i].Matched {
					t.Fatalf("query %d %v (%s, %s) hit %d: %s %v %b, want %s %v %b", q, terms, v.name, modes[m], i,
						g.ID, g.Score, g.Matched, want[i].ID, want[i].Score, want[i].Matched)
				}
				if p := w.tr.Path(g.ID); !slices.Equal(p, g.Path) {
					t.Fatalf("path %v, want %v", g.Path, p)
				}
			}
			ta := &tallies[m]
			ta.queries++
			ta.nodes += res.NodesRead
			ta.leaves += res.LeavesScored
			ta.touched += touched
			ta.union += union
			ta.hits += len(res.Hits)
			for i, h := range res.Hits {
				if h.ViaGuarantee {
					ta.viaGuarantee++
				} else if i == 0 {
					ta.top1++
				}
			}
		}
	}
	for i, ta := range tallies {
		q := float64(ta.queries)
		t.Logf("%s, %d queries, K=10: nodes read %.1f, leaves scored %.1f; exhaustive touches %.1f postings / %.1f distinct leaves; the descent found %.1f%% of hits, the top hit %.1f%% of the time",
			modes[i], ta.queries, float64(ta.nodes)/q, float64(ta.leaves)/q, float64(ta.touched)/q, float64(ta.union)/q,
			100*float64(ta.hits-ta.viaGuarantee)/float64(max(ta.hits, 1)), 100*float64(ta.top1)/q)
	}
}

// TestDescentCostBounded checks the descent alone reads at most beam ×
// depth × branch factor branches (it reads at most beam per level).
func TestDescentCostBounded(t *testing.T) {
	w := newWorld(t, 5000, 9)
	depth := w.tr.Stats().Layers
	if depth < 2 {
		t.Fatalf("tree too shallow: %+v", w.tr.Stats())
	}
	for _, beam := range []int{1, 2, 4, 8} {
		worst := 0
		for q := 0; q < 100; q++ {
			terms := w.gen.query(w.items)
			query, _ := w.query(terms, views[0], 10, false)
			query.Beam = beam
			query.descentOnly = true
			res := w.tr.Search(query)
			if res.Exhaustive || res.Guaranteed != 0 {
				t.Fatalf("descent only, but %+v", res)
			}
			if res.branchesRead > beam*depth*DefaultBranchFactor {
				t.Fatalf("beam %d depth %d: read %d branches", beam, depth, res.branchesRead)
			}
			worst = max(worst, res.branchesRead)
		}
		t.Logf("beam %d, depth %d: at most %d branches read (bound %d)", beam, depth, worst, beam*depth*DefaultBranchFactor)
		if worst > beam*depth {
			t.Errorf("beam %d: read %d branches, more than beam × depth", beam, worst)
		}
	}
}

func TestSearchSmall(t *testing.T) {
	tr := mustOpen(t, t.TempDir())
	texts := []string{
		"My cousin Luis lives in Valencia and works as a carpenter.",
		"Luis Marín reviewed the pull request for the scheduler rewrite.",
		"The CI runs on Go 1.26 since March.",
		"We use PostgreSQL 17 for the staging database.",
	}
	var items []Item
	for i := range 40 {
		items = append(items, Item{ID: testID(i), Group: "global|personal", Text: texts[i%len(texts)] + fmt.Sprintf(" Note %d.", i)})
	}
	addAll(t, tr, items[:36])
	consolidate(t, tr, false)
	addAll(t, tr, items[36:39]) // pending; items[39] never reaches the tree
	ix := newRefIndex(items)
	all := func(int32) bool { return true }
	for _, q := range []string{"scheduler reviewer", "postgresql staging", "carpenter Valencia", "nothing matches zzz", "note 39"} {
		terms := tokenize.Terms(q)
		sc := &refScorer{ix: ix, terms: terms, vis: all}
		res := tr.Search(Query{Scorer: sc, K: 3})
		want, _, _ := ix.exhaustive(terms, all, 3)
		if len(res.Hits) != len(want) {
			t.Fatalf("%q: %d hits, want %d", q, len(res.Hits), len(want))
		}
		for i := range want {
			if res.Hits[i].ID != want[i].ID {
				t.Fatalf("%q: hit %d %s, want %s", q, i, res.Hits[i].ID, want[i].ID)
			}
		}
		if q == "note 39" && (len(res.Hits) == 0 || res.Hits[0].ID != items[39].ID || !res.Hits[0].ViaGuarantee || res.Hits[0].Path != nil) {
			t.Fatalf("leaf unknown to the tree: %+v", res.Hits)
		}
		if h := res.Hits; len(h) > 0 && !slices.Equal(h[0].Path, tr.Path(h[0].ID)) {
			t.Fatalf("path %v", h[0].Path)
		}
	}
	// No scorer, no results.
	if res := tr.Search(Query{}); len(res.Hits) != 0 || res.Exhaustive {
		t.Fatalf("%+v", res)
	}
}

// TestSearchConcurrent runs searches side by side, as readers under the
// caller's read lock do; with -race it checks they share the tree safely.
func TestSearchConcurrent(t *testing.T) {
	w := newWorld(t, 2000, 5)
	queries := w.queries(64)
	wants := make([][]Hit, len(queries))
	for i, terms := range queries {
		v := views[i%len(views)]
		wants[i], _, _ = w.ix.exhaustive(terms, func(d int32) bool { return v.group(w.ix.group[d]) }, 10)
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := g; i < len(queries); i += 4 {
				q, _ := w.query(queries[i], views[i%len(views)], 10, false)
				res := w.tr.Search(q)
				if len(res.Hits) != len(wants[i]) || (len(res.Hits) > 0 && res.Hits[0].ID != wants[i][0].ID) {
					done <- fmt.Errorf("query %v: %d hits, want %d", queries[i], len(res.Hits), len(wants[i]))
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

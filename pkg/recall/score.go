package recall

import (
	"github.com/ihmt-dev/ihmt/pkg/leaf"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// score returns the k best memories the caller may see in the view, by
// BM25 over their full text (words lent by neighbours included), and what it
// cost. Both paths are exhaustive-equivalent — the same k memories an
// exhaustive BM25 over every visible memory returns:
//
//   - through the index (t nil, what searches use): the query's posting
//     lists, rarest first, until no unread term could lift a memory not
//     yet scored into the k best; then only the memories that still can
//     are completed (pkg/index's MaxScore);
//   - through the tree (EvalOptions.Descend): a descent from the root reads
//     a few branches' summaries and scores the leaves it reaches, then the
//     guarantee pass (pkg/tree's MaxScore over the query's posting lists)
//     scores whatever could still place. With the candidates the ranking
//     needs (verdict.Pool), the last score is low, so the guarantee prunes
//     little and pays per-leaf scoring and id lookups on top of the same
//     posting walks: several times the index's time, and more the larger
//     the store (BenchmarkSearch10k; README, Honest numbers). It stays for
//     what it proves — the descent never changes an answer — and for
//     measuring it.
func (s *searcher) score(t *tree.Tree, terms expanded, vis func(index.Group) bool, at Moment, k int) ([]index.Hit, Coverage) {
	inView := func(d index.Doc) bool { return at.Holds(&s.leaf(d).Header) }
	filtered := !at.Now()
	// The kinds of leaves weigh in (kind.go): code yields to prose.
	if !s.on("kind") {
		return s.scoreBM25(t, terms, vis, inView, k, filtered)
	}
	return s.weighKinds(terms.terms[:terms.query], k, func(n int) ([]index.Hit, Coverage) { return s.scoreBM25(t, terms, vis, inView, n, filtered) })
}

// scoreBM25 is score before the leaves' kinds weigh in.
func (s *searcher) scoreBM25(t *tree.Tree, terms expanded, vis func(index.Group) bool, inView func(index.Doc) bool, k int, filtered bool) ([]index.Hit, Coverage) {
	cov := Coverage{Exhaustive: true, LeavesVisible: s.visibleCount(vis)}
	if t != nil {
		return s.scoreTree(t, terms, vis, inView, k, cov)
	}
	// The index filters by scope while scoring; the view's dates filter
	// after, so the pool grows until the filter leaves enough or the index
	// has nothing more — never a search that is exhaustive only in name.
	pool := k
	var raw []index.Hit
	for {
		got, st := s.ix.Search(index.Query{Terms: terms.terms, Weights: terms.weights, Visible: vis, Limit: pool})
		cov.NodesRead, cov.LeavesScored = st.PostingsRead, st.DocsScored
		raw = raw[:0]
		for _, h := range got {
			if inView(h.Doc) {
				h.Matched, h.Related = terms.fold(h.Matched), terms.fold(h.Related)
				raw = append(raw, h)
			}
		}
		if !filtered || len(got) < pool || len(raw) >= k {
			return raw, cov
		}
		pool *= 4
	}
}

// scoreTree is score through the tree.
func (s *searcher) scoreTree(t *tree.Tree, terms expanded, vis func(index.Group) bool, inView func(index.Doc) bool, k int, cov Coverage) ([]index.Hit, Coverage) {
	sc := treeScorer{s: s, sc: s.ix.WeightedScorer(terms.terms, terms.weights, vis), inView: inView}
	res := t.Search(tree.Query{
		Scorer: sc,
		K:      k,
		Visible: func(id string) bool {
			d, ok := s.r.Doc(id)
			return ok && s.ix.Live(d) && vis(s.groupOf(s.leaf(d))) && inView(d)
		},
		VisibleGroup: func(part string) bool {
			project, global := leaf.PartProject(part)
			if global {
				return vis(0)
			}
			g, ok := s.r.Group(project)
			return ok && vis(g)
		},
	})
	hits := make([]index.Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		d, _ := s.r.Doc(h.ID)
		hits = append(hits, index.Hit{Doc: d, Score: h.Score, Matched: terms.fold(h.Matched)})
	}
	cov.Exhaustive = res.Exhaustive
	cov.NodesRead, cov.LeavesScored = res.NodesRead, res.LeavesScored
	cov.Descended, cov.Guaranteed = res.Descended, res.Guaranteed
	cov.ViaTree = true
	return hits, cov
}

// visibleCount counts the live memories the caller may see.
func (s *searcher) visibleCount(vis func(index.Group) bool) int {
	n := 0
	for g := range s.r.Projects() {
		if vis(index.Group(g)) {
			n += s.ix.GroupLen(index.Group(g))
		}
	}
	return n
}

// treeScorer is the store's exact ranking as pkg/tree asks for it: leaves
// by id, restricted to the search's view. The index scorer already leaves
// out hidden memories and groups the caller may not see.
type treeScorer struct {
	s      *searcher
	sc     *index.Scorer
	inView func(index.Doc) bool
}

func (t treeScorer) Terms() []string          { return t.sc.Terms() }
func (t treeScorer) UpperBound(i int) float64 { return t.sc.UpperBound(i) }

func (t treeScorer) Postings(i int, fn func(string)) {
	t.PostingsScored(i, func(id string, _ float64) { fn(id) })
}

// PostingsScored lets the guarantee rule postings out without scoring them
// (tree.ScoredPostings).
func (t treeScorer) PostingsScored(i int, fn func(string, float64)) {
	t.sc.Postings(i, func(d index.Doc, c float64) {
		if t.inView(d) {
			fn(t.s.leaf(d).ID, c)
		}
	})
}

func (t treeScorer) Score(id string) (float64, uint64, bool) {
	d, ok := t.s.r.Doc(id)
	if !ok || !t.inView(d) {
		return 0, 0, false
	}
	return t.sc.Score(d)
}

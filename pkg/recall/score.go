package recall

import (
	"github.com/ihmt-dev/ihmt/pkg/index"
)

// score returns the k best memories the caller may see at the moment, by
// BM25 over their full text (words lent by neighbours included), and what it
// cost. Both paths are exhaustive-equivalent — the same k memories an
// exhaustive BM25 over every visible memory returns:
//
//   - through the index (what searches use): the query's posting
//     lists, rarest first, until no unread term could lift a memory not
//     yet scored into the k best; then only the memories that still can
//     are completed (pkg/index's MaxScore);
//   - through the tree (Options.Descend): a descent from the root reads
//     a few branches' summaries and scores the leaves it reaches, then the
//     guarantee pass (pkg/tree's MaxScore over the query's posting lists)
//     scores whatever could still place. With the candidates the ranking
//     needs (verdict.Pool), the last score is low, so the guarantee prunes
//     little and pays per-leaf scoring and id lookups on top of the same
//     posting walks: several times the index's time, and more the larger
//     the store (BenchmarkSearch10k; README, Honest numbers). It stays for
//     what it proves — the descent never changes an answer — and for
//     measuring it.
func (s *searcher) score(descend bool, terms expanded, vis func(index.Group) bool, at Moment, k int) ([]index.Hit, Coverage) {
	// The kinds of leaves weigh in (kind.go): code yields to prose.
	if !s.on("kind") {
		return s.scoreBM25(descend, terms, vis, at, k)
	}
	return s.weighKinds(terms.terms[:terms.query], k, func(n int) ([]index.Hit, Coverage) { return s.scoreBM25(descend, terms, vis, at, n) })
}

// scoreBM25 is score before the leaves' kinds weigh in.
func (s *searcher) scoreBM25(descend bool, terms expanded, vis func(index.Group) bool, at Moment, k int) ([]index.Hit, Coverage) {
	cov := Coverage{Exhaustive: true, LeavesVisible: s.visibleCount(vis)}
	if descend {
		sc := s.ix.WeightedScorer(terms.terms, terms.weights, vis)
		if hits, d, ok := s.r.Descend(sc, k, vis, Visible(s.r, vis, at)); ok {
			for i := range hits {
				hits[i].Matched = terms.fold(hits[i].Matched)
			}
			d.LeavesVisible = cov.LeavesVisible
			return hits, d
		}
	}
	// The index filters by scope while scoring; the moment's dates filter
	// after, so the pool grows until the filter leaves enough or the index
	// has nothing more — never a search that is exhaustive only in name.
	pool := k
	var raw []index.Hit
	for {
		got, st := s.ix.Search(index.Query{Terms: terms.terms, Weights: terms.weights, Visible: vis, Limit: pool})
		cov.NodesRead, cov.LeavesScored = st.PostingsRead, st.DocsScored
		raw = raw[:0]
		for _, h := range got {
			if at.Holds(&s.leaf(h.Doc).Header) {
				h.Matched, h.Related = terms.fold(h.Matched), terms.fold(h.Related)
				raw = append(raw, h)
			}
		}
		if at.Now() || len(got) < pool || len(raw) >= k {
			return raw, cov
		}
		pool *= 4
	}
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

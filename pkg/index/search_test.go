package index

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestSearchEqualsExhaustiveAtScale is Search's property test at the size
// where its pruning matters: 20,000 linked memory-like documents in 300
// interleaved conversations and four groups, some hidden, 300 queries
// (words of a stored document, half of them with words of a second one,
// often its rare ticket number) under three visibilities and
// the limits the store asks for. Every answer must be a top-k of an
// exhaustive scoring — every visible document, every term's contributions
// summed from Scorer.Postings — with the same scores and term bits; and a
// good share of the searches must have pruned, or this would test nothing.
func TestSearchEqualsExhaustiveAtScale(t *testing.T) {
	n, queries := 20000, 300
	if testing.Short() {
		n, queries = 5000, 100
	}
	docs := benchDocs(n)
	ix := linkedIndex(docs, 21)
	r := rand.New(rand.NewPCG(21, 22))
	for range n / 50 {
		ix.SetLive(Doc(r.IntN(n)), false)
	}
	qs := benchQueries(docs, queries)
	pruned, searches := 0, 0
	for qn, terms := range qs {
		if qn%2 == 0 {
			terms = append(terms, benchQueries(docs[r.IntN(n):][:1], 1)[0]...)
		}
		vis := func(g Group) bool { return g == Group(qn%4) || g == 3 }
		if qn%3 == 0 {
			vis = func(Group) bool { return true }
		}
		// The exhaustive answer, term by term.
		sc := ix.Scorer(terms, vis)
		score := map[Doc]float64{}
		for i := range sc.Terms() {
			sc.Postings(i, func(d Doc, c float64) { score[d] += c })
		}
		all := make([]Hit, 0, len(score))
		for d, s := range score {
			all = append(all, Hit{Doc: d, Score: s})
		}
		sort.Slice(all, func(a, b int) bool { return better(all[a], all[b]) })
		for _, limit := range []int{5, 10, 50} {
			got, st := ix.Search(Query{Terms: terms, Visible: vis, Limit: limit})
			searches++
			if st.DocsScored < len(all) {
				pruned++
			}
			want := all[:min(limit, len(all))]
			if len(got) != len(want) {
				t.Fatalf("query %v limit %d: %d hits, want %d", terms, limit, len(got), len(want))
			}
			for i, h := range got {
				// Sums in another order may differ in the last bits, so
				// documents tied to 1e-9 may trade places; nothing else.
				if math.Abs(h.Score-want[i].Score) > 1e-9 || math.Abs(h.Score-score[h.Doc]) > 1e-9 {
					t.Fatalf("query %v limit %d rank %d: doc %d score %g (exhaustive %g), want doc %d score %g",
						terms, limit, i, h.Doc, h.Score, score[h.Doc], want[i].Doc, want[i].Score)
				}
				s, matched, ok := sc.Score(h.Doc)
				if !ok || s != h.Score || matched != h.Matched {
					t.Fatalf("query %v doc %d: Search %g/%b, Scorer.Score %g/%b/%v", terms, h.Doc, h.Score, h.Matched, s, matched, ok)
				}
			}
		}
	}
	if pruned < searches/4 {
		t.Errorf("only %d of %d searches pruned: the test no longer exercises Search's pruning", pruned, searches)
	}
	t.Logf("%d of %d searches pruned", pruned, searches)
}

// TestHoldsIsSearchForOneTerm: Holds answers what a one-term search with
// limit 1 answers, for every term of a linked index with hidden documents
// under each group's visibility and none; both answers occur (the control).
func TestHoldsIsSearchForOneTerm(t *testing.T) {
	docs := benchDocs(3000)
	ix := linkedIndex(docs, 5)
	r := rand.New(rand.NewPCG(5, 6))
	for range 600 {
		ix.SetLive(Doc(r.IntN(len(docs))), false)
	}
	answers := map[bool]int{}
	for _, terms := range benchQueries(docs, 200) {
		terms = append(terms, "nowhere-in-any-document")
		for g := range Group(5) {
			vis := func(h Group) bool { return h == g }
			for _, term := range terms {
				hits, _ := ix.Search(Query{Terms: []string{term}, Visible: vis, Limit: 1})
				got := ix.Holds(term, vis)
				if got != (len(hits) > 0) {
					t.Fatalf("Holds(%q) in group %d = %v, a search finds %d", term, g, got, len(hits))
				}
				answers[got]++
			}
		}
	}
	if answers[true] == 0 || answers[false] == 0 {
		t.Fatalf("only one answer seen: %v", answers)
	}
}

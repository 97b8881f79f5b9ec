package index

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// TestScorerEqualsSearch: a Scorer must score every document exactly as an
// exhaustive Search does — lent words, hidden documents and groups the caller
// may not see included — and its posting walks must reach exactly the
// documents Search scores, with contributions that sum to their scores.
// Otherwise a search through it would not be exhaustive-equivalent.
func TestScorerEqualsSearch(t *testing.T) {
	words := []string{"deploy", "staging", "postgres", "port", "review", "luis", "cousin", "concert", "lisbon", "pnpm", "editor", "vim"}
	for _, linked := range []bool{false, true} {
		t.Run(fmt.Sprintf("linked=%v", linked), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 11))
			ix := New()
			for i := range 600 {
				text := ""
				for range 3 + r.IntN(12) {
					text += words[r.IntN(len(words))] + " "
				}
				d := ix.Add(text, Group(r.IntN(3)))
				if linked {
					// Links stay inside a group, as the store makes them.
					for k := 1; k <= 2 && i-k >= 0; k++ {
						if prev := Doc(i - k); ix.docs[prev].group == ix.docs[d].group {
							// Questions among them, as NeighbourLink weighs them.
							later, earlier := NeighbourLink(k, r.IntN(3) == 0, r.IntN(3) == 0)
							ix.Link(d, prev, later, earlier)
						}
					}
				}
			}
			for d := range Doc(600) {
				if r.IntN(10) == 0 {
					ix.SetLive(d, false)
				}
			}
			visible := func(g Group) bool { return g != 2 }
			for q := range 50 {
				terms := tokenize.Terms(words[q%len(words)] + " " + words[(q*7+3)%len(words)])
				hits, _ := ix.Search(Query{Terms: terms, Visible: visible, Limit: 1000})
				want := map[Doc]Hit{}
				for _, h := range hits {
					want[h.Doc] = h
				}
				if len(want) == 0 {
					t.Fatalf("query %v: positive control found nothing", terms)
				}
				s := ix.Scorer(terms, visible)
				sums := map[Doc]float64{}
				for i := range terms {
					s.Postings(i, func(d Doc, c float64) {
						if c > s.UpperBound(i) {
							t.Errorf("query %v: doc %d term %d contributes %g over its bound %g", terms, d, i, c, s.UpperBound(i))
						}
						sums[d] += c
					})
				}
				if len(sums) != len(want) {
					t.Fatalf("query %v: postings reached %d documents, Search scored %d", terms, len(sums), len(want))
				}
				for d, h := range want {
					got, matched, ok := s.Score(d)
					if !ok || got != h.Score || matched != h.Matched {
						t.Fatalf("query %v doc %d: Score = %g/%b/%v, Search = %g/%b", terms, d, got, matched, ok, h.Score, h.Matched)
					}
					if diff := sums[d] - h.Score; diff > 1e-9 || diff < -1e-9 {
						t.Fatalf("query %v doc %d: contributions sum to %g, score %g", terms, d, sums[d], h.Score)
					}
				}
				for d := range Doc(600) {
					if _, ok := want[d]; ok {
						continue
					}
					if score, _, ok := s.Score(d); ok && score != 0 {
						t.Fatalf("query %v doc %d: Score %g for a document Search did not score", terms, d, score)
					}
				}
			}
		})
	}
}

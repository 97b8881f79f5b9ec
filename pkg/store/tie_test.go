package store

import (
	"context"
	"testing"
)

// TestExactTieBetweenDifferentThingsAsksForAClue: two memories that answer
// a long question equally well and say nothing else in common — two
// reviewers — are a choice for the person; two wordings of one fact tied
// the same way are one answer (the positive control, in the same store).
func TestExactTieBetweenDifferentThingsAsksForAClue(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	for i, text := range []string{
		"Marta Ruiz reviews my pull requests on the backend.",
		"Pablo Gil reviews my pull requests on the frontend.",
		"The nightly backup job copies the photos folder to the NAS at 02:00 sharp.",
		"The nightly backup job copies the photos folder to the NAS at 02:00 daily.",
	} {
		c := alice
		c.Session = string(rune('a' + i)) // alone in its session: nothing lent
		if _, err := s.Save(ctx, SaveInput{Caller: c, Content: text, Scope: ScopeGlobal}); err != nil {
			t.Fatal(err)
		}
	}
	r := find(t, s, SearchInput{Query: "who reviews my pull requests"})
	if r.Verdict != Ambiguous || len(r.Hits) != 2 {
		t.Fatalf("two reviewers: verdict %v with %d hits (%s), want ambiguous with both", r.Verdict, len(r.Hits), r.Message)
	}
	r = find(t, s, SearchInput{Query: "who reviews my pull requests", Clue: "frontend"})
	if r.Verdict != Found || r.Hits[0].Leaf.Text != "Pablo Gil reviews my pull requests on the frontend." {
		t.Fatalf("with the clue: verdict %v, first %q", r.Verdict, r.Hits[0].Leaf.Text)
	}
	r = find(t, s, SearchInput{Query: "when does the nightly backup job copy the photos folder"})
	if r.Verdict != Found || len(r.Hits) < 2 || (r.Hits[0].Score-r.Hits[1].Score)/r.Hits[0].Score >= 0.02 {
		t.Fatalf("two wordings of one fact: verdict %v (%s) with %d hits, want found over an exact tie", r.Verdict, r.Message, len(r.Hits))
	}
}

package store

import (
	"slices"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// TestTwoHappeningsInThePeriod: asked when "the" appointment in December
// is, two appointments on different December days, one in each language,
// are a question for the person; the controls in the same store: a
// question the second does not answer as fully (the passport one) is
// found, and one that asks for no time is not a clue request.
func TestTwoHappeningsInThePeriod(t *testing.T) {
	s := open(t, t.TempDir())
	dentist := saveIn(t, s, SaveInput{Caller: alice, Date: "2025-12-01", Content: "Dentist appointment at the Albufera clinic on Wednesday 2025-12-10 at 09:30; block the morning."})
	checkup := saveIn(t, s, SaveInput{Caller: alice, Date: "2025-12-02", Content: "Revisión de Mateo en el pediatra el jueves 11 de diciembre a las 17:15."})
	passport := saveIn(t, s, SaveInput{Caller: alice, Date: "2025-11-20", Content: "Passport renewal appointment at the registry on 18 December 2025 at 12:00."})
	saveIn(t, s, SaveInput{Caller: alice, Date: "2025-01-08", Content: "From January the rate is 72 an hour, agreed with Rafael in December."})

	r := find(t, s, SearchInput{Query: "When is the doctor's appointment in December?"})
	if r.Verdict != Ambiguous || !holdsIDs(r, dentist.Leaf.ID, checkup.Leaf.ID) {
		t.Errorf("doctor's appointment in December: %v %v, want ambiguous between the dentist and the check-up", r.Verdict, ids(r))
	}
	r = find(t, s, SearchInput{Query: "When is the passport appointment in December?"})
	if r.Verdict != Found || len(r.Hits) == 0 || r.Hits[0].Leaf.ID != passport.Leaf.ID {
		t.Errorf("passport appointment: %v %v, want found with the passport memory first", r.Verdict, ids(r))
	}
	r = find(t, s, SearchInput{Query: "Which clinic is the appointment in December at?"})
	if r.Verdict == Ambiguous && len(r.Hits) > 0 && r.Message == (verdict.Judgment{Answer: verdict.Events}).Message(verdict.Memories, "", nil) {
		t.Errorf("a question for no time: %v, want no clue request about the days", r.Verdict)
	}
}

func holdsIDs(r SearchResult, want ...string) bool {
	got := ids(r)
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

package store

import "testing"

// TestOneNameKeptInTwoPlaces: a person's full name in a project and the
// first name alone in a personal note about the same things are one
// person, not a clue request; the control: the first name alone in a note
// about something else entirely is another person.
func TestOneNameKeptInTwoPlaces(t *testing.T) {
	s := open(t, t.TempDir())
	kelpie := alice
	kelpie.Project = "github.com/acme/kelpie"
	saveIn(t, s, SaveInput{Caller: kelpie, Scope: ScopeProject, Content: "Marta Gil is the SRE on kelpie; she owns the alerting rules."})
	saveIn(t, s, SaveInput{Caller: kelpie, Scope: ScopeGlobal, Content: "Lunch with Marta on Friday to go over the kelpie alerting rules."})
	nowhere := alice
	nowhere.Project = ""
	if r := find(t, s, SearchInput{Caller: nowhere, Query: "Who owns the alerting rules, Marta?", Scope: ScopeAll}); r.Verdict != Found {
		t.Errorf("one Marta kept in two places: %v (%s), want found", r.Verdict, r.Message)
	}
}

// TestGoWrittenAsANameRanks: "Go" written as a name is the language, not
// the light verb: two projects' toolchain versions asked from no project
// answer with the one that says Go.
func TestGoWrittenAsANameRanks(t *testing.T) {
	s := open(t, t.TempDir())
	north, south := alice, alice
	north.Project, south.Project = "github.com/acme/north", "github.com/acme/south"
	goMem := saveIn(t, s, SaveInput{Caller: north, Scope: ScopeProject, Content: "north builds with Go 1.23 as its toolchain version."})
	saveIn(t, s, SaveInput{Caller: south, Scope: ScopeProject, Content: "south pins Node 20 as its toolchain version."})
	nowhere := alice
	nowhere.Project = ""
	r := find(t, s, SearchInput{Caller: nowhere, Query: "Which Go version do we use for the toolchain?", Scope: ScopeAll})
	if r.Verdict != Found || r.Hits[0].Leaf.ID != goMem.Leaf.ID {
		t.Errorf("Go toolchain version: %v %v (%s), want found with the Go memory", r.Verdict, ids(r), r.Message)
	}
}

package store

import "testing"

// TestSubstantive: a question's function verbs are set aside from what a
// memory holds of it, unless they are all it holds.
func TestSubstantive(t *testing.T) {
	terms := []string{"go", "wrong", "migrat"} // "what went wrong during the migration?"
	tests := []struct {
		name          string
		matched, want uint64
	}{
		{"the verb and the noun: the noun", 0b101, 0b100},
		{"the noun alone", 0b100, 0b100},
		{"nothing but the verb: the verb", 0b001, 0b001},
		{"no verb", 0b110, 0b110},
	}
	for _, tt := range tests {
		if got := substantive(tt.matched, terms, nil); got != tt.want {
			t.Errorf("%s: substantive(%b) = %b, want %b", tt.name, tt.matched, got, tt.want)
		}
	}
}

// TestNamesAreNotLight: "Go" written as a name is the language, not the
// light verb: two projects' toolchain versions asked from no project
// answer with the one that says Go; the control, the verb "go" in "how
// did the rollout go", weighs little.
func TestNamesAreNotLight(t *testing.T) {
	if light("go", []string{"go"}) || !light("go", nil) {
		t.Fatalf("light: a name is not light, the verb is")
	}
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

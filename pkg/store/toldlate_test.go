package store

import "testing"

// TestToldLateIsHistory: a note dated months before what the store had
// already recorded tells how things were; asked about now, it yields to
// the memory recorded at its own time, however better its words match.
// Asked about the past, or as of a day, it keeps its place.
func TestToldLateIsHistory(t *testing.T) {
	s, clk := corpus(t)
	now := at(t, s, clk, alice, "2025-05-19", "The booking app is on Elixir 1.18.3 now.", ScopeProject)
	at(t, s, clk, alice, "2025-05-26", "The booking app's CSS moved to Tailwind 4.", ScopeProject)
	clk.set("2025-06-02") // saved now, dated the August before
	old := saveIn(t, s, SaveInput{Caller: alice, Content: "Copied in from my August notebook: deploys went to Heroku with the Elixir buildpack, and the release phase ran the migrations.", Date: "2024-08-10", Scope: ScopeProject})

	tests := []struct {
		query, asOf string
		want        string
	}{
		{query: "Which Elixir release are we on?", want: now.Leaf.ID},
		// Controls: the same words, asked of the past, find the note.
		{query: "Which Elixir release were we on back then?", want: old.Leaf.ID},
		{query: "Which Elixir release are we on?", asOf: "2024-09-01", want: old.Leaf.ID},
	}
	for _, tt := range tests {
		r := find(t, s, SearchInput{Caller: alice, Query: tt.query, AsOf: tt.asOf})
		if len(r.Hits) == 0 || r.Hits[0].Leaf.ID != tt.want {
			t.Errorf("%q as of %q: %v, want %s first", tt.query, tt.asOf, ids(r), tt.want)
		}
	}
}

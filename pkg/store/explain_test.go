package store

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// explainSearch searches with the trace on, and checks the trace is there.
func explainSearch(t *testing.T, s *Store, in SearchInput) (SearchResult, *Trace) {
	t.Helper()
	in.Explain = true
	r, err := s.Search(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trace == nil {
		t.Fatalf("search %q asked for its trace and got none", in.Query)
	}
	return r, r.Trace
}

// factorsOf lists the signal names acting on memory id in a trace.
func factorsOf(tr *Trace, id string) []string {
	for _, r := range tr.Ranked {
		if r.ID == id {
			var out []string
			for _, f := range r.Factors {
				out = append(out, f.Signal)
			}
			return out
		}
	}
	return nil
}

// TestExplainStages: each stage of a search says in its trace what it did,
// and a search that does not ask has no trace (the control).
func TestExplainStages(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	home := save(t, s, alice, "The alpha deploy key lives in the team vault under deploy/alpha.", ScopeProject).Leaf.ID
	global := save(t, s, alice, "My personal deploy key for the homelab lives in ~/.ssh/homelab_ed25519.", ScopeGlobal).Leaf.ID
	old := save(t, s, alice, "The alpha API listens on port 8080.", ScopeProject).Leaf.ID
	fresh := save(t, s, alice, "The alpha API now listens on port 9090.", ScopeProject).Leaf.ID
	if _, err := s.MarkOutdated(ctx, alice, old, fresh); err != nil {
		t.Fatal(err)
	}

	if r, err := s.Search(SearchInput{Caller: alice, Query: "where does the deploy key live?"}); err != nil || r.Trace != nil {
		t.Fatalf("a search that did not ask for it has a trace (%v, err %v)", r.Trace, err)
	}

	t.Run("rewrite", func(t *testing.T) {
		_, tr := explainSearch(t, s, SearchInput{Caller: alice, Query: "which port does the API listen on these days?"})
		if !slices.ContainsFunc(tr.Rewrites, func(w string) bool { return strings.HasPrefix(w, "untimed: dropped") }) {
			t.Errorf("the rewrite of a question with a time word says %q, want an untimed line", tr.Rewrites)
		}
		if len(tr.Terms) == 0 {
			t.Error("no terms in the trace")
		}
	})
	t.Run("score and rerank", func(t *testing.T) {
		_, tr := explainSearch(t, s, SearchInput{Caller: alice, Query: "where does the deploy key live?"})
		if len(tr.Ranked) < 2 {
			t.Fatalf("ranked %d memories, want both deploy keys", len(tr.Ranked))
		}
		for _, r := range tr.Ranked {
			if r.Base <= 0 {
				t.Errorf("memory %s has no base score in the trace", r.ID)
			}
		}
		if f := factorsOf(tr, home); !slices.Contains(f, "home") {
			t.Errorf("the project's memory, asked from the project, shows factors %v, want home", f)
		}
		if f := factorsOf(tr, global); slices.Contains(f, "home") {
			t.Errorf("the global memory, asked from a project, shows the home factor: %v", f)
		}
		_, tr = explainSearch(t, s, SearchInput{Caller: alice, Query: "where does the deploy key live?", Clue: "homelab"})
		if f := factorsOf(tr, global); !slices.Contains(f, "clue") {
			t.Errorf("with a clue the memory matching it shows %v, want clue", f)
		}
	})
	t.Run("supersede", func(t *testing.T) {
		_, tr := explainSearch(t, s, SearchInput{Caller: alice, Query: "which port does the alpha API listen on?"})
		if f := factorsOf(tr, old); !slices.Contains(f, "superseded") {
			t.Errorf("the corrected memory shows %v, want superseded", f)
		}
		for _, r := range tr.Ranked {
			if r.ID == old && r.Current {
				t.Error("the trace calls the corrected memory current")
			}
		}
	})
	t.Run("verdict", func(t *testing.T) {
		for _, c := range []struct{ query, decided string }{
			{"which port does the alpha API listen on?", "found"},
			{"zeppelin quasar", "nothing"},
			{"which Kafka topic does the alpha API write to?", "unknown_name"},
		} {
			_, tr := explainSearch(t, s, SearchInput{Caller: alice, Query: c.query})
			if tr.Decided != c.decided {
				t.Errorf("%q: decided %q on %v, want %q", c.query, tr.Decided, tr.Evidence, c.decided)
			}
			if len(tr.Evidence) == 0 {
				t.Errorf("%q: no evidence in the trace", c.query)
			}
		}
	})
}

package store

import (
	"context"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
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

// TestNearTieAtHomeAndElsewhere: one name in two projects, asked from
// outside both, is two referents; the same near tie between a memory of
// the project asked from and a global one is not: the one at home is
// what the asker means.
func TestNearTieAtHomeAndElsewhere(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	save := func(project string, scope Scope, text string) {
		c := Caller{Agent: alice.Agent, Session: "s-" + project + text[:4], Project: project}
		if _, err := s.Save(ctx, SaveInput{Caller: c, Content: text, Scope: scope}); err != nil {
			t.Fatal(err)
		}
	}
	save("kelpie", ScopeProject, "The staging database is alpha-db.internal, user alpha_rw.")
	save("ledger", ScopeProject, "The staging database is beta-db.internal, user beta_rw.")
	const q = "what is the staging database called?"

	r := find(t, s, SearchInput{Caller: Caller{Agent: alice.Agent, Session: "q"}, Query: q, Scope: ScopeAll})
	if r.Verdict != Ambiguous || len(r.Hits) < 2 {
		t.Fatalf("two projects asked from neither: verdict %v with %d hits (%s), want ambiguous", r.Verdict, len(r.Hits), r.Message)
	}
	save("", ScopeGlobal, "The staging database is gamma-db.internal, user gamma_rw.")
	r = find(t, s, SearchInput{Caller: Caller{Agent: alice.Agent, Session: "q", Project: "kelpie"}, Query: q})
	if r.Verdict != Found || len(r.Hits) == 0 || r.Hits[0].Leaf.Project != "kelpie" {
		t.Fatalf("asked from kelpie: verdict %v (%s), want found with kelpie's first", r.Verdict, r.Message)
	}
	// Asked from no project (a directory never worked in asks from the
	// global part), a personal memory and the projects' that all open with
	// what is asked are referents still.
	r = find(t, s, SearchInput{Caller: Caller{Agent: alice.Agent, Session: "q", Project: "/tmp/scratch"}, Query: q, Scope: ScopeAll})
	if r.Verdict != Ambiguous || len(r.Hits) < 2 || r.Hits[0].Leaf.Scope != leaf.ScopeGlobal {
		t.Fatalf("asked from a project without memories: verdict %v (%s), want ambiguous with the global one first", r.Verdict, r.Message)
	}
}

// TestPersonalAndProjectReferents: asked from no project, a personal
// memory and a project's that both open with what is asked are two
// referents (two laptops); a project's memory that only mentions it is
// not a second one (the phone a VPN peer list names).
func TestPersonalAndProjectReferents(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	save := func(project string, scope Scope, text string) {
		c := Caller{Agent: alice.Agent, Session: "s-" + project + text[:6], Project: project}
		if _, err := s.Save(ctx, SaveInput{Caller: c, Content: text, Scope: scope}); err != nil {
			t.Fatal(err)
		}
	}
	save("", ScopeGlobal, "Personal laptop: Framework 13 on Fedora, hostname salina.")
	save("switchyard", ScopeProject, "Work laptop: ThinkPad T14s on Ubuntu, hostname orv-lt-2291.")
	save("", ScopeGlobal, "Phone: Pixel 7, the 2FA codes are in Aegis.")
	save("homelab", ScopeProject, "WireGuard peers on docker-vm: the phone and the old tablet.")
	nowhere := Caller{Agent: alice.Agent, Session: "q"}

	r := find(t, s, SearchInput{Caller: nowhere, Query: "what's my laptop's hostname?", Scope: ScopeAll})
	if r.Verdict != Ambiguous || len(r.Hits) < 2 {
		t.Errorf("two laptops: verdict %v with %d hits (%s), want ambiguous", r.Verdict, len(r.Hits), r.Message)
	}
	r = find(t, s, SearchInput{Caller: nowhere, Query: "which phone do I have?", Scope: ScopeAll})
	if r.Verdict != Found || len(r.Hits) == 0 || r.Hits[0].Leaf.Scope != leaf.ScopeGlobal {
		t.Errorf("one phone, mentioned by a peer list: verdict %v (%s), want found with the personal memory first", r.Verdict, r.Message)
	}
}

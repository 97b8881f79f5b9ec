package store

import (
	"fmt"
	"slices"
	"testing"
)

// saveAs saves text in project (global when ""), alone in its session so
// that nothing is lent between memories.
func saveAs(t *testing.T, s *Store, project, text string) SaveResult {
	t.Helper()
	sessions++
	in := SaveInput{Caller: Caller{Agent: alice.Agent, Session: fmt.Sprintf("s%d", sessions), Project: project}, Content: text, Scope: ScopeProject}
	if project == "" {
		in.Scope = ScopeGlobal
	}
	return saveIn(t, s, in)
}

func hitIDs(r SearchResult) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Leaf.ID)
	}
	return out
}

var sessions int

var fromNowhere = Caller{Agent: alice.Agent, Session: "q"}

// TestOneThingInSeveralProjects: "the migration" of four projects, asked
// from none of them, shows each project's memory about a migration (not
// one that mentions it in passing), though memories of Go ("went" is
// "go") repeat more of the question's words and fill the tie; "went" is
// no evidence that the best answers more of the question than the others.
func TestOneThingInSeveralProjects(t *testing.T) {
	s := open(t, t.TempDir())
	saveAs(t, s, "north", "north's toolchain is 1.85 now; the edition migration went into the same MR.")
	lock := saveAs(t, s, "south", "south migration 0042 held a lock on the orders table.")
	hiccup := saveAs(t, s, "east", "Queue migration hiccup: east's new workers could not reach Redis at first, because the subnet of the new cluster was not among the allowed ones; fixed by adding it to the list of allowed subnets in the database configuration and redeploying the whole job twice, once per region.")
	saveAs(t, s, "north", "north builds with Go 1.23; go.mod went up.")
	saveAs(t, s, "north", "north went to Go 1.24.")
	saveAs(t, s, "", "Went to Go 1.24 everywhere.")
	saveAs(t, s, "upper", "upper's cache went read-only again on the Friday of the week before, during the freeze for the migration of the whole billing stack to the new cluster, and nobody noticed it until the Monday.")
	upper := saveAs(t, s, "upper", "Billing migration in upper: the old invoices table kept a lock for ten minutes, and the batch jobs that run against it in the night all timed out before it was released.")
	saveAs(t, s, "north", "north's linter went to v2.")
	saveAs(t, s, "", "Go is my language.")
	saveAs(t, s, "west", "west went to Go 1.22.")
	saveAs(t, s, "", "Go 1.24 went out; go-cmp still works.")
	saveAs(t, s, "west", "west's go.work went away.")

	r := find(t, s, SearchInput{Caller: fromNowhere, Query: "What went wrong during the migration?", Scope: ScopeAll, Limit: 4})
	got := hitIDs(r)
	if r.Verdict != Ambiguous || !slices.Contains(got, lock.Leaf.ID) || !slices.Contains(got, hiccup.Leaf.ID) || !slices.Contains(got, upper.Leaf.ID) {
		t.Errorf("four migrations: %v (%s) %v, want ambiguous with south's, east's and upper's about it", r.Verdict, r.Message, got)
	}
	// The positive control: one project's migration, asked in it, is found.
	r = find(t, s, SearchInput{Caller: Caller{Agent: alice.Agent, Session: "q", Project: "south"}, Query: "What went wrong during the migration?", Scope: ScopeOnlyProject})
	if r.Verdict != Found || len(r.Hits) == 0 || r.Hits[0].Leaf.ID != lock.Leaf.ID {
		t.Errorf("asked in south: %v (%s), want found with its migration", r.Verdict, r.Message)
	}
}

// TestPartialCorrectionShownBeside: a tie between projects shows, beside
// a correction that restates only part of what it corrects (the user, not
// the database's name), the memory it corrects; a correction that
// restates it all (the whole release process) shows alone.
func TestPartialCorrectionShownBeside(t *testing.T) {
	s := open(t, t.TempDir())
	old := saveAs(t, s, "alpha", "alpha staging database: alpha-db.internal:5432, database alpha_stage, user alpha_rw.")
	fix := saveIn(t, s, SaveInput{Caller: Caller{Agent: alice.Agent, Session: "fix", Project: "alpha"}, Scope: ScopeProject,
		Content: "Correction to an earlier note: the alpha staging DB user is alpha_app.", Replaces: old.Leaf.ID})
	beta := saveAs(t, s, "beta", "beta staging: same VPS, database beta_stage, site staging.beta.example behind basic auth.")

	r := find(t, s, SearchInput{Caller: fromNowhere, Query: "What's the staging database called?", Scope: ScopeAll})
	got := hitIDs(r)
	if r.Verdict != Ambiguous || !slices.Contains(got, fix.Leaf.ID) || !slices.Contains(got, beta.Leaf.ID) || !slices.Contains(got, old.Leaf.ID) {
		t.Errorf("a partial correction: %v (%s) %v, want ambiguous with the correction, what it corrects and beta's", r.Verdict, r.Message, got)
	}

	gone := saveAs(t, s, "gamma", "gamma releases: cargo release minor bumps the version and pushes a tag.")
	now := saveIn(t, s, SaveInput{Caller: Caller{Agent: alice.Agent, Session: "rel", Project: "gamma"}, Scope: ScopeProject,
		Content: "release-plz does gamma releases now, from the changelog.", Replaces: gone.Leaf.ID})
	saveAs(t, s, "delta", "delta releases ride the Tuesday release train.")
	r = find(t, s, SearchInput{Caller: fromNowhere, Query: "What's the release process?", Scope: ScopeAll})
	got = hitIDs(r)
	if r.Verdict != Ambiguous || !slices.Contains(got, now.Leaf.ID) || slices.Contains(got, gone.Leaf.ID) {
		t.Errorf("a whole correction: %v (%s) %v, want ambiguous with gamma's current process only", r.Verdict, r.Message, got)
	}
}

// TestNameBelowItsVerb: "what does Nico prefer?" when the memories that
// say "prefers" name someone else, and two Nicos are named further down
// (mid-sentence, one of them in Spanish), asks which Nico; asked of the
// one the best memory names, it is found.
func TestNameBelowItsVerb(t *testing.T) {
	s := open(t, t.TempDir())
	saveAs(t, s, "", "Diego prefers agents to answer him in Spanish in chat.")
	saveAs(t, s, "", "Prefers Conventional Commits and no emojis in commit messages.")
	saveAs(t, s, "", "Rocío prefers a single monthly call to review the invoices.")
	saveAs(t, s, "", "Prefers tabs in Go, spaces elsewhere.")
	saveAs(t, s, "", "Lucía prefers WhatsApp to mail.")
	saveAs(t, s, "", "Prefers squash merges on every repository.")
	saveAs(t, s, "canopy", "Decision: canopy moves from the compose VMs to EKS before the harvest traffic peak of the fourth quarter; Nico and Ingrid agreed after the long review.")
	saveAs(t, s, "canopy", "The Monday standup ran long because of the tile cache incident of the weekend and the alerts it raised; Nico left early.")
	saveAs(t, s, "turnero", "The clinic opens at nine on weekdays and at ten on Saturdays, closed on Sundays and holidays, says Nico.")
	ferraro := saveAs(t, s, "canopy", "PR reviews on canopy go to Nico Ferraro. He wants small PRs and a screenshot.")
	albornoz := saveAs(t, s, "turnero", "Contacto técnico en la clínica: Nico Albornoz (administración e IT). Contesta por WhatsApp.")

	r := find(t, s, SearchInput{Caller: fromNowhere, Query: "What does Nico prefer?", Scope: ScopeAll})
	got := hitIDs(r)
	if r.Verdict != Ambiguous || !slices.Contains(got, ferraro.Leaf.ID) || !slices.Contains(got, albornoz.Leaf.ID) {
		t.Errorf("two Nicos: %v (%s) %v, want ambiguous with both", r.Verdict, r.Message, got)
	}
	if r := find(t, s, SearchInput{Caller: fromNowhere, Query: "What does Diego prefer?", Scope: ScopeAll}); r.Verdict != Found {
		t.Errorf("Diego: %v (%s), want found", r.Verdict, r.Message)
	}
}

// TestNameAloneInAnotherPart: "my brother Martín" among personal memories
// and "Martín Quiroga" in a project's are two people; asked of the
// brother, the question is found.
func TestNameAloneInAnotherPart(t *testing.T) {
	s := open(t, t.TempDir())
	brother := saveAs(t, s, "", "Familia: esposa Valentina, hija Olivia; mi hermano Martín vive en Córdoba.")
	sre := saveAs(t, s, "ferrybox", "Martín Quiroga is ferrybox's SRE; page him through incident.io only for sev1.")
	saveAs(t, s, "ferrybox", "ferrybox on-call follows the sun: London, then Montevideo.")

	r := find(t, s, SearchInput{Caller: fromNowhere, Query: "Who's Martín?", Scope: ScopeAll})
	got := hitIDs(r)
	if r.Verdict != Ambiguous || !slices.Contains(got, brother.Leaf.ID) || !slices.Contains(got, sre.Leaf.ID) {
		t.Errorf("two Martíns: %v (%s) %v, want ambiguous with the brother and the SRE", r.Verdict, r.Message, got)
	}
	r = find(t, s, SearchInput{Caller: fromNowhere, Query: "Where does my brother Martín live?", Scope: ScopeAll})
	if r.Verdict != Found || len(r.Hits) == 0 || r.Hits[0].Leaf.ID != brother.Leaf.ID {
		t.Errorf("where the brother lives: %v (%s), want found", r.Verdict, r.Message)
	}
}

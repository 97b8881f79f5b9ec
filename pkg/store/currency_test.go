package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/testenv/shared"
)

// asker is who asks a question, and in which scope.
type asker struct {
	caller store.Caller
	scope  store.SearchScope
}

// surfaceClaims lists, for each memory in superseded, every surface other
// than search that calls it current for a: the briefing, facts, a fact's
// timeline, get. Empty means they all agree with search.
func surfaceClaims(t *testing.T, st *store.Store, a asker, superseded map[string]bool) []string {
	t.Helper()
	var claims []string
	claim := func(surface, id string) { claims = append(claims, surface+" calls "+id+" current") }
	if a.scope == store.ScopeDefault {
		b, err := st.Brief(store.BriefInput{Caller: a.caller, MaxTokens: store.MaxBriefTokens})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range b.Items {
			if superseded[it.ID] {
				claim("the briefing", it.ID)
			}
		}
	}
	rows, err := st.Facts(a.caller, "", "", "", a.scope)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[[2]string]bool{}
	for _, r := range rows {
		keys[[2]string{r.Key.Subject, r.Key.Attribute}] = true
		if r.Current && superseded[r.Entry.Leaf] {
			claim("facts", r.Entry.Leaf)
		}
	}
	for k := range keys {
		tl, err := st.Timeline(a.caller, k[0], k[1], "", a.scope)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tl {
			if r.Current && superseded[r.Entry.Leaf] {
				claim("the timeline of "+k[0]+"::"+k[1], r.Entry.Leaf)
			}
		}
	}
	for id := range superseded {
		sd, err := st.Standing(a.caller, id, a.scope)
		if err != nil {
			t.Fatal(err)
		}
		if sd.Currency.Current {
			claim("get", id)
		}
	}
	slices.Sort(claims)
	return claims
}

// supersededBySearch asks every question of now and returns, per asker,
// the memories search marks superseded.
func supersededBySearch(t *testing.T, st *store.Store, set retrievalSet) map[asker]map[string]bool {
	t.Helper()
	out := map[asker]map[string]bool{}
	for _, q := range set.questions {
		if q.AsOf != "" {
			continue
		}
		a := asker{setCaller("", q.Project), questionScope(q)}
		res, err := st.Search(store.SearchInput{Caller: a.caller, Query: q.Query, Scope: a.scope, Limit: 10})
		if err != nil {
			t.Fatalf("%s %s: %v", set.name, q.QID, err)
		}
		for _, h := range res.Hits {
			if !h.Current {
				if out[a] == nil {
					out[a] = map[string]bool{}
				}
				out[a][h.Leaf.ID] = true
			}
		}
	}
	return out
}

// TestSurfacesAgreeOnCurrent: over every committed set, a memory search
// marks superseded for a question about now is current on no other
// surface for the same caller.
func TestSurfacesAgreeOnCurrent(t *testing.T) {
	for _, set := range committedSets(t) {
		t.Run(set.name, func(t *testing.T) {
			st := openAt(t, t.TempDir(), time.Now())
			saveSet(t, st, set)
			marked := supersededBySearch(t, st, set)
			n := 0
			for a, ids := range marked {
				n += len(ids)
				if claims := surfaceClaims(t, st, a, ids); len(claims) > 0 {
					t.Errorf("asked from %q: search marks superseded what other surfaces call current:\n%s", a.caller.Project, strings.Join(claims, "\n"))
				}
			}
			if n == 0 {
				t.Fatalf("search marked nothing superseded in %s: the check checked nothing", set.name)
			}
		})
	}
}

// TestSurfacesAgreeHandMade: a port that moved and a cache that was
// replaced, told in words the fact patterns do not link. Every surface
// follows search; switched back to the timeline alone (as they read before
// the one model), the same check finds them disagreeing.
func TestSurfacesAgreeHandMade(t *testing.T) {
	st := openAt(t, t.TempDir(), time.Now())
	c := setCaller("codex", "github.com/acme/shop")
	save := func(date, text string) string {
		r, err := st.Save(context.Background(), store.SaveInput{Caller: c, Content: text, Date: date, Scope: store.ScopeProject})
		if err != nil {
			t.Fatal(err)
		}
		return r.Leaf.ID
	}
	oldPort := save("2025-01-10", "The shop API listens on port 8080 behind the nginx proxy.")
	save("2025-06-02", "We moved the shop API to port 9090 so it no longer clashes with the metrics agent.")
	oldCache := save("2025-02-01", "The shop uses Redis as its cache, version 7.2.")
	save("2025-08-20", "Redis is gone from the shop; Valkey runs the cache now.")
	a := asker{c, store.ScopeDefault}

	marked := map[string]bool{}
	for _, q := range []string{"which port does the shop API listen on?", "what runs the shop cache?"} {
		res, err := st.Search(store.SearchInput{Caller: c, Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if !h.Current {
				marked[h.Leaf.ID] = true
			}
		}
	}
	if !marked[oldPort] || !marked[oldCache] {
		t.Fatalf("search should mark both old values superseded; it marked %v (old port %s, old cache %s)", marked, oldPort, oldCache)
	}
	if claims := surfaceClaims(t, st, a, marked); len(claims) > 0 {
		t.Fatalf("surfaces disagree with search:\n%s", strings.Join(claims, "\n"))
	}
	store.SurfacesReadTimelineOnly(true)
	defer store.SurfacesReadTimelineOnly(false)
	if claims := surfaceClaims(t, st, a, marked); len(claims) == 0 {
		t.Fatal("positive control: with the surfaces reading the timeline alone the check should find a disagreement, and found none")
	} else {
		t.Logf("positive control: %s", strings.Join(claims, "; "))
	}
}

// answerOf is a search's answer as it reads, without what a store's
// clock or directory puts in it (record times; the project's key, dir).
func answerOf(res store.SearchResult, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %.4f %s\n", res.Verdict, res.Confidence, res.Message)
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "  %.6f %v %s %q %q\n", h.Score, h.Current, h.Leaf.ValidFrom.Format(time.DateOnly), h.Leaf.Text, h.Notices)
	}
	return strings.ReplaceAll(b.String(), dir, "<dir>")
}

// twoLuis is a journal naming two people called Luis: a cousin, and a
// colleague who reviews pull requests.
const twoLuis = `2025-03-02: Comida en casa de mi primo Luis; hablamos de su nuevo trabajo en Valencia.
2025-03-09: Luis Marín reviewed my pull request for the billing export and asked for more tests.
2025-04-14: Luis, mi primo, se casa en septiembre; hay que reservar hotel.
2025-05-20: Luis Marín will review pull requests for the payments team while Ana is away.
`

// TestSameAnswerEveryStore: the dev set and a journal naming two people
// called Luis, saved into five fresh stores (other directories, other
// start times, the journal ingested as another project's each time),
// answer every question the same, byte for byte.
func TestSameAnswerEveryStore(t *testing.T) {
	data := shared.Data(t)
	dev := loadRetrievalSet(t, "devset", data+"/devset/devset.jsonl")
	questions := append([]setQuestion(nil), dev.questions...)
	luis := []string{"Luis", "who is Luis?", "what does Luis do?", "who reviews my pull requests?", "when is Luis getting married?"}
	var first []string
	for i := range 5 {
		st := openAt(t, t.TempDir(), time.Now().Add(time.Duration(i)*97*time.Minute))
		saveSet(t, st, dev)
		dir := fmt.Sprintf("/home/u/notes-%d", i)
		if _, err := st.Ingest(context.Background(), store.IngestInput{Caller: setCaller("ihmt-cli", dir), Name: dir + "/journal.md", Content: twoLuis, Scope: store.ScopeProject}); err != nil {
			t.Fatal(err)
		}
		var got []string
		asked := slices.Clone(questions)
		for _, q := range luis {
			// Asked from the journal's directory, as an agent there would.
			asked = append(asked, setQuestion{QID: q, Query: q, Project: dir}, setQuestion{QID: q + " (anywhere)", Query: q})
		}
		for _, q := range asked {
			a := asker{setCaller("", q.Project), questionScope(q)}
			res, err := st.Search(store.SearchInput{Caller: a.caller, Query: q.Query, Scope: a.scope, AsOf: q.AsOf})
			if err != nil {
				t.Fatalf("store %d, %s: %v", i, q.QID, err)
			}
			got = append(got, q.QID+": "+answerOf(res, dir))
		}
		if i == 0 {
			first = got
			continue
		}
		for k := range got {
			if got[k] != first[k] {
				t.Fatalf("store %d answers otherwise than store 0:\n%s\nvs\n%s", i, got[k], first[k])
			}
		}
	}
}

package store

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
)

// clock is a settable time source for record-time tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(day string) {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	c.t = t.Add(12 * time.Hour)
	c.mu.Unlock()
}

func openAt(t testing.TB, dir string, clk *clock) *Store {
	t.Helper()
	s, err := Open(dir, Options{Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func saveIn(t testing.TB, s *Store, in SaveInput) SaveResult {
	t.Helper()
	r, err := s.Save(context.Background(), in)
	if err != nil {
		t.Fatalf("save %q: %v", in.Content, err)
	}
	return r
}

func find(t testing.TB, s *Store, in SearchInput) SearchResult {
	t.Helper()
	return mustSearch(t, in, s.Search)
}

// evaluate is find through Evaluate, with its options.
func evaluate(t testing.TB, s *Store, in SearchInput, opts EvalOptions) SearchResult {
	t.Helper()
	return mustSearch(t, in, func(in SearchInput) (SearchResult, error) { return s.Evaluate(in, opts) })
}

// mustSearch runs search (alice's, unless in names a caller) and fails the
// test on an error.
func mustSearch[R any](t testing.TB, in SearchInput, search func(SearchInput) (R, error)) R {
	t.Helper()
	if in.Caller == (Caller{}) {
		in.Caller = alice
	}
	r, err := search(in)
	if err != nil {
		t.Fatalf("search %q: %v", in.Query, err)
	}
	return r
}

// rankOf returns the position of id among the hits, or -1.
func rankOf(r SearchResult, id string) int {
	return slices.IndexFunc(r.Hits, func(h Hit) bool { return h.Leaf.ID == id })
}

func TestCorrectionChangesTheAnswer(t *testing.T) {
	clk := &clock{}
	s := openAt(t, t.TempDir(), clk)
	clk.set("2024-03-11")
	madrid := saveIn(t, s, SaveInput{Caller: alice, Content: "I live in Madrid.", Date: "2024-03-11", Scope: ScopeGlobal})
	clk.set("2025-09-02")
	valencia := saveIn(t, s, SaveInput{Caller: alice, Content: "I moved to Valencia.", Date: "2025-09-02", Scope: ScopeGlobal})
	if len(valencia.Corrections) != 1 || valencia.Corrections[0].OldID != madrid.Leaf.ID {
		t.Fatalf("the save should report superseding Madrid: %+v", valencia.Corrections)
	}

	now := find(t, s, SearchInput{Query: "where do I live?"})
	if now.Verdict != Found || len(now.Hits) < 2 || now.Hits[0].Leaf.ID != valencia.Leaf.ID {
		t.Fatalf("now: want Valencia first and found, got %v %+v", now.Verdict, ids(now))
	}
	old := now.Hits[rankOf(now, madrid.Leaf.ID)]
	want := "On 2024-03-11 you said you live in Madrid; on 2025-09-02 you said Valencia."
	if old.Current || len(old.Notices) == 0 || !strings.Contains(old.Notices[0], want) {
		t.Fatalf("Madrid should be outdated with the notice %q, got current=%v %q", want, old.Current, old.Notices)
	}
	if !now.Hits[0].Current || len(now.Hits[0].Notices) != 0 {
		t.Fatalf("Valencia is current and carries no notice: %+v", now.Hits[0])
	}

	then := find(t, s, SearchInput{Query: "where do I live?", AsOf: "2024-12-31"})
	if len(then.Hits) == 0 || then.Hits[0].Leaf.ID != madrid.Leaf.ID || !then.Hits[0].Current || rankOf(then, valencia.Leaf.ID) >= 0 {
		t.Fatalf("as_of 2024-12-31: want Madrid alone, current; got %v", ids(then))
	}
	known := find(t, s, SearchInput{Query: "where do I live?", KnownAt: "2025-09-01"})
	if len(known.Hits) == 0 || known.Hits[0].Leaf.ID != madrid.Leaf.ID || !known.Hits[0].Current {
		t.Fatalf("known_at the day before Valencia was recorded: want Madrid, got %v", ids(known))
	}

	// The timeline and the answer survive a restart, and a rebuild from the
	// leaf files alone (the log set aside).
	before := factsJSON(t, s)
	dir := s.dir
	s.Close()
	s = openAt(t, dir, clk)
	if got := factsJSON(t, s); got != before {
		t.Fatalf("facts changed across a restart:\nbefore %s\nafter  %s", before, got)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, factsName)); err != nil {
		t.Fatalf("no facts snapshot after a close: %v", err)
	}
	// A damaged snapshot is derived data: ignored and rebuilt.
	os.WriteFile(filepath.Join(dir, factsName), []byte("garbage"), 0o600)
	s = openAt(t, dir, clk)
	if got := factsJSON(t, s); got != before {
		t.Fatalf("facts changed with a damaged snapshot:\nbefore %s\nafter  %s", before, got)
	}
	s.Flush()
	s.Close()
	if err := os.Rename(filepath.Join(dir, logName), filepath.Join(dir, "log.aside")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, factsName))
	s = openAt(t, dir, clk)
	if got := factsJSON(t, s); got != before {
		t.Fatalf("facts changed when rebuilt from the leaves:\nbefore %s\nafter  %s", before, got)
	}
	if r := find(t, s, SearchInput{Query: "where do I live?"}); r.Hits[0].Leaf.ID != valencia.Leaf.ID {
		t.Fatalf("after rebuild: %v", ids(r))
	}
}

// factsJSON renders the store's facts, timelines and supersessions for
// comparison.
func factsJSON(t *testing.T, s *Store) string {
	t.Helper()
	f, err := s.Facts(alice, "", "", "", ScopeAll)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Conflicts(alice, ScopeAll)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal([]any{f, c})
	return string(b)
}

func TestRevertAndBackdated(t *testing.T) {
	clk := &clock{}
	clk.set("2026-01-01")
	s := openAt(t, t.TempDir(), clk)
	a1 := saveIn(t, s, SaveInput{Caller: alice, Content: "My editor is Neovim.", Date: "2024-01-10", Scope: ScopeGlobal})
	b := saveIn(t, s, SaveInput{Caller: alice, Content: "My editor is now Helix.", Date: "2025-02-01", Scope: ScopeGlobal})
	a2 := saveIn(t, s, SaveInput{Caller: alice, Content: "Back to Neovim: my editor is Neovim again.", Date: "2025-11-20", Scope: ScopeGlobal})
	r := find(t, s, SearchInput{Query: "which editor do I use?", Limit: 10})
	if r.Hits[0].Leaf.ID != a2.Leaf.ID && r.Hits[0].Leaf.ID != a1.Leaf.ID {
		t.Fatalf("after A → B → A the Neovim memories lead: %v", ids(r))
	}
	for _, h := range r.Hits {
		switch h.Leaf.ID {
		case a1.Leaf.ID, a2.Leaf.ID:
			if !h.Current || len(h.Notices) > 0 {
				t.Errorf("%q is current again and must carry no stale notice: %q", h.Leaf.Text, h.Notices)
			}
		case b.Leaf.ID:
			if h.Current {
				t.Errorf("Helix is history after the revert")
			}
		}
	}
	if i := rankOf(r, b.Leaf.ID); i >= 0 && i < rankOf(r, a2.Leaf.ID) {
		t.Errorf("Helix outranks the current Neovim: %v", ids(r))
	}

	// A backdated old value saved after its correction is history at once.
	cur := saveIn(t, s, SaveInput{Caller: alice, Content: "Our CI runs on GitHub Actions.", Date: "2025-06-01", Scope: ScopeGlobal})
	late := saveIn(t, s, SaveInput{Caller: alice, Content: "Our CI runs on Jenkins.", Date: "2023-01-01", Scope: ScopeGlobal})
	r = find(t, s, SearchInput{Query: "where does our CI run?"})
	if r.Hits[0].Leaf.ID != cur.Leaf.ID || rankOf(r, late.Leaf.ID) < 0 || r.Hits[rankOf(r, late.Leaf.ID)].Current {
		t.Fatalf("the backdated Jenkins memory must not become current: %v", ids(r))
	}
}

func TestReplacesLinksACorrection(t *testing.T) {
	s := open(t, t.TempDir())
	old := save(t, s, alice, "Deploys go out through the Friday release train.", ScopeGlobal)
	// Worded completely differently: no fact pattern connects them.
	nw := saveIn(t, s, SaveInput{Caller: alice, Content: "We ship continuously now, every merge to main is live within minutes.", Scope: ScopeGlobal, Replaces: "Friday release train"})
	if nw.Status != Saved || len(nw.Leaf.Corrects) != 1 || nw.Leaf.Corrects[0].ID != old.Leaf.ID {
		t.Fatalf("replaces by words should link the one clear candidate: %+v", nw)
	}
	if len(nw.Corrections) != 1 || !strings.Contains(nw.Corrections[0].Notice, nw.Leaf.ID) {
		t.Fatalf("corrections = %+v", nw.Corrections)
	}
	r := find(t, s, SearchInput{Query: "how do deploys go out, release train?"})
	if r.Hits[0].Leaf.ID != nw.Leaf.ID || r.Hits[rankOf(r, old.Leaf.ID)].Current {
		t.Fatalf("the linked correction must win: %v", ids(r))
	}

	// Two plausible candidates: both come back, nothing is linked, and
	// mark_outdated finishes the job.
	c1 := save(t, s, alice, "Redis handles the session cache for the web app.", ScopeGlobal)
	c2 := save(t, s, alice, "Memcached handles the page cache for the API.", ScopeGlobal)
	amb := saveIn(t, s, SaveInput{Caller: alice, Content: "Caching moved into the app process; there is no separate box any more.", Scope: ScopeGlobal, Replaces: "cache"})
	if len(amb.Candidates) != 2 || len(amb.Leaf.Corrects) != 0 || !strings.Contains(amb.Message, "mark_outdated") {
		t.Fatalf("want both candidates and no link: %+v", amb)
	}
	got := []string{amb.Candidates[0].Leaf.ID, amb.Candidates[1].Leaf.ID}
	if !slices.Contains(got, c1.Leaf.ID) || !slices.Contains(got, c2.Leaf.ID) {
		t.Fatalf("candidates %v, want %s and %s", got, c1.Leaf.ID, c2.Leaf.ID)
	}
	lr, err := s.MarkOutdated(context.Background(), alice, c1.Leaf.ID, amb.Leaf.ID)
	if err != nil || lr.PendingReview {
		t.Fatalf("mark outdated: %+v %v", lr, err)
	}
	// Idempotent.
	if _, err := s.MarkOutdated(context.Background(), alice, c1.Leaf.ID, amb.Leaf.ID); err != nil {
		t.Fatal(err)
	}
	r = find(t, s, SearchInput{Query: "redis session cache web app", Limit: 10})
	if r.Hits[0].Leaf.ID != amb.Leaf.ID {
		t.Fatalf("after mark_outdated the correction comes first: %v", ids(r))
	}
	if h := r.Hits[rankOf(r, c1.Leaf.ID)]; h.Current || len(h.Notices) == 0 || !strings.Contains(h.Notices[0], "OUTDATED") {
		t.Fatalf("Redis memory should carry an OUTDATED notice: %+v", h)
	}
	// Bad links are refused and change nothing.
	for _, tc := range [][2]string{{c1.Leaf.ID, c1.Leaf.ID}, {"0000000000000000", amb.Leaf.ID}, {"../etc", amb.Leaf.ID}} {
		if _, err := s.MarkOutdated(context.Background(), alice, tc[0], tc[1]); err == nil {
			t.Errorf("MarkOutdated(%s, %s) should fail", tc[0], tc[1])
		}
	}
}

// correctionCase is one row of the shared corrections table.
type correctionCase struct {
	Name, Lang, Old, OldDate, New, NewDate, QuestionNow, QuestionThen, AsOf string
}

func (c *correctionCase) UnmarshalJSON(b []byte) error {
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = correctionCase{m["name"], m["lang"], m["old"], m["old_date"], m["new"], m["new_date"], m["question_now"], m["question_then"], m["as_of"]}
	return nil
}

// TestCorrectionsTable runs every correction of the shared table through
// save and search, with the timeline and without it (plain BM25), and
// reports both pass rates.
func TestCorrectionsTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "timeline", "testdata", "corrections.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []correctionCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 30 {
		t.Fatalf("the table has %d cases, want at least 30", len(cases))
	}
	var passTimeline, passPlain int
	for _, tc := range cases {
		ok := t.Run(tc.Name, func(t *testing.T) {
			s := open(t, t.TempDir())
			old := saveIn(t, s, SaveInput{Caller: alice, Content: tc.Old, Date: tc.OldDate})
			nw := saveIn(t, s, SaveInput{Caller: alice, Content: tc.New, Date: tc.NewDate})
			// Unrelated memories around them, as in a real store.
			for _, f := range []string{"The team standup is at 09:30.", "Lunch is usually at 14:00.", "El repositorio usa Go 1.26."} {
				save(t, s, alice, f, ScopeUnspecified)
			}
			now := find(t, s, SearchInput{Query: tc.QuestionNow, Limit: 10})
			if len(now.Hits) == 0 || now.Hits[0].Leaf.ID != nw.Leaf.ID {
				t.Errorf("now %q: want %q first, got %v", tc.QuestionNow, tc.New, texts(now))
			}
			if i := rankOf(now, old.Leaf.ID); i >= 0 && now.Hits[i].Current {
				t.Errorf("now: the old memory is shown as current")
			}
			then := find(t, s, SearchInput{Query: tc.QuestionThen, AsOf: tc.AsOf, Limit: 10})
			if len(then.Hits) == 0 || then.Hits[0].Leaf.ID != old.Leaf.ID {
				t.Errorf("as_of %s %q: want %q first, got %v", tc.AsOf, tc.QuestionThen, tc.Old, texts(then))
			}
			plain := EvalOptions{Plain: true}
			pn := evaluate(t, s, SearchInput{Query: tc.QuestionNow, Limit: 10}, plain)
			pt := evaluate(t, s, SearchInput{Query: tc.QuestionThen, AsOf: tc.AsOf, Limit: 10}, plain)
			if len(pn.Hits) > 0 && pn.Hits[0].Leaf.ID == nw.Leaf.ID && len(pt.Hits) > 0 && pt.Hits[0].Leaf.ID == old.Leaf.ID {
				passPlain++
			}
		})
		if ok {
			passTimeline++
		}
	}
	t.Logf("corrections table: timeline %d/%d, plain BM25 (timeline off) %d/%d", passTimeline, len(cases), passPlain, len(cases))
}

func texts(r SearchResult) []string {
	return hitsOf(r, func(h Hit) string { return h.Leaf.Text })
}

func TestLinksStayInOneTimeline(t *testing.T) {
	s := open(t, t.TempDir())
	a := save(t, s, alice, "The office coffee machine is on floor three.", ScopeGlobal)
	b := save(t, s, alice, "Coffee is now brewed in the kitchen on floor two.", ScopeGlobal)
	if _, err := s.MarkOutdated(ctx, alice, a.Leaf.ID, b.Leaf.ID); err != nil {
		t.Fatal(err)
	}
	// A link back would leave both outdated: refused.
	if _, err := s.MarkOutdated(ctx, alice, b.Leaf.ID, a.Leaf.ID); err == nil || !strings.Contains(err.Error(), "already corrects") {
		t.Fatalf("a cycle must be refused: %v", err)
	}
	// A project memory cannot correct a global one for everybody...
	p := save(t, s, alice, "In this repo the coffee budget is tracked in finance.md.", ScopeProject)
	if _, err := s.MarkOutdated(ctx, alice, b.Leaf.ID, p.Leaf.ID); err == nil || !strings.Contains(err.Error(), "same scope") {
		t.Fatalf("a cross-scope link must be refused: %v", err)
	}
	// ...so a correction of a global memory made from a project with no
	// scope given is global itself, and changes the answer everywhere.
	c := saveIn(t, s, SaveInput{Caller: alice, Content: "The coffee machine moved to the roof terrace.", Replaces: b.Leaf.ID})
	if c.Leaf.Scope != "global" || c.Leaf.OriginProject != alice.Project || len(c.Leaf.Corrects) != 1 {
		t.Fatalf("correction of a global memory: %+v", c.Leaf.Header)
	}
	r := find(t, s, SearchInput{Caller: bob, Query: "where is the coffee machine?", Limit: 10})
	if r.Hits[0].Leaf.ID != c.Leaf.ID {
		t.Fatalf("from another project the global correction wins: %v", texts(r))
	}
}

// TestFactsSnapshotIsReused: a restart takes facts from the snapshot
// instead of extracting them again; a damaged one is extracted anew.
func TestFactsSnapshotIsReused(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	// The last has no fact: its empty list must be reused too.
	for _, txt := range []string{"I live in Madrid.", "My editor is Neovim.", "Our CI runs on GitHub Actions.", "Remember to water the plants."} {
		save(t, s, alice, txt, ScopeGlobal)
	}
	s.Close()
	extracted := func() string {
		var buf bytes.Buffer
		s, err := Open(dir, Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		m := regexp.MustCompile(`"facts_extracted":(\d+)`).FindStringSubmatch(buf.String())
		if m == nil {
			t.Fatalf("no facts_extracted in %s", buf.String())
		}
		return m[1]
	}
	if n := extracted(); n != "0" {
		t.Fatalf("restart extracted %s texts, want 0 (the snapshot has them)", n)
	}
	os.WriteFile(filepath.Join(dir, factsName), []byte("garbage"), 0o600)
	if n := extracted(); n != "4" {
		t.Fatalf("with a damaged snapshot %s texts extracted, want 4", n)
	}
	if n := extracted(); n != "0" {
		t.Fatalf("after the damaged snapshot was rewritten, a restart extracted %s texts, want 0", n)
	}

	// The store holds only what the snapshot lacks; at close the snapshot
	// gets the new memories' facts and loses a forgotten one's.
	s = open(t, dir)
	if n := len(s.unsaved); n != 0 {
		t.Fatalf("%d memories' facts held beside the snapshot, want 0", n)
	}
	save(t, s, alice, "My shell is fish.", ScopeGlobal)
	gone := save(t, s, alice, "The build server is called hal.", ScopeGlobal)
	if _, err := s.Forget(context.Background(), alice, gone.Leaf.ID, "wrong"); err != nil {
		t.Fatal(err)
	}
	if n := len(s.unsaved); n != 1 {
		t.Fatalf("%d memories' facts unsaved, want 1 (the new live one)", n)
	}
	s.Close()
	if n := extracted(); n != "0" {
		t.Fatalf("a restart after new saves extracted %s texts, want 0", n)
	}
	snap := (&Store{dir: dir, extract: facts.Default()}).loadFacts()
	if _, ok := snap[gone.Leaf.ID]; ok || len(snap) != 5 {
		t.Fatalf("snapshot holds %d memories (forgotten one: %v), want the 5 live ones", len(snap), ok)
	}
}

package timeline

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
)

func date(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// endOfDay is how the store turns a date a caller gives into an AsOf.
func endOfDay(s string) time.Time { return date(s).Add(24*time.Hour - time.Nanosecond) }

// save adds a leaf whose valid and record times are the same day, with
// the facts the default patterns find in text.
func save(t *Timeline, leaf, scope, day, text string) {
	t.Add(Source{Leaf: leaf, Scope: scope, ValidFrom: date(day), RecordedAt: date(day)}, facts.Default().Extract(text))
}

var livesIn = Key{Subject: "user", Attribute: "lives_in"}

func current(t *testing.T, tl *Timeline, k Key, v View) string {
	t.Helper()
	e, ok := tl.Current(k, v)
	if !ok {
		return ""
	}
	return e.Value
}

func TestMadridToValencia(t *testing.T) {
	tl := New()
	save(tl, "madrid", "", "2024-03-11", "I live in Madrid.")
	save(tl, "valencia", "", "2025-09-02", "I moved to Valencia.")

	st := tl.Status("madrid", View{})
	want := Status{
		Outdated:   true,
		Successors: []string{"valencia"},
		Notices:    []string{"OUTDATED: On 2024-03-11 you said you live in Madrid; on 2025-09-02 you said Valencia."},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("Status(madrid) = %+v, want %+v", st, want)
	}
	if st := tl.Status("valencia", View{}); st.Outdated || len(st.Notices) > 0 {
		t.Errorf("Status(valencia) = %+v, want current", st)
	}
	if got := current(t, tl, livesIn, View{}); got != "Valencia" {
		t.Errorf("Current now = %q, want Valencia", got)
	}

	asOf := View{AsOf: endOfDay("2024-12-31")}
	if got := current(t, tl, livesIn, asOf); got != "Madrid" {
		t.Errorf("Current as of 2024-12-31 = %q, want Madrid", got)
	}
	if st := tl.Status("madrid", asOf); st.Outdated {
		t.Errorf("Status(madrid) as of 2024-12-31 = %+v, want not outdated", st)
	}

	knownAt := View{KnownAt: date("2025-09-01")}
	if got := current(t, tl, livesIn, knownAt); got != "Madrid" {
		t.Errorf("Current known at 2025-09-01 = %q, want Madrid", got)
	}
	if st := tl.Status("madrid", knownAt); st.Outdated {
		t.Errorf("Status(madrid) known at 2025-09-01 = %+v, want not outdated", st)
	}

	hist := tl.History(livesIn, View{})
	if len(hist) != 2 || hist[0].Value != "Madrid" || !hist[0].ValidTo.Equal(date("2025-09-02")) ||
		!hist[0].SupersededAt.Equal(date("2025-09-02")) || !hist[1].ValidTo.IsZero() || !hist[1].SupersededAt.IsZero() {
		t.Errorf("History = %+v", hist)
	}
}

func TestRevertIsCurrentWithoutStaleNotice(t *testing.T) {
	tl := New()
	save(tl, "a1", "", "2024-01-10", "My editor is Vim.")
	save(tl, "b", "", "2025-01-10", "My editor is Emacs.")
	save(tl, "a2", "", "2026-01-10", "My editor is vim again.")
	editor := Key{Subject: "user", Attribute: "editor"}
	if got := current(t, tl, editor, View{}); !strings.EqualFold(got, "vim") {
		t.Fatalf("Current = %q, want vim", got)
	}
	for _, leaf := range []string{"a1", "a2"} {
		if st := tl.Status(leaf, View{}); st.Outdated || len(st.Notices) > 0 || len(st.Successors) > 0 {
			t.Errorf("Status(%s) = %+v, want current and silent", leaf, st)
		}
	}
	st := tl.Status("b", View{})
	if !st.Outdated || len(st.Notices) != 1 || !strings.Contains(st.Notices[0], "on 2026-01-10 you said vim") {
		t.Errorf("Status(b) = %+v, want outdated by the 2026 statement", st)
	}
	// As of 2025, Emacs was current and Vim outdated.
	in2025 := View{AsOf: endOfDay("2025-06-01")}
	if st := tl.Status("a1", in2025); !st.Outdated || st.Successors[0] != "b" {
		t.Errorf("Status(a1) in 2025 = %+v, want outdated by b", st)
	}
	if c := tl.Conflicts(nil); len(c) != 2 {
		t.Errorf("Conflicts = %+v, want 2 changes", c)
	}
}

func TestBackdatedOldValueStaysHistory(t *testing.T) {
	tl := New()
	tl.Add(Source{Leaf: "new", ValidFrom: date("2025-09-02"), RecordedAt: date("2025-09-02")},
		facts.Default().Extract("I moved to Valencia."))
	// Saved later, about earlier.
	tl.Add(Source{Leaf: "old", ValidFrom: date("2024-03-11"), RecordedAt: date("2025-10-01")},
		facts.Default().Extract("I live in Madrid."))
	if got := current(t, tl, livesIn, View{}); got != "Valencia" {
		t.Fatalf("Current = %q, want Valencia", got)
	}
	st := tl.Status("old", View{})
	if !st.Outdated || !reflect.DeepEqual(st.Successors, []string{"new"}) {
		t.Errorf("Status(old) = %+v, want outdated by new", st)
	}
	hist := tl.History(livesIn, View{})
	if hist[0].Leaf != "old" || !hist[0].SupersededAt.Equal(date("2025-10-01")) {
		t.Errorf("History[0] = %+v, want old, superseded when it was recorded", hist[0])
	}
	// Before the old one was recorded the memory knew only Valencia.
	if h := tl.History(livesIn, View{KnownAt: date("2025-09-30")}); len(h) != 1 {
		t.Errorf("History known at 2025-09-30 = %+v, want only Valencia", h)
	}
}

func TestConfirmationIsNotAChange(t *testing.T) {
	tl := New()
	save(tl, "v1", "", "2025-01-01", "I live in Valencia.")
	save(tl, "v2", "", "2025-06-01", "Vivo en  VALENCIA, cerca del puerto.")
	save(tl, "l", "", "2026-01-01", "I moved to Lisbon.")
	if st := tl.Status("v1", View{AsOf: endOfDay("2025-12-31")}); st.Outdated {
		t.Errorf("confirmed v1 outdated before Lisbon: %+v", st)
	}
	st := tl.Status("v1", View{})
	// The notice dates the value from when it began; the successors name
	// the most recent statement and the one that made the change.
	if len(st.Notices) != 1 || !strings.Contains(st.Notices[0], "on 2026-01-01 you said Lisbon") {
		t.Errorf("Status(v1) = %+v", st)
	}
	hist := tl.History(livesIn, View{})
	if !hist[0].ValidTo.Equal(date("2026-01-01")) || !hist[1].ValidTo.Equal(date("2026-01-01")) {
		t.Errorf("confirmations should share the end of their run: %+v", hist)
	}
	if c := tl.Conflicts(nil); len(c) != 1 || c[0].Old.Leaf != "v1" || c[0].New.Leaf != "l" {
		t.Errorf("Conflicts = %+v, want one change v1 → l", c)
	}
	// Successors of the superseded value: the most recent statement of the
	// current value first, then the one that made the change.
	save(tl, "l2", "", "2026-03-01", "I live in Lisbon.")
	if st := tl.Status("v2", View{}); !reflect.DeepEqual(st.Successors, []string{"l2", "l"}) {
		t.Errorf("Successors = %v, want [l2 l]", st.Successors)
	}
}

func TestForgetAndRestore(t *testing.T) {
	tl := New()
	save(tl, "madrid", "", "2024-03-11", "I live in Madrid.")
	save(tl, "valencia", "", "2025-09-02", "I moved to Valencia.")
	tl.Link("madrid", "valencia", date("2025-09-03"))
	before := tl.Status("madrid", View{})

	tl.Remove("valencia")
	if got := current(t, tl, livesIn, View{}); got != "Madrid" {
		t.Errorf("after forget, Current = %q, want Madrid", got)
	}
	if st := tl.Status("madrid", View{}); st.Outdated {
		t.Errorf("after forget, Status(madrid) = %+v, want current", st)
	}
	if tl.Leaves() != 1 || tl.Facts() != 1 || len(tl.links) != 0 || len(tl.back) != 0 {
		t.Errorf("after forget: %d leaves, %d facts, links %v %v", tl.Leaves(), tl.Facts(), tl.links, tl.back)
	}

	save(tl, "valencia", "", "2025-09-02", "I moved to Valencia.")
	tl.Link("madrid", "valencia", date("2025-09-03"))
	if after := tl.Status("madrid", View{}); !reflect.DeepEqual(after, before) {
		t.Errorf("after restore, Status(madrid) = %+v, want %+v", after, before)
	}

	// Forgetting the old one takes it out of every timeline too.
	tl.Remove("madrid")
	if h := tl.History(livesIn, View{}); len(h) != 1 || h[0].Leaf != "valencia" {
		t.Errorf("History after forgetting madrid = %+v", h)
	}
	tl.Remove("valencia")
	if len(tl.Keys(nil, "")) != 0 || len(tl.byValue) != 0 || tl.Leaves() != 0 || tl.Facts() != 0 {
		t.Errorf("timeline not empty after forgetting everything: keys %v, values %v", tl.Keys(nil, ""), tl.byValue)
	}
}

func TestExplicitLink(t *testing.T) {
	tl := New()
	// Worded so that no shared fact relates them.
	save(tl, "old", "", "2024-05-01", "The release train leaves every second Tuesday.")
	save(tl, "new", "", "2024-09-01", "We ship whenever main is green now; no more trains.")
	tl.Link("old", "new", date("2024-09-02"))
	tl.Link("old", "new", date("2030-01-01")) // idempotent: the first record time stands

	if st := tl.Status("old", View{}); !st.Outdated || !reflect.DeepEqual(st.Successors, []string{"new"}) || len(st.Notices) != 0 {
		t.Errorf("Status(old) = %+v, want outdated by new, no notice", st)
	}
	if st := tl.Status("old", View{KnownAt: date("2024-09-01")}); st.Outdated {
		t.Errorf("known before the link: %+v, want current", st)
	}
	if st := tl.Status("old", View{KnownAt: date("2024-09-02")}); !st.Outdated {
		t.Errorf("known at the link: %+v, want outdated", st)
	}
	if st := tl.Status("old", View{AsOf: endOfDay("2024-08-31")}); st.Outdated {
		t.Errorf("as of before the new one was true: %+v, want current", st)
	}
	if st := tl.Status("new", View{}); st.Outdated {
		t.Errorf("Status(new) = %+v", st)
	}

	// Chains: the newest end first.
	save(tl, "newer", "", "2025-01-01", "Releases are continuous, see the deploy doc.")
	tl.Link("new", "newer", date("2025-01-02"))
	if st := tl.Status("old", View{}); !reflect.DeepEqual(st.Successors, []string{"newer", "new"}) {
		t.Errorf("chain successors = %v, want [newer new]", st.Successors)
	}
	// A link to a leaf the timeline does not hold is not in effect.
	tl.Link("newer", "ghost", date("2025-02-01"))
	if st := tl.Status("newer", View{}); st.Outdated {
		t.Errorf("link to an unknown leaf took effect: %+v", st)
	}
	// Self links and cycles do nothing harmful.
	tl.Link("newer", "newer", date("2025-02-01"))
	tl.Link("newer", "old", date("2025-02-01"))
	_ = tl.Status("old", View{})
}

func TestLinkRetractsFacts(t *testing.T) {
	tl := New()
	save(tl, "barcelona", "", "2020-01-01", "I live in Barcelona.")
	save(tl, "madrid", "", "2024-03-11", "I live in Madrid.")
	save(tl, "fix", "", "2024-04-01", "Correction: that note about Madrid was wrong.")
	tl.Link("madrid", "fix", date("2024-04-01"))
	if got := current(t, tl, livesIn, View{}); got != "Barcelona" {
		t.Errorf("Current = %q, want Barcelona (the retracted statement no longer counts)", got)
	}
	if got := current(t, tl, livesIn, View{KnownAt: date("2024-03-31")}); got != "Madrid" {
		t.Errorf("Current before the retraction was known = %q, want Madrid", got)
	}
	if st := tl.Status("barcelona", View{}); st.Outdated {
		t.Errorf("Status(barcelona) = %+v, want current", st)
	}
	hist := tl.History(livesIn, View{})
	if len(hist) != 2 || hist[1].Leaf != "madrid" || !hist[1].RetractedAt.Equal(date("2024-04-01")) || !hist[0].ValidTo.IsZero() {
		t.Errorf("History = %+v", hist)
	}
	if c := tl.Conflicts(nil); len(c) != 0 {
		t.Errorf("Conflicts = %+v, want none (a retraction is not a change of value)", c)
	}
}

func TestScopesNeverCross(t *testing.T) {
	tl := New()
	save(tl, "global", "", "2024-01-01", "The staging database is PostgreSQL 15.")
	save(tl, "a-old", "github.com/acme/a", "2024-01-01", "The staging database is PostgreSQL 16.")
	save(tl, "b", "github.com/acme/b", "2024-06-01", "The staging database is MySQL 8.")
	save(tl, "a-new", "github.com/acme/a", "2025-01-01", "The staging database is now PostgreSQL 17.")

	if st := tl.Status("a-old", View{}); !st.Outdated || st.Successors[0] != "a-new" {
		t.Errorf("Status(a-old) = %+v, want outdated by a-new", st)
	}
	for _, leaf := range []string{"global", "b", "a-new"} {
		if st := tl.Status(leaf, View{}); st.Outdated {
			t.Errorf("Status(%s) = %+v: a fact crossed scopes", leaf, st)
		}
	}
	onlyA := func(s string) bool { return s == "github.com/acme/a" }
	if k := tl.Keys(onlyA, "staging"); len(k) != 1 || k[0].Scope != "github.com/acme/a" {
		t.Errorf("Keys(a) = %v", k)
	}
	if c := tl.Conflicts(onlyA); len(c) != 1 || c[0].Old.Leaf != "a-old" {
		t.Errorf("Conflicts(a) = %+v", c)
	}
	if c := tl.Conflicts(func(s string) bool { return s == "" }); len(c) != 0 {
		t.Errorf("Conflicts(global) = %+v, want none", c)
	}
	// A switch in project b does not resolve against project a's values.
	save(tl, "b-switch", "github.com/acme/b", "2025-02-01", "We switched from PostgreSQL 17 to CockroachDB.")
	if st := tl.Status("a-new", View{}); st.Outdated {
		t.Errorf("a switch in b outdated a: %+v", st)
	}
}

func TestSwitchedFromResolves(t *testing.T) {
	tl := New()
	save(tl, "jest", "", "2024-01-01", "We use Jest for unit tests.")
	save(tl, "switch", "", "2025-01-01", "We switched from jest to Vitest.")
	key := Key{Subject: "unit tests", Attribute: "tool"}
	if got := current(t, tl, key, View{}); got != "Vitest" {
		t.Errorf("Current(%v) = %q, want Vitest (From resolved to the key holding Jest)", key, got)
	}
	st := tl.Status("jest", View{})
	if !st.Outdated || len(st.Notices) != 1 ||
		st.Notices[0] != "OUTDATED: On 2024-01-01 you said you use Jest for unit tests; on 2025-01-01 you said Vitest." {
		t.Errorf("Status(jest) = %+v", st)
	}

	if e := tl.Entries("switch"); len(e) != 1 || e[0].Key != key || e[0].Value != "Vitest" {
		t.Errorf("Entries(switch) = %+v, want the resolved key", e)
	}
	if e := tl.Entries("nobody"); e != nil {
		t.Errorf("Entries(nobody) = %+v", e)
	}

	// Unresolvable: a timeline of its own, which the next switch continues.
	save(tl, "vim", "", "2024-01-01", "I switched from Vim to Neovim.")
	save(tl, "helix", "", "2025-01-01", "I switched from Neovim to Helix.")
	k := Key{Subject: "vim", Attribute: "switched_to"}
	if got := current(t, tl, k, View{}); got != "Helix" {
		t.Errorf("Current(%v) = %q, want Helix", k, got)
	}
	if st := tl.Status("vim", View{}); !st.Outdated || st.Successors[0] != "helix" {
		t.Errorf("Status(vim) = %+v", st)
	}

	// With a subject but no attribute: found by value within the subject.
	save(tl, "pg16", "", "2024-01-01", "The staging database is PostgreSQL 16.")
	save(tl, "pg17", "", "2025-01-01", "We migrated the staging database from PostgreSQL 16 to PostgreSQL 17.")
	if got := current(t, tl, Key{Subject: "staging database", Attribute: "is"}, View{}); got != "PostgreSQL 17" {
		t.Errorf("staging database is %q, want PostgreSQL 17", got)
	}
}

func TestAddIsIdempotentAndLastStatementWins(t *testing.T) {
	tl := New()
	src := Source{Leaf: "x", ValidFrom: date("2025-01-01"), RecordedAt: date("2025-01-01")}
	fs := []facts.Fact{
		{Subject: "user", Attribute: "lives_in", Value: "Madrid", Phrase: "you live in Madrid"},
		{Subject: "user", Attribute: "lives_in", Value: "Valencia", Phrase: "you moved to Valencia"},
		{Subject: "user", Attribute: "employer", Value: "  "},
		{Value: "orphan"}, // neither key nor From: ignored
	}
	tl.Add(src, fs)
	tl.Add(src, fs)
	tl.Add(Source{Leaf: "x", ValidFrom: date("2030-01-01")}, []facts.Fact{{Subject: "a", Attribute: "b", Value: "c"}})
	if tl.Facts() != 1 || tl.Leaves() != 1 {
		t.Fatalf("Facts %d Leaves %d, want 1 and 1", tl.Facts(), tl.Leaves())
	}
	if got := current(t, tl, livesIn, View{}); got != "Valencia" {
		t.Errorf("Current = %q, want Valencia", got)
	}
	tl.Add(Source{Leaf: ""}, fs) // no leaf, nothing to file
	if tl.Facts() != 1 {
		t.Errorf("a fact without a leaf was filed")
	}
}

// TestLastStatementWinsInALongText: a long text states many facts, some
// keys more than once; the last value of each key counts, as in a short one.
func TestLastStatementWinsInALongText(t *testing.T) {
	tl := New()
	var fs []facts.Fact
	for i := range 100 {
		k := i % 30
		fs = append(fs, facts.Fact{Subject: fmt.Sprintf("service %d", k), Attribute: "port", Value: fmt.Sprint(8000 + i)})
	}
	tl.Add(Source{Leaf: "long", ValidFrom: date("2025-01-01"), RecordedAt: date("2025-01-01")}, fs)
	if tl.Facts() != 30 {
		t.Fatalf("Facts = %d, want one per key: 30", tl.Facts())
	}
	for k := range 30 {
		want := fmt.Sprint(8000 + 90 + k)
		if k >= 10 {
			want = fmt.Sprint(8000 + 60 + k)
		}
		if e, ok := tl.Current(Key{Subject: fmt.Sprintf("service %d", k), Attribute: "port"}, View{}); !ok || e.Value != want {
			t.Errorf("service %d: Current = %q, %v; want %s", k, e.Value, ok, want)
		}
	}
	if got := tl.Entries("long"); len(got) != 30 || got[0].Key.Subject != "service 0" || got[29].Key.Subject != "service 29" {
		t.Errorf("Entries: %d, want 30 in the order the keys were first stated", len(got))
	}
}

func TestOrderTiesAndUnknowns(t *testing.T) {
	tl := New()
	d := date("2025-01-01")
	// Same valid time: the later record wins; same record time: leaf id.
	tl.Add(Source{Leaf: "b", ValidFrom: d, RecordedAt: d.Add(time.Hour)}, []facts.Fact{{Subject: "s", Attribute: "a", Value: "two"}})
	tl.Add(Source{Leaf: "a", ValidFrom: d, RecordedAt: d}, []facts.Fact{{Subject: "s", Attribute: "a", Value: "one"}})
	tl.Add(Source{Leaf: "c", ValidFrom: d, RecordedAt: d.Add(time.Hour)}, []facts.Fact{{Subject: "s", Attribute: "a", Value: "three"}})
	k := Key{Subject: "s", Attribute: "a"}
	if got := current(t, tl, k, View{}); got != "three" {
		t.Errorf("Current = %q, want three", got)
	}
	if _, ok := tl.Current(Key{Subject: "nobody"}, View{}); ok {
		t.Error("Current of an unknown key")
	}
	if st := tl.Status("unknown", View{}); st.Outdated || st.Successors != nil {
		t.Errorf("Status(unknown) = %+v", st)
	}
	if h := tl.History(Key{Subject: "nobody"}, View{}); h != nil {
		t.Errorf("History(unknown) = %+v", h)
	}
	// Not yet valid: invisible, and not outdated.
	if _, ok := tl.Current(k, View{AsOf: date("2024-12-31")}); ok {
		t.Error("Current before anything was valid")
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  Málaga ", "malaga"},
		{"PostgreSQL\t 17", "postgresql 17"},
		{"Straße", "strasse"},
		{"Çà et là", "ca et la"},
		{"e\u0301", "e"}, // decomposed accent
		{"", ""},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFoldedShortcut: Fold returns a value it recognises as already folded
// without building it again; that must be the very string building it
// would give.
func TestFoldedShortcut(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	alphabet := []string{"a", "z", "A", "Q", "0", "9", ".", "-", " ", " ", "\t", "\n", "é", "\u0301", "ß", "\u00a0"}
	shortcuts := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if folded(s) {
			shortcuts++
			if slow := fold(s); slow != s {
				t.Fatalf("%q taken as folded, but folding gives %q", s, slow)
			}
		}
		if Fold(s) != fold(s) {
			t.Fatalf("Fold(%q) = %q, want %q", s, Fold(s), fold(s))
		}
	}
	if shortcuts < 1000 {
		t.Fatalf("only %d of 20000 strings took the shortcut: the test does not exercise it", shortcuts)
	}
}

// Outdated is Status without the notices, in every view: facts, a value
// that came back, an explicit link, and a leaf with nothing to say.
func TestOutdatedIsStatusWithoutNotices(t *testing.T) {
	tl := New()
	save(tl, "madrid", "", "2024-03-11", "I live in Madrid.")
	save(tl, "valencia", "", "2025-09-02", "I moved to Valencia.")
	save(tl, "madrid2", "", "2026-01-10", "I moved back to Madrid.")
	save(tl, "old-ci", "", "2024-01-01", "The CI runs on Jenkins.")
	save(tl, "new-ci", "", "2025-01-01", "Builds now happen elsewhere.")
	tl.Link("old-ci", "new-ci", date("2025-01-01"))
	views := []View{{}, {AsOf: endOfDay("2025-12-31")}, {KnownAt: date("2024-06-01")}}
	outdated := 0
	for _, v := range views {
		for _, leaf := range []string{"madrid", "valencia", "madrid2", "old-ci", "new-ci", "unknown"} {
			st, got := tl.Status(leaf, v), tl.Outdated(leaf, v)
			if got.Notices != nil {
				t.Errorf("Outdated(%s, %+v) has notices %q", leaf, v, got.Notices)
			}
			st.Notices = nil
			if !reflect.DeepEqual(got, st) {
				t.Errorf("Outdated(%s, %+v) = %+v, Status says %+v", leaf, v, got, st)
			}
			if got.Outdated {
				outdated++
			}
		}
	}
	if outdated < 3 { // positive control: the cases above do go out of date
		t.Fatalf("only %d outdated statuses: the test compares nothing", outdated)
	}
}

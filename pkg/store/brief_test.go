package store_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

var (
	briefAlpha = store.Caller{Agent: leaf.Agent{Name: "claude-code"}, Session: "b1", Project: "github.com/org/alpha"}
	briefBeta  = store.Caller{Agent: leaf.Agent{Name: "codex"}, Session: "b2", Project: "github.com/org/beta"}
	briefNone  = store.Caller{Agent: leaf.Agent{Name: "opencode"}, Session: "b3"}
)

func briefOpen(t *testing.T, dir string) *store.Store {
	t.Helper()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func briefSave(t *testing.T, s *store.Store, c store.Caller, date, text string, scope store.Scope) string {
	t.Helper()
	r, err := s.Save(context.Background(), store.SaveInput{Caller: c, Content: text, Date: date, Scope: scope})
	if err != nil {
		t.Fatalf("save %q: %v", text, err)
	}
	return r.Leaf.ID
}

func brief(t *testing.T, s *store.Store, c store.Caller, budget int) store.Briefing {
	t.Helper()
	b, err := s.Brief(store.BriefInput{Caller: c, MaxTokens: budget})
	if err != nil {
		t.Fatalf("brief (budget %d): %v", budget, err)
	}
	return b
}

// fillProject saves n project memories of alpha, one a day, oldest first,
// and returns their ids newest first: the order a briefing lists them in.
// Each is about a thing of its own, so none is a version of another (a
// briefing lists only current memories).
func fillProject(t *testing.T, s *store.Store, n int) []string {
	ids := make([]string, n)
	for i := range n {
		text := fmt.Sprintf("%s: %s of %s, number %d.", nonce("wrk", i), nonce("rb", i), nonce("q", i), i)
		date := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly)
		ids[n-1-i] = briefSave(t, s, briefAlpha, date, text, store.ScopeProject)
	}
	return ids
}

// nonce is a word of its own for i: "wrkbc".
func nonce(prefix string, i int) string {
	return prefix + string(rune('b'+i/20)) + string(rune('b'+i%20))
}

var leftOutLine = regexp.MustCompile(`(?m)^(\d+) more left out\. `)

// TestBriefBudgetCutsWholeLines: whatever the budget, the briefing fits it,
// every item it lists is a whole line of its text, what it lists is the top
// of the order with nothing skipped, and the last line counts exactly the
// items left out.
func TestBriefBudgetCutsWholeLines(t *testing.T) {
	s := briefOpen(t, t.TempDir())
	order := fillProject(t, s, 60)
	prevShown := 0
	for _, budget := range []int{store.MinBriefTokens, 200, 400, store.DefaultBriefTokens, 2000, store.MaxBriefTokens} {
		t.Run(strconv.Itoa(budget), func(t *testing.T) {
			b := brief(t, s, briefAlpha, budget)
			if b.Tokens > budget || b.Tokens == 0 {
				t.Fatalf("%d tokens for a budget of %d", b.Tokens, budget)
			}
			if got := (len(b.Text) + 3) / 4; got > budget*4 {
				t.Fatalf("text of %d bytes for a budget of %d tokens", len(b.Text), budget)
			}
			lines := strings.Split(b.Text, "\n")
			for i, it := range b.Items {
				if !containsLine(lines, "- "+it.Text) {
					t.Fatalf("item %d is not a whole line of the text: %q", i, it.Text)
				}
				if it.ID != order[i] {
					t.Fatalf("item %d is %s, want %s (the %d-th newest): the cut skipped or reordered", i, it.ID, order[i], i+1)
				}
				if !strings.Contains(it.Text, "(id "+it.ID+")") {
					t.Fatalf("item %d does not name its id: %q", i, it.Text)
				}
			}
			if len(b.Items)+b.LeftOut != len(order) {
				t.Fatalf("%d shown + %d left out, want %d in all", len(b.Items), b.LeftOut, len(order))
			}
			m := leftOutLine.FindStringSubmatch(b.Text)
			switch {
			case b.LeftOut > 0 && (m == nil || m[1] != strconv.Itoa(b.LeftOut)):
				t.Fatalf("left out %d, but the text says %v:\n%s", b.LeftOut, m, b.Text)
			case b.LeftOut == 0 && m != nil:
				t.Fatalf("nothing left out, but the text says %q", m[0])
			}
			if !strings.Contains(b.Text, "search_memory") {
				t.Fatalf("no line says how to search for more:\n%s", b.Text)
			}
			if len(b.Items) < prevShown {
				t.Fatalf("a budget of %d shows %d items, fewer than a smaller budget's %d", budget, len(b.Items), prevShown)
			}
			prevShown = len(b.Items)
		})
	}
	// The largest budget holds all 60 (positive control for the cut).
	if b := brief(t, s, briefAlpha, store.MaxBriefTokens); b.LeftOut != 0 {
		t.Fatalf("a budget of %d leaves %d out of 60 short memories", store.MaxBriefTokens, b.LeftOut)
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func TestBriefBudgetRange(t *testing.T) {
	s := briefOpen(t, t.TempDir())
	briefSave(t, s, briefAlpha, "2025-01-01", "The alpha build runs on Go 1.26.", store.ScopeProject)
	for _, tc := range []struct {
		budget int
		ok     bool
	}{{0, true}, {store.MinBriefTokens, true}, {store.MaxBriefTokens, true}, {store.MinBriefTokens - 1, false}, {-5, false}, {store.MaxBriefTokens + 1, false}} {
		_, err := s.Brief(store.BriefInput{Caller: briefAlpha, MaxTokens: tc.budget})
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, store.ErrInvalid)) {
			t.Errorf("budget %d: err %v, want ok=%v (else ErrInvalid)", tc.budget, err, tc.ok)
		}
	}
	if _, err := s.Brief(store.BriefInput{Caller: store.Caller{Agent: leaf.Agent{Name: "x\x01"}}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a caller with a control character: %v, want ErrInvalid", err)
	}
}

// TestBriefDeterministic: the same store gives the same briefing, byte for
// byte, asked twice and after a restart.
func TestBriefDeterministic(t *testing.T) {
	dir := t.TempDir()
	s := briefOpen(t, dir)
	fillProject(t, s, 30)
	// Same valid date: the order falls to record time, then the id.
	for i := range 5 {
		briefSave(t, s, briefAlpha, "2025-02-01", fmt.Sprintf("Same-day alpha note %d about the cache warmer.", i), store.ScopeProject)
	}
	briefSave(t, s, briefAlpha, "2024-03-01", "I live in Zaragoza.", store.ScopeGlobal)
	briefSave(t, s, briefAlpha, "2025-03-10", "I live in Valencia now.", store.ScopeGlobal)
	first := brief(t, s, briefAlpha, 600)
	if again := brief(t, s, briefAlpha, 600); again.Text != first.Text {
		t.Fatalf("asked twice, two briefings:\n%s\n---\n%s", first.Text, again.Text)
	}
	s.Close()
	s2 := briefOpen(t, dir)
	if reopened := brief(t, s2, briefAlpha, 600); reopened.Text != first.Text {
		t.Fatalf("after a restart, another briefing:\n%s\n---\n%s", first.Text, reopened.Text)
	}
}

// TestBriefScope: global memories and the caller's project only; another
// project's never; with no project, global only. Superseded values are not
// current and never shown.
func TestBriefScope(t *testing.T) {
	s := briefOpen(t, t.TempDir())
	alpha := briefSave(t, s, briefAlpha, "2025-05-01", "Alpha's staging deploys from the release-alpha branch every Tuesday.", store.ScopeProject)
	beta := briefSave(t, s, briefBeta, "2025-05-02", "Beta's staging deploys from the release-beta branch every Friday.", store.ScopeProject)
	old := briefSave(t, s, briefAlpha, "2024-03-01", "I live in Zaragoza.", store.ScopeGlobal)
	cur := briefSave(t, s, briefBeta, "2025-03-10", "I live in Valencia now.", store.ScopeGlobal)
	pref := briefSave(t, s, briefBeta, "2025-04-01", "Always write commit messages in English, in the imperative.", store.ScopeGlobal)

	for _, tc := range []struct {
		name       string
		c          store.Caller
		want, not  []string
		wantPhrase string
	}{
		{"alpha", briefAlpha, []string{alpha, cur, pref}, []string{beta, old}, "Valencia"},
		{"beta", briefBeta, []string{beta, cur, pref}, []string{alpha, old}, "Valencia"},
		{"no project", briefNone, []string{cur, pref}, []string{alpha, beta, old}, "Valencia"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := brief(t, s, tc.c, 0)
			shown := map[string]bool{}
			for _, it := range b.Items {
				shown[it.ID] = true
			}
			for _, id := range tc.want {
				if !shown[id] {
					t.Errorf("%s is not in the briefing:\n%s", id, b.Text)
				}
			}
			for _, id := range tc.not {
				if shown[id] || strings.Contains(b.Text, id) {
					t.Errorf("%s is in the briefing, and must not be:\n%s", id, b.Text)
				}
			}
			if strings.Contains(b.Text, "Zaragoza") || strings.Contains(b.Text, "release-beta") && tc.name != "beta" {
				t.Errorf("a superseded value or another project's memory shows:\n%s", b.Text)
			}
			if !strings.Contains(b.Text, tc.wantPhrase) {
				t.Errorf("the current value %q is missing:\n%s", tc.wantPhrase, b.Text)
			}
		})
	}
	// This project's memories come before the global ones.
	b := brief(t, s, briefAlpha, 0)
	if pos(b.Text, "release-alpha") > pos(b.Text, "commit messages") {
		t.Errorf("a global memory is listed before this project's:\n%s", b.Text)
	}
}

func pos(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return len(s) + 1
	}
	return i
}

func TestBriefEmpty(t *testing.T) {
	s := briefOpen(t, t.TempDir())
	if b := brief(t, s, briefAlpha, 0); b.Text != "" || len(b.Items) != 0 {
		t.Fatalf("an empty store briefs %q", b.Text)
	}
	// Positive control: one memory of another project still briefs nothing
	// for alpha, and something for beta.
	briefSave(t, s, briefBeta, "2025-01-01", "Beta pins its linter at v2.1.", store.ScopeProject)
	if b := brief(t, s, briefAlpha, 0); b.Text != "" {
		t.Fatalf("alpha sees beta's memory:\n%s", b.Text)
	}
	if b := brief(t, s, briefBeta, 0); !strings.Contains(b.Text, "linter") {
		t.Fatalf("beta's briefing lacks its memory:\n%q", b.Text)
	}
}

// BenchmarkBrief10k: a session start's briefing against 10,000 memories in
// five projects, at the default budget: one pass over the catalog and a
// file read per memory shown.
func BenchmarkBrief10k(b *testing.B) {
	s := openBench(b)
	defer s.Close()
	loadStore(b, s, 10_000)
	c := benchCaller(1)
	b.ReportAllocs()
	b.ResetTimer()
	var tokens int
	for b.Loop() {
		r, err := s.Brief(store.BriefInput{Caller: c})
		if err != nil {
			b.Fatal(err)
		}
		tokens = r.Tokens
	}
	b.ReportMetric(float64(tokens), "tokens")
}

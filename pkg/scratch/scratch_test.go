package scratch

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// clock is a test's time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTest(lim Limits) (*Sessions, *clock) {
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	return newSessions(lim, c.now), c
}

func recallStatus(t *testing.T, s *Sessions, id, q string) verdict.Verdict {
	t.Helper()
	r, err := s.Recall(id, q, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return r.Verdict
}

func TestNoteRecallVerdicts(t *testing.T) {
	s, _ := newTest(Limits{})
	for _, n := range []string{
		"The integration suite needs the redis container on port 6380.",
		"Alice reviews the billing module pull requests.",
		"Bob reviews the billing module pull requests.",
	} {
		if _, _, err := s.Note("a", n); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		session, query, clue string
		want                 verdict.Verdict
		first                string
	}{
		{"a", "redis container port", "", verdict.Found, "6380"},
		{"a", "who reviews billing module pull requests", "", verdict.Ambiguous, ""},
		{"a", "who reviews billing module pull requests", "Bob", verdict.Found, "Bob"},
		{"a", "kubernetes helm chart", "", verdict.NotFound, ""},
		{"b", "redis container port", "", verdict.NotFound, ""}, // another session
	} {
		r, err := s.Recall(c.session, c.query, c.clue, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != c.want {
			t.Errorf("%s %q clue %q: verdict %v (%s), want %v", c.session, c.query, c.clue, r.Verdict, r.Message, c.want)
			continue
		}
		if c.first != "" && !strings.Contains(r.Hits[0].Text, c.first) {
			t.Errorf("%q: first hit %q, want one with %q", c.query, r.Hits[0].Text, c.first)
		}
		if c.want == verdict.Ambiguous && len(r.Candidates) != 2 {
			t.Errorf("%q: %d candidates, want the two tied", c.query, len(r.Candidates))
		}
	}
}

func TestRefused(t *testing.T) {
	s, _ := newTest(Limits{NoteBytes: 100})
	for _, c := range []struct{ name, text string }{
		{"empty", ""},
		{"blank", " \n\t"},
		{"too long", strings.Repeat("x", 101)},
		{"invalid UTF-8", "a\xffb"},
		{"control character", "a\x01b"},
		{"secret", "key ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8"},
	} {
		if _, _, err := s.Note("a", c.text); !errors.Is(err, leaf.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", c.name, err)
		}
		if c.name == "secret" {
			_, _, err := s.Note("a", c.text)
			if strings.Contains(err.Error(), "ghp_") {
				t.Errorf("the refusal repeats the secret: %v", err)
			}
		}
	}
	if _, _, err := s.Note("", "fine"); !errors.Is(err, leaf.ErrInvalid) {
		t.Errorf("no session id: %v", err)
	}
	// Positive control: an ordinary note of the same size passes.
	if _, _, err := s.Note("a", strings.Repeat("x", 100)); err != nil {
		t.Errorf("a note at the limit: %v", err)
	}
}

func TestBounds(t *testing.T) {
	s, _ := newTest(Limits{SessionBytes: 1000, TotalBytes: 1400, NoteBytes: 400})
	note := func(id string, i int) Usage {
		t.Helper()
		_, u, err := s.Note(id, fmt.Sprintf("note %03d about topic%03d %s", i, i, strings.Repeat("z", 270)))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	for i := range 3 {
		if u := note("a", i); u.DroppedNow != 0 {
			t.Fatalf("note %d dropped %d", i, u.DroppedNow)
		}
	}
	// The session's bound: its oldest goes, and the call says so.
	if u := note("a", 3); u.DroppedNow != 1 || u.Bytes > 1000 || u.DroppedTotal != 1 {
		t.Fatalf("over the session bound: %+v", u)
	}
	if recallStatus(t, s, "a", "topic000") != verdict.NotFound || recallStatus(t, s, "a", "topic003") != verdict.Found {
		t.Error("the oldest note should be gone and the newest kept")
	}
	// The total bound: the oldest entry of any session goes.
	note("b", 10)
	if u := note("b", 11); u.DroppedNow != 0 {
		t.Errorf("b's own notes fit its bound, but it was told %d were dropped", u.DroppedNow)
	}
	if recallStatus(t, s, "a", "topic001") != verdict.NotFound {
		t.Error("over the total, a's oldest note should have gone")
	}
	if recallStatus(t, s, "b", "topic010") != verdict.Found {
		t.Error("b's notes should be kept")
	}
}

func TestLifetime(t *testing.T) {
	s, c := newTest(Limits{Grace: time.Minute, TTL: time.Hour})
	detach, err := s.Attach("a")
	if err != nil {
		t.Fatal(err)
	}
	s.Note("a", "the attached session's note")
	s.Note("u", "a note from a session that never attaches")
	c.add(2 * time.Minute)
	s.Sweep()
	if recallStatus(t, s, "a", "attached session note") != verdict.Found {
		t.Fatal("an attached session lost its note")
	}
	if recallStatus(t, s, "u", "never attaches") != verdict.NotFound {
		t.Error("an unattached session kept its note past the grace")
	}
	detach()
	c.add(30 * time.Second)
	s.Sweep()
	if recallStatus(t, s, "a", "attached session note") != verdict.Found {
		t.Fatal("the note went within the grace (a shim restarting)")
	}
	c.add(31 * time.Second)
	s.Sweep()
	if recallStatus(t, s, "a", "attached session note") != verdict.NotFound {
		t.Error("the note outlived the grace after the detach")
	}
	if s.Held() {
		t.Error("sessions held after every one went")
	}
	// The TTL holds even an attached session to account.
	if _, err := s.Attach("t"); err != nil {
		t.Fatal(err)
	}
	s.Note("t", "a long-forgotten note")
	c.add(59 * time.Minute)
	s.Sweep()
	if !s.Held() {
		t.Fatal("gone before the TTL")
	}
	c.add(2 * time.Minute)
	s.Sweep()
	if s.Held() {
		t.Error("an attached session outlived its TTL")
	}
}

func TestHanded(t *testing.T) {
	s, _ := newTest(Limits{SessionBytes: 200})
	if _, ok := s.Handed("a", "f"); ok {
		t.Fatal("handed before any read")
	}
	s.Hand("a", "f", "one")
	s.Hand("a", "f", "two")
	if got, ok := s.Handed("a", "f"); !ok || got != "two" {
		t.Errorf("handed %q %v, want the last", got, ok)
	}
	if _, ok := s.Handed("b", "f"); ok {
		t.Error("another session sees what a was handed")
	}
	// Too big to remember: the next read is whole again.
	s.Hand("a", "g", strings.Repeat("x", 101))
	if _, ok := s.Handed("a", "g"); ok {
		t.Error("a file over half the session's bound was remembered")
	}
	// Files make room among themselves, never by dropping a note.
	if _, _, err := s.Note("a", strings.Repeat("n", 120)); err != nil {
		t.Fatal(err)
	}
	s.Hand("a", "h", strings.Repeat("h", 80))
	if _, ok := s.Handed("a", "h"); !ok {
		t.Error("a file that fits beside the note was not remembered")
	}
	if _, ok := s.Handed("a", "f"); ok {
		t.Error("the older file was kept over the bound")
	}
	s.Hand("a", "i", strings.Repeat("i", 81)) // fits only if the note went
	if _, ok := s.Handed("a", "i"); ok {
		t.Error("a file took the note's room")
	}
	if r, _ := s.Recall("a", strings.Repeat("n", 120), "", 0); r.Verdict != verdict.Found || r.Usage.DroppedTotal != 0 {
		t.Errorf("the note after files came and went: %v, dropped %d", r.Verdict, r.Usage.DroppedTotal)
	}
}

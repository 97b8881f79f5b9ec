package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

var (
	alice  = Caller{Agent: leaf.Agent{Name: "claude-code", Version: "2.1"}, Session: "s1", Project: "github.com/org/alpha"}
	bob    = Caller{Agent: leaf.Agent{Name: "codex", Version: "0.169"}, Session: "s2", Project: "github.com/org/beta"}
	nobody = Caller{Agent: leaf.Agent{Name: "ihmt-cli"}, Session: "s3", Person: true}
)

func open(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func save(t testing.TB, s *Store, c Caller, text string, scope Scope) SaveResult {
	t.Helper()
	r, err := s.Save(context.Background(), SaveInput{Caller: c, Content: text, Scope: scope})
	if err != nil {
		t.Fatalf("save %q: %v", text, err)
	}
	return r
}

func search(t testing.TB, s *Store, c Caller, q string, scope SearchScope) SearchResult {
	t.Helper()
	r, err := s.Search(SearchInput{Caller: c, Query: q, Scope: scope})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return r
}

func ids(r SearchResult) []string {
	return hitsOf(r, func(h Hit) string { return h.Leaf.ID })
}

// hitsOf lists what of each hit field says, in order.
func hitsOf(r SearchResult, field func(Hit) string) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, field(h))
	}
	return out
}

func TestSaveSearchGet(t *testing.T) {
	s := open(t, t.TempDir())
	r := save(t, s, alice, "2024-03-11 We chose PostgreSQL 17 for the staging database.", ScopeUnspecified)
	if r.Status != Saved || r.Leaf.Scope != leaf.ScopeProject || r.Leaf.Project != alice.Project {
		t.Fatalf("save = %+v", r)
	}
	if got := r.Leaf.ValidFrom.Format("2006-01-02"); got != "2024-03-11" {
		t.Errorf("valid_from = %s, want the date the text opens with", got)
	}
	if r.Leaf.RecordedAt.IsZero() || r.Leaf.Agent.Name != "claude-code" || r.Leaf.Session != "s1" || r.Leaf.Trust != leaf.TrustAsserted {
		t.Errorf("header = %+v", r.Leaf.Header)
	}
	save(t, s, alice, "The CI runs on GitHub Actions.", ScopeUnspecified)

	res := search(t, s, alice, "which database does staging use?", ScopeDefault)
	if res.Verdict != Found || len(res.Hits) == 0 || res.Hits[0].Leaf.ID != r.Leaf.ID {
		t.Fatalf("search = %+v", res)
	}
	if !res.Coverage.Exhaustive || res.Coverage.LeavesVisible != 2 {
		t.Errorf("coverage = %+v", res.Coverage)
	}
	got, err := s.Get(alice, r.Leaf.ID, ScopeDefault)
	if err != nil || got.Text != r.Leaf.Text {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if _, err := s.Get(alice, "0123456789abcdef", ScopeDefault); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get unknown id: %v, want ErrNotFound", err)
	}
}

func TestDuplicateReturnsFirstIDAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	first := save(t, s, alice, "Use tabs, not spaces.", ScopeGlobal)
	s.Flush()
	before := snapshot(t, dir)
	again := save(t, s, bob, "Use tabs, not spaces.", ScopeGlobal)
	s.Flush()
	if again.Status != Duplicate || again.Leaf.ID != first.Leaf.ID || again.Leaf.Agent.Name != "claude-code" {
		t.Fatalf("second save = %+v, want duplicate of %s by the first agent", again, first.Leaf.ID)
	}
	if after := snapshot(t, dir); after != before {
		t.Fatal("a duplicate save changed the store")
	}
	// Same text in another scope is another memory (positive control).
	if r := save(t, s, alice, "Use tabs, not spaces.", ScopeProject); r.Status != Saved || r.Leaf.ID == first.Leaf.ID {
		t.Fatalf("project-scoped save = %+v, want a new memory", r)
	}
}

func TestScopeVisibility(t *testing.T) {
	s := open(t, t.TempDir())
	a := save(t, s, alice, "The deploy key rotation runbook lives in docs/ops.", ScopeUnspecified)
	b := save(t, s, bob, "The deploy pipeline uses ArgoCD.", ScopeUnspecified)
	g := save(t, s, alice, "The user prefers deploy notifications on Slack.", ScopeGlobal)

	tests := []struct {
		name   string
		caller Caller
		scope  SearchScope
		want   []string
	}{
		{"alice default", alice, ScopeDefault, []string{a.Leaf.ID, g.Leaf.ID}},
		{"bob default", bob, ScopeDefault, []string{b.Leaf.ID, g.Leaf.ID}},
		{"no project default", nobody, ScopeDefault, []string{g.Leaf.ID}},
		{"alice project", alice, ScopeOnlyProject, []string{a.Leaf.ID}},
		{"alice global", alice, ScopeOnlyGlobal, []string{g.Leaf.ID}},
		{"alice all", alice, ScopeAll, []string{a.Leaf.ID, b.Leaf.ID, g.Leaf.ID}},
	}
	for _, tt := range tests {
		r, err := s.Search(SearchInput{Caller: tt.caller, Query: "deploy", Scope: tt.scope, Limit: 10})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := ids(r)
		sort.Strings(got)
		want := append([]string(nil), tt.want...)
		sort.Strings(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v (%s)", tt.name, got, want, r.Message)
		}
	}
	if _, err := s.Get(bob, a.Leaf.ID, ScopeDefault); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob read alice's project memory by id: %v", err)
	}
	if _, err := s.Get(bob, a.Leaf.ID, ScopeAll); err != nil {
		t.Errorf("explicit scope all: %v", err)
	}
	if _, err := s.Search(SearchInput{Caller: nobody, Query: "deploy", Scope: ScopeOnlyProject}); !errors.Is(err, ErrInvalid) {
		t.Errorf("project scope without a project: %v, want ErrInvalid", err)
	}
}

func TestVerdicts(t *testing.T) {
	s := open(t, t.TempDir())
	cousin := save(t, s, nobody, "Luis is my cousin; he lives in Sevilla and loves football.", ScopeGlobal)
	reviewer := save(t, s, nobody, "Luis Marín reviews every pull request; he is a strict reviewer.", ScopeGlobal)
	save(t, s, nobody, "The staging database runs PostgreSQL 17.", ScopeGlobal)

	r := search(t, s, nobody, "Luis", ScopeDefault)
	if r.Verdict != Ambiguous || len(r.Hits) != 2 {
		t.Fatalf("'Luis' = %v with %d hits (%s), want ambiguous between 2", r.Verdict, len(r.Hits), r.Message)
	}
	r, err := s.Search(SearchInput{Caller: nobody, Query: "Luis", Clue: "reviewer"})
	if err != nil || r.Verdict != Found || r.Hits[0].Leaf.ID != reviewer.Leaf.ID {
		t.Fatalf("'Luis' + clue reviewer = %+v, %v; want the reviewer", r, err)
	}
	r, _ = s.Search(SearchInput{Caller: nobody, Query: "Luis", Clue: "cousin"})
	if r.Verdict != Found || r.Hits[0].Leaf.ID != cousin.Leaf.ID {
		t.Fatalf("'Luis' + clue cousin = %v %v; want the cousin", r.Verdict, ids(r))
	}
	r = search(t, s, nobody, "kubernetes helm chart ingress", ScopeDefault)
	if r.Verdict != NotFound || len(r.Hits) != 0 {
		t.Fatalf("unrelated query = %v %v, want not found", r.Verdict, ids(r))
	}
	r = search(t, s, nobody, "which postgresql version runs staging", ScopeDefault)
	if r.Verdict != Found || r.Confidence < 0.45 {
		t.Fatalf("specific query = %v (%.2f), want found", r.Verdict, r.Confidence)
	}
	// Two of its words in one memory: that memory, in its own words.
	tests := save(t, s, nobody, "Go tests: table-driven, std testing plus go-cmp; no testify in new code.", ScopeGlobal)
	r = search(t, s, nobody, "Which assertion library am I allowed to use in Go unit tests?", ScopeDefault)
	if r.Verdict != Found || r.Hits[0].Leaf.ID != tests.Leaf.ID {
		t.Fatalf("a paraphrase sharing two words = %v %v, want found with the Go tests memory", r.Verdict, ids(r))
	}
	r = search(t, s, nobody, "stadium tickets for the kubernetes cluster in sevilla", ScopeDefault)
	if r.Verdict != NotFound || len(r.Hits) != 1 || r.Hits[0].Leaf.ID != cousin.Leaf.ID {
		t.Fatalf("stray-word query = %v %v, want not found naming the cousin as the near miss", r.Verdict, ids(r))
	}
}

// TestBadInputChangesNothing checks every kind of bad input is refused with
// ErrInvalid naming the problem, and the store stays byte-for-byte the same.
func TestBadInputChangesNothing(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	save(t, s, alice, "A memory that was there before.", ScopeUnspecified)
	s.Close()
	s = open(t, dir)
	before := snapshot(t, dir)

	withProject := func(p string) Caller { c := alice; c.Project = p; return c }
	tests := []struct {
		name string
		in   SaveInput
		want string
	}{
		{"empty", SaveInput{Caller: alice, Content: ""}, "empty"},
		{"whitespace", SaveInput{Caller: alice, Content: " \n\t"}, "empty"},
		{"huge", SaveInput{Caller: alice, Content: strings.Repeat("x", leaf.MaxContent+1)}, "1 MiB"},
		{"invalid utf8", SaveInput{Caller: alice, Content: "bad \xc3\x28"}, "UTF-8"},
		{"nul", SaveInput{Caller: alice, Content: "a\x00b"}, "control character"},
		{"bell", SaveInput{Caller: alice, Content: "a\x07b"}, "control character"},
		{"domain traversal", SaveInput{Caller: alice, Content: "x", Domain: "../../etc"}, "domain"},
		{"project traversal", SaveInput{Caller: withProject("../../etc"), Content: "x"}, "project"},
		{"unknown scope", SaveInput{Caller: alice, Content: "x", Scope: 7}, "scope"},
		{"malformed date", SaveInput{Caller: alice, Content: "x", Date: "11/03/2024"}, "date"},
		{"impossible date", SaveInput{Caller: alice, Content: "x", Date: "2024-02-30"}, "date"},
		{"bad tag", SaveInput{Caller: alice, Content: "x", Tags: []string{"a/b"}}, "tag"},
		{"project scope without project", SaveInput{Caller: nobody, Content: "x", Scope: ScopeProject}, "project"},
		{"agent control char", SaveInput{Caller: Caller{Agent: leaf.Agent{Name: "a\nb"}}, Content: "x"}, "agent"},
	}
	for _, tt := range tests {
		_, err := s.Save(context.Background(), tt.in)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want ErrInvalid mentioning %q", tt.name, err, tt.want)
		}
	}
	for _, q := range []string{"", "   ", "a\x00", "\xff", "!!! ???"} {
		if _, err := s.Search(SearchInput{Caller: alice, Query: q}); !errors.Is(err, ErrInvalid) {
			t.Errorf("search %q: err = %v, want ErrInvalid", q, err)
		}
	}
	for _, id := range []string{"", "../../etc/passwd", "ZZZZZZZZZZZZZZZZ"} {
		if _, err := s.Get(alice, id, ScopeDefault); !errors.Is(err, ErrInvalid) {
			t.Errorf("get %q: err = %v, want ErrInvalid", id, err)
		}
	}
	if _, err := s.Search(SearchInput{Caller: alice, Query: "x", Scope: 9}); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown search scope: %v", err)
	}
	if after := snapshot(t, dir); after != before {
		t.Fatal("bad input changed the store")
	}
	// Positive control: a good save does change it.
	save(t, s, alice, "A good memory.", ScopeUnspecified)
	s.Close()
	if snapshot(t, dir) == before {
		t.Fatal("positive control: a good save left the store unchanged")
	}
}

func TestConcurrentSavesAllDurableAndFound(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	const writers, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := Caller{Agent: leaf.Agent{Name: fmt.Sprintf("agent%d", w)}, Session: fmt.Sprint("sess", w)}
			for i := 0; i < each; i++ {
				_, err := s.Save(context.Background(), SaveInput{Caller: c, Content: fmt.Sprintf("writer%d note%d about zebra%dx%d", w, i, w, i)})
				if err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countLeaves(t, dir); n != writers*each {
		t.Fatalf("%d leaf files, want %d", n, writers*each)
	}
	s = open(t, dir)
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			r := search(t, s, nobody, fmt.Sprintf("zebra%dx%d", w, i), ScopeDefault)
			if r.Verdict != Found || !strings.Contains(r.Hits[0].Leaf.Text, fmt.Sprintf("writer%d note%d ", w, i)) {
				t.Fatalf("writer %d note %d not found after reopen: %+v", w, i, r)
			}
		}
	}
}

// TestRestoresFromLog deletes every leaf file and damages another: the log
// alone restores them all.
func TestRestoresFromLog(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	var saved []SaveResult
	for i := 0; i < 20; i++ {
		saved = append(saved, save(t, s, alice, fmt.Sprintf("memory number %d about otters", i), ScopeUnspecified))
	}
	s.Close()
	want := snapshot(t, dir)
	// Damage one leaf, delete the rest of one shard, and leave a torn log tail.
	p := filepath.Join(dir, leavesDir, saved[0].Leaf.ID[:2], saved[0].Leaf.ID+leafSuffix)
	os.WriteFile(p, []byte("garbage"), 0o600)
	os.RemoveAll(filepath.Join(dir, leavesDir, saved[1].Leaf.ID[:2]))
	f, _ := os.OpenFile(filepath.Join(dir, logName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":999,"op":"sa`)
	f.Close()
	// And a temp file of an atomic write that a crash cut short.
	temp := filepath.Join(dir, leavesDir, saved[2].Leaf.ID[:2], "."+saved[2].Leaf.ID+leafSuffix+".tmp12345")
	os.WriteFile(temp, []byte("half a le"), 0o600)

	s = open(t, dir)
	for _, sv := range saved {
		if _, err := s.Get(alice, sv.Leaf.ID, ScopeDefault); err != nil {
			t.Fatalf("%s lost: %v", sv.Leaf.ID, err)
		}
	}
	s.Close()
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("leftover temp file not removed: %v", err)
	}
	if got := snapshot(t, dir); got != want {
		t.Fatal("restored store differs from the original")
	}
}

func TestLogRecordsEverySave(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	save(t, s, alice, "one", ScopeUnspecified)
	save(t, s, bob, "two", ScopeGlobal)
	save(t, s, bob, "two", ScopeGlobal) // duplicate: not logged
	s.Close()
	var got []string
	journal.Read(filepath.Join(dir, logName), func(line []byte) error {
		got = append(got, string(line))
		return nil
	})
	if len(got) != 2 || !strings.Contains(got[0], `"name":"claude-code"`) || !strings.Contains(got[1], `"session":"s2"`) {
		t.Fatalf("log = %q", got)
	}
}

func TestSaveAfterCloseFails(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	save(t, s, alice, "before close", ScopeUnspecified)
	s.Close()
	if _, err := s.Save(context.Background(), SaveInput{Caller: alice, Content: "after close"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

func TestExplicitDateWins(t *testing.T) {
	s := open(t, t.TempDir())
	now := time.Now().UTC()
	r, err := s.Save(context.Background(), SaveInput{Caller: alice, Content: "2020-01-01 text date", Date: "2024-03-11"})
	if err != nil || r.Leaf.ValidFrom.Format("2006-01-02") != "2024-03-11" {
		t.Fatalf("valid_from = %v, %v", r.Leaf.ValidFrom, err)
	}
	r = save(t, s, alice, "no date here", ScopeUnspecified)
	if r.Leaf.ValidFrom.Before(now.Add(-time.Minute)) || !r.Leaf.ValidFrom.Equal(r.Leaf.RecordedAt) {
		t.Fatalf("default valid_from = %v, recorded_at %v", r.Leaf.ValidFrom, r.Leaf.RecordedAt)
	}
}

// snapshot hashes every file under dir except the lock, by path and content.
// snapshot digests the store's files of record: every file but the derived
// facts snapshot, whose encoding order varies.
// snapshot hashes the store's files, leaving out what is derived from them
// (the facts snapshot and the summary tree, which is written in the
// background).
func snapshot(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p == filepath.Join(dir, treeDir) {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || d.Name() == factsName {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%x\x00", rel, sha256.Sum256(data))
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}

func countLeaves(t testing.TB, dir string) int {
	n := 0
	filepath.WalkDir(filepath.Join(dir, leavesDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, leafSuffix) {
			n++
		}
		return nil
	})
	return n
}

// TestStatsDuringSaves reads the counters while writers run: the race
// detector checks that readers never see the writer's state unlocked.
func TestStatsDuringSaves(t *testing.T) {
	s := open(t, t.TempDir())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				save(t, s, alice, fmt.Sprintf("writer %d note %d", w, i), ScopeUnspecified)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		st := s.Stats(alice)
		if st.LogEntries < int64(st.Memories) {
			t.Fatalf("stats %+v: fewer log entries than memories", st)
		}
		select {
		case <-done:
			if st := s.Stats(alice); st.Memories != 100 || st.LogEntries != 100 {
				t.Fatalf("final stats %+v, want 100 memories and 100 log entries", st)
			}
			return
		default:
		}
	}
}

// TestDamagedLogLineIsSkipped: a crash mid-batch can leave garbage inside
// the log followed by complete lines; the store still opens, and the
// complete lines after the damage are still used.
func TestDamagedLogLineIsSkipped(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	first := save(t, s, alice, "first memory about herons", ScopeUnspecified)
	second := save(t, s, alice, "second memory about egrets", ScopeUnspecified)
	s.Close()
	logPath := filepath.Join(dir, logName)
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Garbage between the two entries, as out-of-order page writes leave it,
	// and the second leaf's file gone, so only the log can restore it.
	damaged := lines[0] + "\x00\x00\x00{\"seq\":2,\"op\":\"sa\n" + lines[1]
	if err := os.WriteFile(logPath, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, leavesDir, second.Leaf.ID[:2], second.Leaf.ID+leafSuffix))

	s = open(t, dir)
	for _, r := range []SaveResult{first, second} {
		if got, err := s.Get(alice, r.Leaf.ID, ScopeDefault); err != nil || got.Text != r.Leaf.Text {
			t.Errorf("%s after a damaged log line: %v", r.Leaf.ID, err)
		}
	}
	// And the store keeps working.
	save(t, s, alice, "third memory about ibises", ScopeUnspecified)
}

// TestTooManyQueryTerms: a query is refused rather than searched in part,
// since scoring only some of its words could miss a memory.
func TestTooManyQueryTerms(t *testing.T) {
	s := open(t, t.TempDir())
	save(t, s, alice, "w70 is the only word that matters here", ScopeUnspecified)
	var words []string
	for i := range 70 {
		words = append(words, fmt.Sprintf("w%d", i+1))
	}
	if _, err := s.Search(SearchInput{Caller: alice, Query: strings.Join(words, " ")}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "at most 64") {
		t.Fatalf("70-word query: err = %v, want ErrInvalid naming the limit", err)
	}
	// Positive control: the same memory is found by 64 words that include it.
	r := search(t, s, alice, strings.Join(words[6:], " "), ScopeDefault)
	if len(r.Hits) == 0 || !strings.Contains(r.Hits[0].Leaf.Text, "w70") {
		t.Fatalf("64-word query: %+v", r)
	}
}

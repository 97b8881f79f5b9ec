package store

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/version"
)

// snapTexts are varied memories: questions and answers in sessions (which
// link neighbours), a project's definition (recall.SelfWords), global ones.
func snapText(i int) string {
	tech := []string{"PostgreSQL", "Redis", "Kafka", "Caddy", "nginx", "Grafana", "DuckDB", "Tokio"}[i%8]
	part := []string{"billing", "auth", "search", "ingest", "export"}[i%5]
	switch i % 6 {
	case 0:
		return fmt.Sprintf("Which database does the %s service use, number %d?", part, i)
	case 1:
		return fmt.Sprintf("The %s service uses %s since release %d.", part, tech, i)
	case 2:
		return fmt.Sprintf("svc%d is a small %s gateway: it fronts %s for the team (%d).", i%4, part, tech, i)
	default:
		return fmt.Sprintf("We moved %s to %s for %s in sprint %d because of latency.", part, tech, []string{"staging", "prod"}[i%2], i)
	}
}

func snapCaller(i int) Caller {
	return Caller{Agent: leaf.Agent{Name: "test", Version: "1"}, Session: fmt.Sprintf("s%d", i/10), Project: fmt.Sprintf("github.com/acme/svc%d", i%4)}
}

// openLogged opens the store in dir, returning what it logged.
func openLogged(t *testing.T, dir string) (*Store, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	s, err := Open(dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s, &logs
}

func fromSnapshot(logs *bytes.Buffer) bool {
	return strings.Contains(logs.String(), "index_from_snapshot=true")
}

// fillSnapStore saves n memories into a new store in dir, forgets a few,
// and closes it cleanly (which writes the index snapshot).
func fillSnapStore(t *testing.T, dir string, n int) {
	t.Helper()
	s, _ := openLogged(t, dir)
	ctx := context.Background()
	var ids []string
	for i := range n {
		in := SaveInput{Caller: snapCaller(i), Content: snapText(i)}
		if i%9 == 0 {
			in.Scope = ScopeGlobal
		}
		res, err := s.Save(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Leaf.ID)
	}
	for i := 5; i < n; i += 97 {
		c := snapCaller(i)
		c.Person = true
		if _, err := s.Forget(ctx, c, ids[i], "test"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

var snapQueries = []string{"which database does billing use", "Redis", "Kafka sprint", "the gateway", "small auth gateway",
	"latency in prod", "PostgreSQL release", "nginx staging search", "what fronts Grafana", "number 42", "DuckDB export"}

// searches runs every query from every project and in every scope.
func searches(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, q := range snapQueries {
		for p := range 4 {
			for _, scope := range []SearchScope{ScopeDefault, ScopeAll} {
				res, err := s.Search(SearchInput{Caller: snapCaller(p), Query: q, Scope: scope})
				if err != nil {
					t.Fatal(err)
				}
				line := fmt.Sprintf("%q p%d s%d: %v %.6f", q, p, scope, res.Verdict, res.Confidence)
				for _, h := range res.Hits {
					line += fmt.Sprintf(" %s:%v", h.Leaf.ID, h.Score)
				}
				out = append(out, line)
			}
		}
	}
	return out
}

// indexState is what the snapshot stands for, comparable.
func indexState(s *Store) []any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return []any{s.ix.AppendSnapshot(nil), s.groups, s.projects, s.lastSaved, s.definers, s.ix.Len()}
}

// TestIndexSnapshotSameAsRebuild: a store opened from the snapshot a clean
// close wrote answers every search exactly as one that built its index
// from the files, and holds the same index.
func TestIndexSnapshotSameAsRebuild(t *testing.T) {
	dir := t.TempDir()
	fillSnapStore(t, dir, 3000)

	snap, logs := openLogged(t, dir)
	if !fromSnapshot(logs) {
		t.Fatalf("positive control: the index did not come from the snapshot:\n%s", logs)
	}
	gotSearch, gotState := searches(t, snap), indexState(snap)
	snap.Close()

	if err := os.Remove(filepath.Join(dir, indexName)); err != nil {
		t.Fatal(err)
	}
	built, logs := openLogged(t, dir)
	defer built.Close()
	if fromSnapshot(logs) || !strings.Contains(logs.String(), "no index snapshot") {
		t.Fatalf("the index came from a deleted snapshot:\n%s", logs)
	}
	wantSearch, wantState := searches(t, built), indexState(built)
	hits := 0
	for i := range wantSearch {
		if gotSearch[i] != wantSearch[i] {
			t.Errorf("search differs:\n got %s\nwant %s", gotSearch[i], wantSearch[i])
		}
		hits += strings.Count(wantSearch[i], ":")
	}
	if hits < len(wantSearch) {
		t.Fatalf("the searches found almost nothing (%d hits): the comparison is weak", hits)
	}
	for i := range wantState {
		if !reflect.DeepEqual(gotState[i], wantState[i]) {
			t.Errorf("index state %d differs between the snapshot and a rebuild", i)
		}
	}
}

// TestIndexSnapshotUnusable: a snapshot that is stale, damaged or from
// another program is not used — the index is built from the files, with
// every memory in it — and the snapshot written then is used next time.
func TestIndexSnapshotUnusable(t *testing.T) {
	for _, tc := range []struct {
		name string
		// spoil spoils the snapshot of the closed store in dir, or
		// returns a store open on dir that is never closed (a kill).
		spoil func(t *testing.T, dir string) (killed *Store)
		why   string // in the log line saying why it was not used
		extra bool   // spoil saved one more memory
	}{
		{"deleted", func(t *testing.T, dir string) *Store { os.Remove(filepath.Join(dir, indexName)); return nil }, "no index snapshot", false},
		{"truncated", func(t *testing.T, dir string) *Store { truncate(t, filepath.Join(dir, indexName)); return nil }, "not usable", false},
		{"damaged", func(t *testing.T, dir string) *Store { damage(t, filepath.Join(dir, indexName)); return nil }, "not usable", false},
		{"another release", func(t *testing.T, dir string) *Store {
			old := version.Version
			version.Version = "0.0.0-other"
			t.Cleanup(func() { version.Version = old })
			s, _ := openLogged(t, dir)
			s.Close() // the snapshot is current for it and the log, not for this program
			version.Version = old
			return nil
		}, "built by", false},
		{"saves after it, then a kill", func(t *testing.T, dir string) *Store {
			s, _ := openLogged(t, dir)
			if _, err := s.Save(context.Background(), SaveInput{Caller: snapCaller(1), Content: "Quokka deploys on Fridays only."}); err != nil {
				t.Fatal(err)
			}
			s.Flush()
			return s // never closed: no snapshot written
		}, "log entry", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fillSnapStore(t, dir, 300)
			if killed := tc.spoil(t, dir); killed != nil {
				defer killed.Close()
			}
			s, logs := openLogged(t, dir)
			if fromSnapshot(logs) || !strings.Contains(logs.String(), tc.why) {
				t.Fatalf("want the snapshot refused (%q), log:\n%s", tc.why, logs)
			}
			want := 300 - 4 // fillSnapStore forgets 5, 102, 199 and 296
			if tc.extra {
				want++
				if res, _ := s.Search(SearchInput{Caller: snapCaller(1), Query: "quokka"}); len(res.Hits) == 0 {
					t.Error("the memory saved after the snapshot is not found")
				}
			}
			if got := s.Stats(snapCaller(0)).Memories; got != want {
				t.Errorf("memories = %d, want %d", got, want)
			}
			before := searches(t, s)
			s.Close()
			// Positive control: the snapshot that open wrote is used.
			s, logs = openLogged(t, dir)
			defer s.Close()
			if !fromSnapshot(logs) {
				t.Fatalf("the snapshot written after a rebuild was not used:\n%s", logs)
			}
			if after := searches(t, s); !reflect.DeepEqual(after, before) {
				t.Error("searches differ between the rebuild and its snapshot")
			}
		})
	}
}

func truncate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// damage flips bytes in the middle of the file.
func damage(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(data) / 2; i < len(data)/2+8; i++ {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// FuzzUseIndex: the snapshot is a file; whatever it holds, checking it
// must not panic, and only a snapshot of these very leaves is used.
func FuzzUseIndex(f *testing.F) {
	dir := f.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		f.Fatal(err)
	}
	for i := range 20 {
		if _, err := s.Save(context.Background(), SaveInput{Caller: snapCaller(i), Content: snapText(i)}); err != nil {
			f.Fatal(err)
		}
	}
	s.Close()
	good, err := os.ReadFile(filepath.Join(dir, indexName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/3])
	s, err = Open(dir, Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	s.mu.RLock()
	all := make([]*leaf.Leaf, len(s.docs))
	for i, l := range s.docs {
		full, err := s.withText(l)
		if err != nil {
			f.Fatal(err)
		}
		all[i] = &full
	}
	s.mu.RUnlock()
	f.Fuzz(func(t *testing.T, data []byte) {
		probe := newStore(dir, Options{})
		probe.entries = s.entries
		if r := probe.decodeIndexFile(data); r.err == nil && probe.useIndex(r, all) == nil && !bytes.Equal(data, good) {
			// Accepted bytes other than the good ones must still be a
			// working index of these leaves.
			probe.ix.Search(index.Query{Terms: []string{"redi", "servic"}, Visible: func(index.Group) bool { return true }, Limit: 5})
		}
	})
}

// TestIndexSnapshotAfterConcurrentSaves: saves that the writer commits
// together share a record time, and a start orders such leaves by what
// they say (compareBatched); the writer publishes them so too, so the index a daemon built under load is
// the one a start would build, and its clean close leaves a snapshot the
// next start uses — with the same answers as the running store gave.
func TestIndexSnapshotAfterConcurrentSaves(t *testing.T) {
	dir := t.TempDir()
	s, _ := openLogged(t, dir)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := g; i < 800; i += 16 {
				// Half of them dated, half dated by the writer as it
				// commits them: a batch mixes both.
				date := ""
				if i%2 == 0 {
					date = fmt.Sprintf("2023-%02d-%02d", 1+i%12, 1+i%28)
				}
				if _, err := s.Save(context.Background(), SaveInput{Caller: snapCaller(i), Content: snapText(i), Date: date}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	running := searches(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, logs := openLogged(t, dir)
	defer reopened.Close()
	if !fromSnapshot(logs) {
		t.Fatalf("the index after concurrent saves was rebuilt, not read from the snapshot:\n%s", logs)
	}
	if got := searches(t, reopened); !reflect.DeepEqual(got, running) {
		t.Errorf("answers differ between the running store and the one reopened from the snapshot")
	}
}

package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/journal"
)

// readAllsInLog returns how many times each scope=all read's detail is in
// the log file, as a restart would read it.
func readAllsInLog(t *testing.T, dir string) map[string]int {
	t.Helper()
	got := map[string]int{}
	err := journal.Read(filepath.Join(dir, logName), func(line []byte) error {
		var e entry
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if e.Op == opReadAll {
			got[e.Detail]++
		}
		return nil
	})
	if err != nil {
		t.Error(err) // called from the searches' goroutines too
	}
	return got
}

// TestReadAllLoggedBeforeAnswer: a scope=all search is logged while it
// ranks (startReadAll), and batched with the reads that arrive meanwhile,
// but it answers only once its entry is in the log file: each concurrent
// search finds its own entry there, exactly once, as soon as it returns. A
// search whose entry cannot be written answers nothing; a default-scope
// search writes none (the control for what is counted).
func TestReadAllLoggedBeforeAnswer(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	save(t, s, alice, "The billing worker retries three times.", ScopeProject)
	if _, err := s.Search(SearchInput{Caller: bob, Query: "billing worker"}); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			q := fmt.Sprintf("billing worker %d", i)
			res, err := s.Search(SearchInput{Caller: bob, Query: q, Scope: ScopeAll})
			switch {
			case err != nil:
				errs <- err
			case len(res.Hits) == 0:
				errs <- fmt.Errorf("%q: scope=all found nothing", q)
			case readAllsInLog(t, dir)["search "+q] != 1:
				errs <- fmt.Errorf("%q answered before its read was in the log", q)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := readAllsInLog(t, dir); len(got) != n {
		t.Errorf("%d scope=all reads in the log, want %d (none for the default scope): %v", len(got), n, got)
	}
	s.Close()
	if res, err := s.Search(SearchInput{Caller: bob, Query: "billing worker", Scope: ScopeAll}); !errors.Is(err, ErrClosed) || len(res.Hits) > 0 {
		t.Errorf("a scope=all search that cannot be logged answered: %+v, %v", res, err)
	}
}

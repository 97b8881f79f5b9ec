package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/recall"
)

// TestSearchLimit: the store is where the limit's one rule lives — 0 means
// the default, 1 to 50 are taken as they are, anything else is refused
// with the same words as everywhere else.
func TestSearchLimit(t *testing.T) {
	s := open(t, t.TempDir())
	for i := range recall.MaxLimit + 5 {
		save(t, s, alice, fmt.Sprintf("Deploy note %d: the quokka service deploys on Tuesdays.", i), ScopeGlobal)
	}
	tests := []struct {
		limit int
		hits  int    // the ranking's length, when accepted
		err   string // else the refusal
	}{
		{limit: 0, hits: recall.DefaultLimit},
		{limit: 1, hits: 1},
		{limit: 7, hits: 7},
		{limit: recall.MaxLimit, hits: recall.MaxLimit},
		{limit: recall.MaxLimit + 1, err: "limit 51 is out of range: use 1 to 50"},
		{limit: 99, err: "limit 99 is out of range: use 1 to 50"},
		{limit: -1, err: "limit -1 is out of range: use 1 to 50"},
	}
	for _, tt := range tests {
		r, err := s.Evaluate(SearchInput{Caller: alice, Query: "quokka deploys", Limit: tt.limit}, EvalOptions{})
		switch {
		case tt.err != "":
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("limit %d: err = %v, want ErrInvalid saying %q", tt.limit, err, tt.err)
			}
		case err != nil:
			t.Errorf("limit %d: %v", tt.limit, err)
		case len(r.Ranked) != tt.hits:
			t.Errorf("limit %d: %d ranked, want %d", tt.limit, len(r.Ranked), tt.hits)
		}
	}
}

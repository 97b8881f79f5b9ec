package recall

import (
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// TestToldLate: a memory dated well before the memories recorded just
// before it is told late; one dated ahead of its record time (a planned
// day) says nothing of what time it was, so the memory recorded after it,
// dated today, is not.
func TestToldLate(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := newMemReader()
	add := func(valid, recorded, text string) int {
		return int(m.add(t, leaf.Header{ValidFrom: day(valid), RecordedAt: day(recorded)}, text))
	}
	add("2025-05-19", "2025-05-19", "The booking app is on Elixir 1.18.3 now.")
	planned := add("2026-03-01", "2025-06-02", "The datacenter move is planned for March; the freeze starts then.")
	today := add("2025-06-03", "2025-06-03", "The staging database moved to the new cluster.")
	backdated := add("2025-03-01", "2025-06-10", "The staging database lived on the old VM.")
	copied := add("2024-08-10", "2025-06-11", "Copied in from my August notebook: deploys went to Heroku.")
	s := searcherOver(m)
	for _, tt := range []struct {
		name string
		doc  int
		want bool
	}{
		{"dated today after a planned day", today, false},
		{"a planned day itself", planned, false},
		{"dated three months before its neighbours", backdated, true}, // positive control
		{"copied in from a year before", copied, true},
	} {
		if got := s.toldLate(docOf(tt.doc)); got != tt.want {
			t.Errorf("%s: told late %v, want %v", tt.name, got, tt.want)
		}
	}
}

package recall

import (
	"fmt"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// Moment is a search's point in time: as of a valid date, as known at a
// record date, or now (the zero Moment).
type Moment struct {
	AsOf, KnownAt time.Time
}

// Now reports whether the moment is now.
func (m Moment) Now() bool { return m.AsOf.IsZero() && m.KnownAt.IsZero() }

// Timeline is the moment as the fact timeline reads it.
func (m Moment) Timeline() timeline.View { return timeline.View{AsOf: m.AsOf, KnownAt: m.KnownAt} }

// Holds reports whether a memory exists at the moment: it became true by
// AsOf and was recorded by KnownAt.
func (m Moment) Holds(h *leaf.Header) bool {
	return (m.AsOf.IsZero() || !h.ValidFrom.After(m.AsOf)) && (m.KnownAt.IsZero() || !h.RecordedAt.After(m.KnownAt))
}

// describe is the moment as a scope's description ends: ", as of …".
func (m Moment) describe() string {
	var parts []string
	if !m.AsOf.IsZero() {
		parts = append(parts, "as of "+m.AsOf.Format(time.DateOnly))
	}
	if !m.KnownAt.IsZero() {
		parts = append(parts, "as known on "+m.KnownAt.Format(time.DateOnly))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// ParseMoment reads as_of and known_at. A bare date means the end of that
// day: "as of 2024-12-31" includes what became true that day.
func ParseMoment(asOf, knownAt string) (Moment, error) {
	var m Moment
	for _, f := range []struct {
		name string
		in   string
		out  *time.Time
	}{{"as_of", asOf, &m.AsOf}, {"known_at", knownAt, &m.KnownAt}} {
		in := strings.TrimSpace(f.in)
		if in == "" {
			continue
		}
		t, err := dates.Parse(in)
		if err != nil {
			return Moment{}, fmt.Errorf("%w: %s: %v", leaf.ErrInvalid, f.name, err)
		}
		if len(in) == len(time.DateOnly) {
			t = t.Add(24*time.Hour - time.Nanosecond)
		}
		*f.out = t
	}
	return m, nil
}

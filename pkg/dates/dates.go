// Package dates reads the dates a memory carries: the one a caller gives
// with a save (Parse), the one a text opens with ("2024-03-11: moved to
// …": Leading for the ISO form, Opening for the forms people write in
// journals, chats and clinical notes), and the first one a line mentions
// (Find: "Visita del 12/03/2024"), which dates a clinical visit when ingest
// splits a text.
//
// A date without a time means the start of that day in UTC; every time is
// kept in UTC so that valid times compare the same on every machine.
//
// Reading costs one pass over the text by hand-written scanners (no regular
// expression but Leading's), so Opening can run on every line of a large
// ingest. What it cannot do is guess: a year must have four digits ("8/5/23"
// and "May 8" are no dates), a numeric date is read day first and month
// first only when day first is impossible ("05/06/2023" is 5 June), and
// relative dates ("yesterday", "last March") are not read at all — the
// caller that knows "now" must resolve them.
package dates

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Parse reads a caller-supplied date: "YYYY-MM-DD", "YYYY-MM-DDTHH:MM" or
// RFC 3339 (with or without fractional seconds). The error says which forms
// are accepted, because the caller is often a model that will retry.
func Parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				break
			}
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("malformed date %q: use YYYY-MM-DD or RFC 3339 (2024-03-11T09:30:00Z)", clip(s))
}

// leading matches an ISO date at the very start of a text, optionally
// followed by a time: "2024-03-11", "2024-03-11 09:30", "2024-03-11T09:30:00Z".
var leading = regexp.MustCompile(`^\s*(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(Z|[+-]\d{2}:\d{2})?)?\b`)

// Leading returns the date a text opens with, if any. A date-shaped prefix
// that is not a real date ("2024-13-45") is ignored rather than guessed.
func Leading(text string) (time.Time, bool) {
	m := leading.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	s := m[1]
	if m[2] != "" {
		s += "T" + m[2]
		if len(m[2]) == 5 {
			s += ":00"
		}
		if m[3] != "" {
			s += m[3]
		} else {
			s += "Z"
		}
	}
	t, err := Parse(s)
	return t, err == nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// SameDay reports whether a and b fall on one calendar day in UTC.
func SameDay(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

package client

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// FormatTime renders a time for people, in one format everywhere a person
// reads one (the CLI's text, and the page, whose app.js when() follows the
// same rule): the date alone when the time is midnight UTC — how a date
// without a time is stored, so the time is unknown — else the date and the
// minute in UTC, "2026-12-07 18:29 UTC". JSON carries JSONTime instead.
func FormatTime(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format("2006-01-02 15:04 UTC")
}

// JSONTime renders a time for JSON a script or a model reads: RFC 3339 in
// UTC, as a full date alone when the time is midnight (the shim's valid_from
// is "2024-03-11" for a memory dated by day, as its contract says).
func JSONTime(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// Where says where a memory belongs: "global" or "project <key>".
func Where(m *ihmtv1.Memory) string {
	if m.GetScope() == ihmtv1.Scope_SCOPE_PROJECT {
		return "project " + m.GetProject()
	}
	return "global"
}

// Confidence renders a confidence for people: two decimals, or as many
// more (up to six) as it takes for the printed value to fall on the same
// side of each threshold as the real one. "0.597, under the 0.6" explains a
// decision; "0.60, under the 0.60" does not.
func Confidence(c float64, thresholds ...float64) string {
	for digits := 2; ; digits++ {
		s := strconv.FormatFloat(c, 'f', digits, 64)
		if digits == 6 {
			return s
		}
		shown, _ := strconv.ParseFloat(s, 64)
		same := true
		for _, t := range thresholds {
			if (shown >= t) != (c >= t) {
				same = false
			}
		}
		if same {
			return s
		}
	}
}

// Threshold renders a threshold as short as it is: 0.6, not 0.60.
func Threshold(t float64) string { return strconv.FormatFloat(t, 'f', -1, 64) }

// Where a saved memory's valid time came from: the date the call gave,
// the one its text opens with, or neither — then the moment of the save.
const (
	DateGiven = "given"
	DateText  = "text"
	DateSave  = "save"
)

// DateSource says where a saved memory's valid time came from (DateGiven,
// DateText or DateSave), for the save's answer: an undated note about
// another time becomes the current value, so the answer says so. given is
// the date the request carried ("" for none).
func DateSource(given string, m *ihmtv1.Memory) string {
	switch {
	case m.GetValidFrom().AsTime().Equal(m.GetRecordedAt().AsTime()):
		// The store sets the valid time to the record time exactly when
		// it knows no other.
		return DateSave
	case given != "":
		return DateGiven
	}
	return DateText
}

// DateSourceText is a DateSource in words, for people and models.
var DateSourceText = map[string]string{
	DateGiven: "the date given",
	DateText:  "the date the text opens with",
	DateSave:  "the time of the save: no date was given and the text opens with none",
}

// AsWritten rewrites the terms a search answer names — the stems its
// message lists ("No memory in global contains any of: kubernet, postgr.")
// and its terms — as the query wrote them ("kubernetes", "postgres"). A
// stem is matched to the query word it is the start of (all but its last
// letter at least, so "januari" meets "January"); a term no query word
// spells (a month a date yields) stays as it is. It reads no word list:
// people see their own words, whatever the language.
func AsWritten(query string, terms []string) map[string]string {
	words := strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := make(map[string]string, len(terms))
	for _, t := range terms {
		best, bestLen := "", 0
		for _, w := range words {
			n := commonPrefix(strings.ToLower(w), t)
			if n > bestLen && n >= 3 && n >= utf8.RuneCountInString(t)-1 {
				best, bestLen = w, n
			}
		}
		if best != "" && !strings.EqualFold(best, t) {
			out[t] = best
		}
	}
	return out
}

// commonPrefix counts the runes a and b start with alike.
func commonPrefix(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	return n
}

// Unstem replaces each whole-word stem in text by its word (AsWritten).
func Unstem(text string, written map[string]string) string {
	if len(written) == 0 {
		return text
	}
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := text[start:end]
		if r, ok := written[w]; ok {
			w = r
		}
		b.WriteString(w)
		start = -1
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(text))
	return b.String()
}

// From says which document an ingested memory came from, for a result's
// provenance: "docs/RELEASING.md (part 2 of 5)"; "" for a memory that was
// saved, not ingested.
func From(m *ihmtv1.Memory) string {
	src := m.GetSource()
	if src.GetName() == "" {
		return ""
	}
	if src.GetParts() > 1 {
		return fmt.Sprintf("%s (part %d of %d)", src.GetName(), src.GetPart(), src.GetParts())
	}
	return src.GetName()
}

// Distinct drops a result whose text is the same as a better-ranked one's
// (a paragraph ingested from two files, a note saved globally and in a
// project): a person reads it once. copies maps each kept result's id to
// the ids of the results dropped as its copies.
func Distinct(results []*ihmtv1.SearchResult) (kept []*ihmtv1.SearchResult, copies map[string][]string) {
	first := map[string]string{} // content → id of the kept result
	copies = map[string][]string{}
	for _, r := range results {
		m := r.GetMemory()
		text := strings.TrimSpace(m.GetContent())
		if id, ok := first[text]; ok && text != "" && r.GetCurrent() == currentOf(kept, id) {
			copies[id] = append(copies[id], m.GetId())
			continue
		}
		first[text] = m.GetId()
		kept = append(kept, r)
	}
	return kept, copies
}

// currentOf is whether the kept result with id is current.
func currentOf(kept []*ihmtv1.SearchResult, id string) bool {
	for _, r := range kept {
		if r.GetMemory().GetId() == id {
			return r.GetCurrent()
		}
	}
	return false
}

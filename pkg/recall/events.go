package recall

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// Two happenings in the period asked: "When is the doctor's appointment
// in December?" when one memory tells of a dentist's appointment on 10
// December and another of a paediatric check-up on 11 December is a
// question for the person, however the scores fall (one may be worded in
// the question's language, the other not). Two memories are two such
// happenings when both answer what the question asks for beyond its time
// words as fully as the best memory does, both name a day inside the
// period, and the days differ; they are
// not versions of one thing (both current). A question for a time ("when",
// "what time", "cuándo") asks which one; one for anything else ("where did
// I live in March") is the timeline's.

// eventWindow: memories scoring within this share of the best are asked
// whether they tell of another happening; narrower than a name's
// referents, as a day in a memory may be another thing's ("flights booked
// on 4 March" for an offsite on the 20th).
const eventWindow = 0.5

// events returns the positions in order of the memories telling of
// different happenings in the period the question names, when there are
// two or more.
func (s *searcher) events(order []ranked, q question, terms []string) []int {
	if q.periodName == "" || !asksWhen(q.text) || len(order) < 2 {
		return nil
	}
	var about uint64 // the query terms that are not about the time
	for i, t := range terms {
		if !lexicon.IsDateWord(t) && !timeWord[t] {
			about |= 1 << i
		}
	}
	// Each must answer as much of that as the best memory does: "the
	// passport appointment" is not the dentist's.
	about &= order[0].matched
	if about == 0 {
		return nil
	}
	yearless := !yearIn.MatchString(q.text)
	var at []int
	var days []time.Time
	for i, r := range order[:min(len(order), verdict.MaxCandidates+1)] {
		if !r.current || r.matched&about != about || r.score < eventWindow*order[0].score {
			continue
		}
		day, ok := s.dayIn(r, q, yearless)
		if !ok || slices.ContainsFunc(days, func(d time.Time) bool { return dates.SameDay(d, day) }) {
			continue
		}
		at, days = append(at, i), append(days, day)
	}
	if len(at) < 2 {
		return nil
	}
	return at
}

// dayIn returns the day a memory's text names (not the date it opens
// with, which dates the note), when it falls in the question's period; a
// period named without a year ("in March") matches that month of any
// year.
func (s *searcher) dayIn(r ranked, q question, yearless bool) (time.Time, bool) {
	l := s.leaf(r.doc)
	text := s.r.Text(r.doc).Text
	if _, end, ok := dates.Opening(text); ok {
		text = text[end:]
	}
	day, ok := namedDay(text, l.ValidFrom)
	if !ok {
		return time.Time{}, false
	}
	if yearless && q.period.end.Sub(q.period.start) < 32*24*time.Hour {
		return day, day.Month() == q.period.start.Month()
	}
	return day, !day.Before(q.period.start) && !day.After(q.period.end)
}

// namedDay returns the first day text names in full ("2025-12-10", "20
// March 2025") or by day and month, the year the memory's own ("el jueves
// 11 de diciembre" of a note dated 2025-12-02).
func namedDay(text string, dated time.Time) (time.Time, bool) {
	if t, _, _, ok := dates.Find(text); ok {
		return t, true
	}
	m := dayMonth.FindStringSubmatch(strings.ToLower(text))
	if m == nil {
		return time.Time{}, false
	}
	start, _, ok := dates.Period(m[2], dated)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-2", start.Format("2006-01-")+m[1])
	return t, err == nil
}

var (
	dayMonth = regexp.MustCompile(`\b(\d{1,2})\s+(?:(?:` + alternatives("day_month_links") + `)\s+)?(` + alternatives("months") + `)\b`)
	yearIn   = regexp.MustCompile(`\b(?:19|20)\d\d\b`)
)

// alternatives is a word list as a regular expression's alternatives.
func alternatives(list string) string {
	ws := words.List(list)
	for i, w := range ws {
		ws[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(ws, "|")
}

// asksWhen reports whether a question asks for a time: it opens with a
// one-word entry of asks_when, or holds a two-word one within its first
// words.
func asksWhen(text string) bool {
	ws := tokenize.Words(text)
	for _, p := range whenPhrases {
		switch ph := strings.Fields(p); {
		case len(ph) == 1 && len(ws) > 0 && ws[0] == ph[0]:
			return true
		case len(ph) == 2:
			for i := 0; i+1 < len(ws) && i < 3; i++ {
				if ws[i] == ph[0] && ws[i+1] == ph[1] {
					return true
				}
			}
		}
	}
	return false
}

// whenPhrases open a question for a time; timeWord are the terms of a
// question that ask for its time rather than name what it is about.
var (
	whenPhrases = words.List("asks_when")
	timeWord    = words.Set("time_asked")
)

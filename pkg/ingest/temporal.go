package ingest

import (
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
)

// splitTemporal splits a journal, a chat log or dated notes. An entry is a
// line that opens with a date (in any form dates.Opening reads) and
// everything up to the next such line; it is never cut, its date becomes
// the block's ValidFrom, and entries of different days are never packed
// together. An undated heading right above an entry ("## June") goes with
// it; text before the first entry is split like generic text.
func splitTemporal(text string, max int) []unit {
	ls := proseLines(text)
	type entry struct {
		from, line int
		date       time.Time
	}
	var es []entry
	for i, l := range ls {
		if l.blank || l.fenced {
			continue
		}
		if t, _, ok := dates.Opening(l.text); ok {
			es = append(es, entry{from: i, line: i, date: t})
		}
	}
	if len(es) == 0 {
		return splitProse(text, max, false)
	}
	for k := range es {
		lo := 0
		if k > 0 {
			lo = es[k-1].line + 1
		}
		j := es[k].line
		for j-1 >= lo && (ls[j-1].blank || ls[j-1].heading > 0 || ls[j-1].under) && !ls[j-1].fenced {
			j--
		}
		for j < es[k].line && ls[j].blank {
			j++
		}
		es[k].from = j
	}
	var out []unit
	if p := ls[es[0].from].off; p > 0 {
		out = splitProse(text[:p], max, false)
	}
	for k, e := range es {
		start, end := ls[e.from].off, len(text)
		if k+1 < len(es) {
			end = ls[es[k+1].from].off
		}
		out = append(out, unit{
			start: start, end: end,
			date: e.date,
			hard: k == 0 || !sameDay(e.date, es[k-1].date),
			weak: firstWords(text[ls[e.line].off:end], 10),
		})
	}
	return out
}

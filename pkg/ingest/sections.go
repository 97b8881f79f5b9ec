package ingest

import (
	"strings"
	"time"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// Clinical notes and processes (recipes, runbooks, protocols) are made of
// sections: a header line and everything under it up to the next header.
// A section is never cut — a diagnosis without its treatment, or a step
// list without its heading, is worse than no memory. Text before the first
// header is split like generic text.

// section is a run of lines [from, to) opened by a header line.
type section struct {
	from, to int
	title    string
	level    int       // markdown heading level, 0 for other headers
	visit    bool      // a dated visit line: a hard boundary
	date     time.Time // the visit's date
}

// splitClinical: headers are "Diagnóstico:", "Plan:", "Medication:" and the
// like, markdown headings and upper-case lines; a dated visit ("Visita
// 12/03/2024", "2024-03-12 — control") is a boundary nothing is packed
// across, and its date is the ValidFrom of every block of that visit.
func splitClinical(text string, max int) []unit {
	ls := proseLines(text)
	var secs []section
	for i, l := range ls {
		if l.blank || l.fenced || l.under {
			continue
		}
		if t, ok := visitDate(l.text); ok {
			secs = append(secs, section{from: i, title: l.text, visit: true, date: t})
		} else if l.heading > 0 || clinicalHeader(l.text) {
			secs = append(secs, section{from: i, title: headerTitle(l.text)})
		}
	}
	var date time.Time
	for k := range secs {
		if secs[k].visit {
			date = secs[k].date
		}
		secs[k].date = date
	}
	return sectionUnits(text, ls, secs, max, false, func(s section) bool { return s.visit })
}

// splitProcess: when the text has markdown headings they alone open
// sections (a recipe's "### Ingredients" stays a part of it); otherwise
// short label lines do ("Ingredients:", "PASOS", "**Steps**"). Headings at
// the level of the document's items (see itemLevel) start a group nothing
// is packed across, so two recipes never share a block.
func splitProcess(text string, max int) []unit {
	ls := proseLines(text)
	var levels []int
	for _, l := range ls {
		if l.heading > 0 && !l.fenced {
			levels = append(levels, l.heading)
		}
	}
	md := len(levels) > 0
	g := itemLevel(levels)
	var secs []section
	for i, l := range ls {
		if l.blank || l.fenced || l.under {
			continue
		}
		switch {
		case md && l.heading > 0:
			secs = append(secs, section{from: i, title: headerTitle(l.text), level: l.heading})
		case !md && processHeader(l.text):
			secs = append(secs, section{from: i, title: headerTitle(l.text)})
		}
	}
	return sectionUnits(text, ls, secs, max, true, func(s section) bool { return s.level > 0 && s.level <= g })
}

// itemLevel is the heading level of a document's items — the recipes of a
// cookbook, the procedures of a runbook: the shallowest level used more
// than once, unless that level is also the deepest and a title sits above
// it (then those headings are the parts of one item: "# Pancakes",
// "## Ingredients", "## Steps"). With no repeated level, the whole
// document is one item.
func itemLevel(levels []int) int {
	if len(levels) == 0 {
		return 0
	}
	count := map[int]int{}
	shallow, deep := 7, 0
	for _, l := range levels {
		count[l]++
		shallow, deep = min(shallow, l), max(deep, l)
	}
	rep := 0
	for l := 1; l <= 6; l++ {
		if count[l] >= 2 {
			rep = l
			break
		}
	}
	if rep == 0 || (rep == deep && shallow < rep) {
		return shallow
	}
	return rep
}

// sectionUnits turns sections into units. hard says whether a section
// starts a group nothing is packed across. A section with nothing under its
// header goes with the next one — across a hard boundary only when
// glueHard (a title above a recipe, but not an empty "Plan:" above the
// next visit).
func sectionUnits(text string, ls []pline, secs []section, max int, glueHard bool, hard func(s section) bool) []unit {
	if len(secs) == 0 {
		return splitProse(text, max, false)
	}
	var out []unit
	if p := ls[secs[0].from].off; p > 0 {
		out = splitProse(text[:p], max, false)
	}
	pending := -1 // index in out of a header-only unit waiting for its body
	for k, s := range secs {
		s.to = len(ls)
		if k+1 < len(secs) {
			s.to = secs[k+1].from
		}
		_, rest, _ := labelLine(ls[s.from].text)
		body := rest != "" && !s.visit // "Diagnóstico: HTA" has its content inline
		for i := s.from + 1; i < s.to && !body; i++ {
			if !ls[i].blank && !ls[i].under {
				body = true
				break
			}
		}
		u := unit{
			start: ls[s.from].off, end: ls[s.to-1].end,
			hard: hard(s), date: s.date, title: s.title,
		}
		if pending >= 0 && (!u.hard || glueHard) {
			out[pending].end = u.end
			if !body { // still no content: the nearest heading names it
				if u.title != "" {
					out[pending].title = u.title
				}
				continue
			}
			if out[pending].title != "" && u.title != "" {
				out[pending].title += " — " + u.title
			}
			pending = -1
			continue
		}
		pending = -1
		out = append(out, u)
		if !body {
			pending = len(out) - 1
		}
	}
	return out
}

// visitDate recognises a dated visit line: one that opens with a date, or
// a visit word followed by a date ("Visita del 12/03/2024").
func visitDate(line string) (time.Time, bool) {
	if t, _, ok := dates.Opening(line); ok {
		return t, true
	}
	w := strings.FieldsFunc(foldASCII(line), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(w) == 0 || !visitWords[w[0]] {
		return time.Time{}, false
	}
	if t, _, _, ok := dates.Find(line); ok {
		return t, true
	}
	return time.Time{}, false
}

var visitWords = words.Set("clinical_visit_words")

// clinicalVocab holds clinical section labels, folded (lower case, no
// accents). A label in it is a header even with text after its colon.
var clinicalVocab = words.Set("clinical_section_labels")

// clinicalHeader reports a section header line in a clinical note: a
// known label with a colon ("Diagnóstico: HTA"), any short label alone on
// its line ("Otros:"), or an upper-case line ("EXPLORACIÓN FÍSICA").
func clinicalHeader(t string) bool {
	if isListItem(t) {
		return false
	}
	if isCapsLine(t) {
		return true
	}
	label, rest, ok := labelLine(t)
	if !ok {
		return false
	}
	return clinicalVocab[foldASCII(label)] || rest == ""
}

// processHeader reports a section header in a recipe or runbook: a short
// label ending in a colon ("Ingredientes:"), a bold line ("**Steps**") or
// an upper-case line ("PREPARATION").
func processHeader(t string) bool {
	if isListItem(t) {
		return false
	}
	if isCapsLine(t) {
		return true
	}
	if len(t) > 4 && len(t) <= 60 && strings.HasPrefix(t, "**") && strings.HasSuffix(t, "**") && !strings.Contains(t[2:len(t)-2], "**") {
		return true
	}
	_, rest, ok := labelLine(t)
	return ok && rest == "" && len(strings.Fields(t)) <= 6
}

// labelLine splits "Label: rest" where Label is one to four words of
// letters; "**Label:**" and "Label**:" markup is allowed.
func labelLine(t string) (label, rest string, ok bool) {
	i := strings.IndexByte(t, ':')
	if i <= 0 || i > 48 {
		return "", "", false
	}
	label = strings.Trim(t[:i], "*_ #")
	rest = strings.TrimSpace(strings.Trim(t[i+1:], "*_"))
	if label == "" || len(strings.Fields(label)) > 4 {
		return "", "", false
	}
	for _, r := range label {
		if !unicode.IsLetter(r) && r != ' ' && r != '-' && r != '/' && r != '(' && r != ')' && r != '.' {
			return "", "", false
		}
	}
	return label, rest, true
}

// isCapsLine reports a short line in capitals: "INGREDIENTES", "PLAN".
func isCapsLine(t string) bool {
	if len(t) > 60 {
		return false
	}
	letters := 0
	for _, r := range t {
		switch {
		case unicode.IsLower(r):
			return false
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			return false
		}
	}
	return letters >= 3
}

// isListItem reports a bullet or numbered line.
func isListItem(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") || strings.HasPrefix(t, "• ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')')
}

// headerTitle is a header line without markup.
func headerTitle(t string) string {
	t = strings.TrimSpace(strings.Trim(t, "#*_ "))
	if i := strings.IndexByte(t, ':'); i > 0 && i < 48 {
		if rest := strings.TrimSpace(t[i+1:]); rest == "" {
			return strings.TrimSpace(strings.Trim(t[:i], "*_ "))
		}
	}
	return clip(t, 60)
}

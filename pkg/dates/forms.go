package dates

import (
	"strconv"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// The forms below are the ones people write at the head of a journal entry,
// a chat line or a clinical visit, in English and Spanish:
//
//	2023-05-08, 2023/05/08, 2023-05-08 13:56, 2023-05-08T13:56:00+02:00
//	08/05/2023, 8-5-2023, 8.5.2023            (day first; month first only
//	                                           when day first is impossible)
//	8 May 2023, 8 May, 2023, 8th of May 2023, 8 de mayo de 2023, 8 may. 2023
//	May 8 2023, May 8th 2023, May 8, 2023, mayo 8, 2023
//	1:56 pm on 8 May, 2023, 13:56, 8 May 2023  (a time before the date)
//	8 May 2023 at 1:56 pm, 08/05/2023, 13:56   (a time after the date)
//
// A year always has four digits: "8/5/23" and "May 8" are too ambiguous to
// date a memory by. Every result is UTC; a time without a zone is taken as
// UTC, like a date without a time.

// Opening returns the date a line or text opens with, in any of the forms
// above, and the offset just past it. Before the date it skips what
// commonly decorates one: spaces, a byte-order mark, markdown marks
// ("## ", "- ", "> ", "**", "["), a weekday ("Monday, ", "lunes ") and a
// "Date:"/"Fecha:" label. Text that only mentions a date later ("On 8 May
// 2023 we…") does not open with one.
func Opening(text string) (t time.Time, end int, ok bool) {
	i := skipDecoration(text)
	t, end, ok = parseAt(text, i)
	return t, end, ok
}

// Find returns the first date anywhere in text, in any of the forms above,
// with the byte span it covers. A match starts at a word boundary, so the
// digits inside "v2023-05-08x" or "A12/05/2023" are not taken for a date.
func Find(text string) (t time.Time, start, end int, ok bool) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !isDigit(c) && !isLetter(c) {
			continue
		}
		if i > 0 && (isAlnum(text[i-1]) || text[i-1] >= 0x80) {
			continue
		}
		if t, end, ok = parseAt(text, i); ok {
			return t, i, end, true
		}
	}
	return time.Time{}, 0, 0, false
}

// skipDecoration returns the offset of the first byte after the marks that
// may precede an opening date.
func skipDecoration(s string) int {
	i := 0
	if strings.HasPrefix(s, "\uFEFF") {
		i = 3
	}
	for n := 0; i < len(s) && n < 12; n++ {
		switch s[i] {
		case ' ', '\t', '#', '>', '*', '-', '+', '_', '[', '(', '|', '=':
			i++
		default:
			n = 12
		}
	}
	// A weekday or a label, each at most once, in either order.
	for range 2 {
		j := i
		if k, ok := matchWord(s, i, weekdays); ok {
			j = k
		} else if k, ok := matchWord(s, i, labels); ok {
			j = k
		}
		if j == i {
			break
		}
		for j < len(s) && (s[j] == ',' || s[j] == '.' || s[j] == ':') {
			j++
		}
		j = skipSpaces(s, j)
		i = j
	}
	return i
}

var weekdays = words.List("weekdays")

var labels = words.List("date_labels")

// months maps every accepted month name, English and Spanish, full and
// abbreviated, to its number. Matching is case-insensitive and whole-word.
var months = func() map[string]time.Month {
	m := map[string]time.Month{}
	for i, names := range words.List("month_names") {
		for _, n := range strings.Fields(names) {
			m[n] = time.Month(i + 1)
		}
	}
	return m
}()

// parseAt reads a date (with an optional time before or after it) starting
// exactly at s[i]. A zone that moves the time out of years 1-9999 makes it
// no date at all, as in Parse.
func parseAt(s string, i int) (time.Time, int, bool) {
	t, end, ok := parseDateTime(s, i)
	if !ok || t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, 0, false
	}
	return t, end, true
}

func parseDateTime(s string, i int) (time.Time, int, bool) {
	if i >= len(s) {
		return time.Time{}, 0, false
	}
	// A time first: "1:56 pm on 8 May, 2023", "13:56, 8 May 2023".
	if isDigit(s[i]) {
		if h, m, sec, j, ok := readClock(s, i); ok {
			if k, ok := timeDateJoiner(s, j); ok {
				if d, end, ok := readDate(s, k); ok {
					return d.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second), end, true
				}
			}
		}
	}
	d, end, ok := readDate(s, i)
	if !ok {
		return time.Time{}, 0, false
	}
	// A time after: "2023-05-08 13:56", "8 May 2023 at 1:56 pm", "08/05/2023, 13:56".
	j := end
	if iso := end-i == 10 && s[i+4] == '-'; iso && j < len(s) && s[j] == 'T' {
		j++
	} else {
		if j < len(s) && s[j] == ',' {
			j++
		}
		k := skipSpaces(s, j)
		if k == j {
			return d, end, true
		}
		j = k
		for _, w := range []string{"at ", "a las ", "a la "} {
			if hasFoldPrefix(s[j:], w) {
				j = skipSpaces(s, j+len(w))
				break
			}
		}
	}
	h, m, sec, k, ok := readClock(s, j)
	if !ok {
		return d, end, true
	}
	t := d.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second)
	if off, k2, ok := readZone(s, k); ok {
		t = t.Add(-off)
		k = k2
	}
	return t, k, true
}

// timeDateJoiner accepts what sits between a leading time and its date.
func timeDateJoiner(s string, j int) (int, bool) {
	if j < len(s) && s[j] == ',' {
		return skipSpaces(s, j+1), true
	}
	k := skipSpaces(s, j)
	if k == j {
		return 0, false
	}
	return skipWord(s, k, "on ", "del ", "el ", "de ", "- "), true
}

// skipWord skips, at s[k], the first of words found there (without regard
// to case) and the spaces after it; it returns k if none is there.
func skipWord(s string, k int, words ...string) int {
	for _, w := range words {
		if hasFoldPrefix(s[k:], w) {
			return skipSpaces(s, k+len(w))
		}
	}
	return k
}

// readDate reads a date without a time at s[i].
func readDate(s string, i int) (time.Time, int, bool) {
	if i >= len(s) {
		return time.Time{}, 0, false
	}
	if !isDigit(s[i]) {
		return readMonthFirst(s, i)
	}
	n1, j := readNum(s, i, 4)
	switch {
	case j-i == 4 && j < len(s) && (s[j] == '-' || s[j] == '/'):
		return readYearFirst(s, n1, j)
	case j-i <= 2 && j+1 < len(s) && (s[j] == '/' || s[j] == '-' || s[j] == '.') && isDigit(s[j+1]):
		return readDayFirst(s, n1, j)
	case j-i <= 2:
		return readDayMonthName(s, n1, j)
	}
	return time.Time{}, 0, false
}

// readYearFirst reads the rest of "2023-05-08" or "2023/05/08" after the
// year y, with the separator at s[j].
func readYearFirst(s string, y, j int) (time.Time, int, bool) {
	m, k, ok := readMiddle(s, j)
	if !ok {
		return time.Time{}, 0, false
	}
	d, e := readNum(s, k+1, 2)
	if e == k+1 || !(boundary(s, e) || s[e] == 'T' && e+1 < len(s) && isDigit(s[e+1])) {
		return time.Time{}, 0, false
	}
	t, ok := mkDate(y, m, d)
	return t, e, ok
}

// readMiddle reads the middle number of a numeric date, one or two digits
// between the separator at s[j] and the same separator again, at s[k].
func readMiddle(s string, j int) (n, k int, ok bool) {
	n, k = readNum(s, j+1, 2)
	if k == j+1 || k >= len(s) || s[k] != s[j] {
		return 0, 0, false
	}
	return n, k, true
}

// readDayFirst reads the rest of "08/05/2023", "8-5-2023" or "8.5.2023"
// after the first number n1, with the separator at s[j]: day first, month
// first only when day first cannot be.
func readDayFirst(s string, n1, j int) (time.Time, int, bool) {
	n2, k, ok := readMiddle(s, j)
	if !ok {
		return time.Time{}, 0, false
	}
	y, e := readNum(s, k+1, 4)
	if e-(k+1) != 4 || !boundary(s, e) {
		return time.Time{}, 0, false
	}
	if t, ok := mkDate(y, n2, n1); ok {
		return t, e, true
	}
	t, ok := mkDate(y, n1, n2) // month first, when day first cannot be
	return t, e, ok
}

// readDayMonthName reads the rest of "8 May 2023", "8th of May, 2023" or
// "8 de mayo de 2023" after the day d, which ends at s[j].
func readDayMonthName(s string, d, j int) (time.Time, int, bool) {
	k := skipOrdinal(s, j)
	k2 := skipSpaces(s, k)
	if k2 == k && !(k < len(s) && s[k] == '-') {
		return time.Time{}, 0, false
	}
	if k2 == k {
		k2++ // "8-May-2023"
	}
	k2 = skipWord(s, k2, "of ", "de ")
	mon, e, ok := readMonth(s, k2)
	if !ok {
		return time.Time{}, 0, false
	}
	return withYear(s, e, mon, d)
}

// readMonthFirst reads "May 8th 2023", "May 8, 2023" or "mayo 8 de 2023"
// at s[i].
func readMonthFirst(s string, i int) (time.Time, int, bool) {
	mon, j, ok := readMonth(s, i)
	if !ok {
		return time.Time{}, 0, false
	}
	k := skipSpaces(s, j)
	if k == j {
		return time.Time{}, 0, false
	}
	d, e := readNum(s, k, 2)
	if e == k {
		return time.Time{}, 0, false
	}
	e = skipOrdinal(s, e)
	if e < len(s) && isDigit(s[e]) {
		return time.Time{}, 0, false
	}
	return withYear(s, e, mon, d)
}

// withYear reads the year that follows a month name and day, at s[e], and
// makes the date.
func withYear(s string, e int, mon time.Month, d int) (time.Time, int, bool) {
	y, e, ok := readYearAfterMonth(s, e)
	if !ok {
		return time.Time{}, 0, false
	}
	t, ok := mkDate(y, int(mon), d)
	return t, e, ok
}

// readYearAfterMonth reads ", 2023", " 2023", " de 2023", " del 2023", "-2023".
func readYearAfterMonth(s string, j int) (int, int, bool) {
	if j < len(s) && (s[j] == ',' || s[j] == '-') {
		j++
	}
	k := skipWord(s, skipSpaces(s, j), "de ", "del ")
	y, e := readNum(s, k, 4)
	if e-k != 4 || !boundary(s, e) {
		return 0, 0, false
	}
	return y, e, true
}

// readMonth reads a whole-word month name, optionally followed by a period
// ("Sept."), at s[i].
func readMonth(s string, i int) (time.Month, int, bool) {
	j := i
	for j < len(s) && isLetter(s[j]) && j-i < 12 {
		j++
	}
	if j == i || (j < len(s) && (isAlnum(s[j]) || s[j] >= 0x80)) {
		return 0, 0, false
	}
	m, ok := months[strings.ToLower(s[i:j])]
	if !ok {
		return 0, 0, false
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	return m, j, true
}

// readClock reads "13:56", "13:56:02", "1:56 pm", "1:56pm", "1:56 p.m.".
func readClock(s string, i int) (h, m, sec, end int, ok bool) {
	h, j := readNum(s, i, 2)
	if j == i || j >= len(s) || s[j] != ':' {
		return 0, 0, 0, 0, false
	}
	m, k := readNum(s, j+1, 2)
	if k-(j+1) != 2 || m > 59 {
		return 0, 0, 0, 0, false
	}
	if k+2 < len(s) && s[k] == ':' && isDigit(s[k+1]) && isDigit(s[k+2]) {
		sec = int(s[k+1]-'0')*10 + int(s[k+2]-'0')
		if sec > 59 {
			return 0, 0, 0, 0, false
		}
		k += 3
	}
	// am/pm, with or without a space and periods.
	p := k
	if p < len(s) && s[p] == ' ' {
		p++
	}
	if p < len(s) && (s[p] == 'a' || s[p] == 'A' || s[p] == 'p' || s[p] == 'P') {
		pm := s[p] == 'p' || s[p] == 'P'
		q := p + 1
		if q < len(s) && s[q] == '.' {
			q++
		}
		if q < len(s) && (s[q] == 'm' || s[q] == 'M') {
			q++
			if q < len(s) && s[q] == '.' {
				q++
			}
			if boundary(s, q) && h >= 1 && h <= 12 {
				if pm && h != 12 {
					h += 12
				} else if !pm && h == 12 {
					h = 0
				}
				return h, m, sec, q, true
			}
		}
	}
	if h > 23 || !boundary(s, k) {
		return 0, 0, 0, 0, false
	}
	return h, m, sec, k, true
}

// readZone reads "Z", "+02:00" or "+0200" right after a time.
func readZone(s string, i int) (time.Duration, int, bool) {
	if i < len(s) && s[i] == 'Z' && boundary(s, i+1) {
		return 0, i + 1, true
	}
	if i >= len(s) || (s[i] != '+' && s[i] != '-') {
		return 0, 0, false
	}
	h, j := readNum(s, i+1, 2)
	if j-(i+1) != 2 {
		return 0, 0, false
	}
	if j < len(s) && s[j] == ':' {
		j++
	}
	m, k := readNum(s, j, 2)
	if k-j != 2 || h > 14 || m > 59 || !boundary(s, k) {
		return 0, 0, false
	}
	off := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
	if s[i] == '-' {
		off = -off
	}
	return off, k, true
}

func mkDate(y, m, d int) (time.Time, bool) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 31 April, 30 February
		return time.Time{}, false
	}
	return t, true
}

// readNum reads up to max digits at s[i]; it returns i as end when there are none.
func readNum(s string, i, max int) (int, int) {
	n, j := 0, i
	for j < len(s) && j-i < max && isDigit(s[j]) {
		n = n*10 + int(s[j]-'0')
		j++
	}
	if j < len(s) && isDigit(s[j]) { // too many digits: not this form
		return 0, i
	}
	return n, j
}

// skipOrdinal skips "st", "nd", "rd", "th", "º", "ª" and "°" after a day.
func skipOrdinal(s string, j int) int {
	for _, suf := range []string{"st", "nd", "rd", "th", "ST", "ND", "RD", "TH", "º", "ª", "°"} {
		if strings.HasPrefix(s[j:], suf) && (j+len(suf) >= len(s) || !isLetter(s[j+len(suf)])) {
			return j + len(suf)
		}
	}
	return j
}

// matchWord matches one of words (lower-case) as a whole word at s[i].
func matchWord(s string, i int, words []string) (int, bool) {
	best := -1
	for _, w := range words {
		if len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) && len(w) > best {
			e := i + len(w)
			if e < len(s) && (isAlnum(s[e]) || s[e] >= 0x80) {
				continue
			}
			best = len(w)
		}
	}
	if best < 0 {
		return 0, false
	}
	return i + best, true
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// boundary reports whether s[i] cannot continue a number or word.
func boundary(s string, i int) bool {
	return i >= len(s) || !(isAlnum(s[i]) || s[i] >= 0x80)
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool  { return isDigit(c) || isLetter(c) }

// Period finds the first month ("June 2024", "junio de 2024", "in June")
// or year ("in 2024") a text names, and returns when it starts and ends;
// a month without a year is taken in the year of now, or the year before
// when that month has not come yet. Days are left to Find: a text naming
// a whole date names a day, not a period.
func Period(text string, now time.Time) (start, end time.Time, ok bool) {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	for i, w := range words {
		if m, isMonth := months[w]; isMonth && len(w) > 3 {
			y := now.Year()
			if m > now.Month() {
				y--
			}
			for _, next := range words[i+1 : min(len(words), i+3)] {
				if n, err := strconv.Atoi(next); err == nil && n >= 1900 && n <= 2200 {
					y = n
					break
				}
			}
			start = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
			return start, start.AddDate(0, 1, 0).Add(-time.Nanosecond), true
		}
		if n, err := strconv.Atoi(w); err == nil && len(w) == 4 && n >= 1900 && n <= 2200 && (i == 0 || months[words[i-1]] == 0) {
			start = time.Date(n, 1, 1, 0, 0, 0, 0, time.UTC)
			return start, start.AddDate(1, 0, 0).Add(-time.Nanosecond), true
		}
	}
	return time.Time{}, time.Time{}, false
}

package tokenize

import (
	"strconv"
	"strings"
	"time"
)

// A date written as digits ("2023-05-25", as a memory's text often opens)
// and the same date written in words ("25 May 2023", "May 25, 2023", as
// people ask) share only their year and day: the month is "05" on one side
// and "may" on the other. So an ISO date also yields its month's name, and
// its day without a leading zero: "2023-05-05" gives 2023, 05, may and 5,
// and "what did she do in May 2023?" or "on 5 May" meets it. Spanish
// month names stem to the English ones (see lexicon), so "mayo" meets it
// too.

// monthNames are the English month names, January first.
var monthNames = [12]string{"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december"}

// spanishMonths are the Spanish month names, January first: each is read
// as the English one.
var spanishMonths = [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio",
	"julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}

// isoDate reads the ISO date s opens with (YYYY-MM-DD, a valid month and
// day, not followed by a letter or digit); ok is false when s does not
// open with one.
func isoDate(s string) (d time.Time, ok bool) {
	const n = len(time.DateOnly)
	if len(s) < n || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if !isDigitASCII(s[i]) {
			return time.Time{}, false
		}
	}
	if len(s) > n && (s[n] >= 0x80 || asciiWord[s[n]]) {
		return time.Time{}, false
	}
	d, err := time.Parse(time.DateOnly, s[:n])
	return d, err == nil
}

// emitDate emits the terms of date d as an ISO date yields them: the year,
// the month's two digits and name, and the day without a leading zero.
func emitDate(d time.Time, fn func(string, bool)) {
	var buf [len(time.DateOnly)]byte
	s := d.AppendFormat(buf[:0], time.DateOnly)
	fn(string(s[:4]), false)
	fn(string(s[5:7]), false)
	emitTerm(monthNames[d.Month()-1], fn)
	fn(strconv.Itoa(d.Day()), false)
}

// A text that holds a date (a memory that opens with the day it was said)
// and says "yesterday" or "last night" speaks of the day before: that
// word also yields the day before's terms, so "what did she do on 16
// March?" meets "2022-03-17 ... yesterday I went bowling". Only a date that
// opens the text anchors ("we ship on 2024-06-01; yesterday…" says nothing
// of 31 May), and only the day before is resolved: "last week" or "on
// Friday" name no one day.
func yesterday(w, prev string) bool {
	switch len(w) { // most words are none of these: no case folding for them
	case len("yesterday"):
		return strings.EqualFold(w, "yesterday")
	case len("ayer"):
		return strings.EqualFold(w, "ayer")
	case len("anoche"):
		return strings.EqualFold(w, "anoche")
	case len("night"):
		return strings.EqualFold(w, "night") && strings.EqualFold(prev, "last")
	}
	return false
}

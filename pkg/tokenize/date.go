package tokenize

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

// emitISODate emits the terms of the ISO date s opens with (YYYY-MM-DD,
// a valid month and day, not followed by a letter or digit) and returns
// its length, or 0 when s does not open with one.
func emitISODate(s string, fn func(string, bool)) int {
	const n = len("2006-01-02")
	if len(s) < n || s[4] != '-' || s[7] != '-' {
		return 0
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if !isDigitASCII(s[i]) {
			return 0
		}
	}
	if len(s) > n && (s[n] >= 0x80 || asciiWord[s[n]]) {
		return 0
	}
	month := int(s[5]-'0')*10 + int(s[6]-'0')
	day := s[8:10]
	if month < 1 || month > 12 || day == "00" || day > "31" {
		return 0
	}
	fn(s[:4], false)
	fn(s[5:7], false)
	emitTerm(monthNames[month-1], fn)
	if day[0] == '0' {
		day = day[1:]
	}
	fn(day, false)
	return n
}

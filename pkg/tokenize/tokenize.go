// Package tokenize turns text into the terms the index stores and a query
// looks for.
//
// Both sides must tokenize identically, so this is the only place that
// decides what a term is: lower-cased, accent-folded ("café" → "cafe"),
// split at anything that is not a letter or digit, and split again inside
// identifiers (CamelCase, snake_case, kebab-case) while also keeping the
// joined identifier, so "parseHTTPRequests" yields pars, http, request and
// parsehttprequests and a query for any of them finds it.
//
// Words are then stemmed (see Stem), so "lives", "lived" and "living" all
// meet "live". Stop words are not stemmed, and neither is anything that
// looks like an identifier: a word with digits, or the joined form of a
// CamelCase name, which must still match exactly.
//
// A date written as digits also yields its month's name (see date.go), so
// "2023-05-25" meets "25 May 2023", and a dated text's "yesterday" yields
// the day before.
//
// Tokenizing is one pass over the text with a map lookup a word, cheap
// enough to run on every save and every query. What it cannot do follows
// from deciding by the word alone: the stop words and stemming rules are
// English and Spanish ones, applied to every word whatever its language;
// scripts written without spaces (Chinese, Japanese, Thai) are not
// segmented, so a run of them is one term, cut at MaxTermLen; and nothing
// is matched by meaning or spelling: "car" does not meet "automobile", nor
// "postgress" "postgres".
package tokenize

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxTermLen bounds a single term; longer runs (base64 blobs, minified
// code) are cut so one token cannot bloat the index.
const MaxTermLen = 64

// Tokens returns every term of text in order, stop words included.
func Tokens(text string) []string {
	return tokens(text).strings()
}

// Words returns text's words in order, each as a term (lower-cased,
// folded, stemmed), stop words included and compounds whole: unlike
// Tokens, "ClickHouse" is one word, not also "click" and "house". It is
// for reading what a sentence says, not for the index.
func Words(text string) []string {
	return wordMemo.get(text, func(text string) packed {
		var k packer
		for _, w := range words(text) {
			k.add(w, false)
		}
		return k.done()
	}).strings()
}

// words is Words without the memo.
func words(text string) []string {
	var out []string
	text = fold(text)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := text[start:end]
		start = -1
		if !isLowerASCIIWord(w) && len(splitCamel(w)) > 1 {
			out = append(out, clip(strings.ToLower(w))) // as the index holds a compound: whole, unstemmed
			return
		}
		emitTerm(clip(strings.ToLower(w)), func(t string, _ bool) { out = append(out, t) })
	}
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// Each calls fn for every term of text in order, stop words included.
func Each(text string, fn func(term string)) {
	if !memoised(text) {
		each(text, func(t string, _ bool) { fn(t) })
		return
	}
	ts := tokens(text)
	for i := range ts.len() {
		fn(ts.term(i))
	}
}

// each calls fn for every term of text in order, saying whether it is a
// stop word: that is decided on the word before stemming, so a stem that
// happens to spell a stop word does not turn its word into one.
func each(text string, fn func(term string, stop bool)) {
	text = fold(text)
	start, skip := -1, 0
	var anchor time.Time // the text's first date
	var prev string      // the word before
	opened := false      // a word came before: a date now does not open the text
	word := func(w string, rest string) {
		switch {
		case negated(w, rest):
			fn(strings.ToLower(w), true) // "won't" is "will not", not "won"
		default:
			emitWord(w, fn)
		}
		if !anchor.IsZero() && yesterday(w, prev) {
			emitDate(anchor.AddDate(0, 0, -1), fn)
		}
		prev, opened = w, true
	}
	for i, r := range text {
		if i < skip {
			continue
		}
		if start < 0 && r >= '0' && r <= '9' {
			if d, ok := isoDate(text[i:]); ok {
				emitDate(d, fn)
				if anchor.IsZero() && !opened {
					anchor = d
				}
				opened = true
				skip = i + len(time.DateOnly)
				continue
			}
		}
		var isWord bool
		if r < utf8.RuneSelf {
			isWord = asciiWord[r]
		} else {
			isWord = isWordRune(r)
		}
		if isWord {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			word(text[start:i], text[i:])
			start = -1
		}
	}
	if start >= 0 {
		word(text[start:], "")
	}
}

// negated reports whether word w, followed by rest, is the first half of
// a negative contraction whose first half would otherwise read as another
// word: "won't" (will not) is not the past of "win".
func negated(w, rest string) bool {
	if len(w) != 3 || !strings.EqualFold(w, "won") {
		return false
	}
	for _, apos := range [...]string{"'", "\u2019"} {
		if r, ok := strings.CutPrefix(rest, apos); ok && len(r) > 0 && (r[0] == 't' || r[0] == 'T') {
			return len(r) == 1 || r[1] >= utf8.RuneSelf || !asciiWord[r[1]]
		}
	}
	return false
}

// Terms returns the informative terms of a query, deduplicated, in order of
// first appearance: stop words are dropped unless the query consists of
// nothing else (then "who am i" still searches for something).
func Terms(query string) []string {
	var informative, every []string
	seen := make(map[string]bool)
	ts := tokens(query)
	for i := range ts.len() {
		t := ts.term(i)
		if seen[t] {
			continue
		}
		seen[t] = true
		every = append(every, t)
		if !ts.stops[i] {
			informative = append(informative, t)
		}
	}
	if len(informative) == 0 {
		return every
	}
	return informative
}

// asciiWord is isWordRune for the ASCII runes, looked up rather than
// asked of the Unicode tables: most text is ASCII, and each rune of every
// saved text is asked once.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = isWordRune(r)
	}
	return t
}()

// isWordRune reports whether r belongs inside a word. Underscores and
// hyphens are separators, so snake_case and kebab-case split like spaces;
// the joined form is restored by emitWord through the identifier rules.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// emitWord emits a maximal run of letters and digits: its CamelCase parts,
// lower-cased and stemmed, then the whole word, unstemmed, when it had more
// than one part.
func emitWord(w string, fn func(string, bool)) {
	if isLowerASCIIWord(w) {
		emitTerm(clip(w), fn) // the common case, without splitting
		return
	}
	var buf [8]string
	var parts []string
	if isASCII(w) {
		parts = splitCamelASCII(w, buf[:0])
	} else {
		parts = splitCamel(w)
	}
	for _, p := range parts {
		emitTerm(clip(strings.ToLower(p)), fn)
	}
	if len(parts) > 1 {
		fn(clip(strings.ToLower(w)), false)
	}
}

// emitTerm emits one lower-case word: a stop word as it is, any other word
// stemmed, unless its stem would spell a stop word ("cans" is not "can").
func emitTerm(t string, fn func(string, bool)) {
	var e lexEntry
	known := false
	if inLexiconFilter(t) {
		e, known = lexicon[t]
	}
	switch {
	case e.stop:
		fn(t, true)
		return
	case !stemmable(t):
	case known && e.stem != "":
		t = e.stem
	default:
		if s := stemRules(t); s != t && !IsStopWord(s) {
			t = s
		}
	}
	fn(t, false)
}

// splitCamel splits "parseHTTPRequest2" into parse, HTTP, Request2: a new
// part starts at a lower→upper change, and before the last upper-case letter
// of an acronym that is followed by a lower-case letter. Digits stay with the
// part they follow, so "utf8" and "k8s" remain whole.
func splitCamel(w string) []string {
	if isLowerASCIIWord(w) {
		return []string{w}
	}
	runes := []rune(w)
	var parts []string
	start := 0
	for i := 1; i < len(runes); i++ {
		prev, cur := runes[i-1], runes[i]
		boundary := unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev))
		if !boundary && unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) {
			boundary = true
		}
		if boundary {
			parts = append(parts, string(runes[start:i]))
			start = i
		}
	}
	return append(parts, string(runes[start:]))
}

// splitCamelASCII is splitCamel for an ASCII word, appending the parts,
// substrings of w, to parts: no conversion to runes and back, which is
// most of what splitting a capitalised word would otherwise cost.
func splitCamelASCII(w string, parts []string) []string {
	start := 0
	for i := 1; i < len(w); i++ {
		prev, cur := w[i-1], w[i]
		boundary := isUpperASCII(cur) && (isLowerASCII(prev) || isDigitASCII(prev))
		if !boundary && isUpperASCII(prev) && isUpperASCII(cur) && i+1 < len(w) && isLowerASCII(w[i+1]) {
			boundary = true
		}
		if boundary {
			parts = append(parts, w[start:i])
			start = i
		}
	}
	return append(parts, w[start:])
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigitASCII(c byte) bool { return c >= '0' && c <= '9' }

func isASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLowerASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func clip(t string) string {
	if len(t) <= MaxTermLen {
		return t
	}
	cut := MaxTermLen
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return t[:cut]
}

// fold removes diacritics (NFD, then drop combining marks) so "Málaga",
// "malaga" and "MALAGA" meet. ASCII text, the common case, is returned
// untouched without allocating.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		switch r {
		case 'ß':
			b.WriteString("ss")
		case 'ø', 'Ø':
			b.WriteRune('o')
		case 'ł', 'Ł':
			b.WriteRune('l')
		case 'æ', 'Æ':
			b.WriteString("ae")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

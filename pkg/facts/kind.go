package facts

import (
	"strings"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// Kind is what a text is, which decides which of its words may state a
// fact about the user or a project.
//
// A memory someone saved states things: "I live in Valencia". A document a
// person keeps — a README, a design note — states things too, but also
// describes and quotes: a README that explains the feature with "saves
// such as \"I live in Madrid\" become facts" says nothing about where its
// reader lives. And code says nothing about the user at all: its strings,
// comments and test fixtures describe programs ("Ana is the tech lead" in
// a test table, "the API port is 8080" in a benchmark).
type Kind int

const (
	// Stated is a memory someone saved: every sentence may state a fact,
	// except what a fenced code block holds.
	Stated Kind = iota
	// Document is prose of a document someone keeps: its own statements
	// may state facts; code (fenced, or in backticks), quotations, block
	// quotes and sentences that give an example do not.
	Document
	// Code is source code: it states no fact.
	Code
)

// ExtractKind returns the facts a text of kind k states: Extract over the
// text with whatever k says states nothing blanked out (code, examples,
// quotations), so values are still the text's own words at their places.
func (x *Extractor) ExtractKind(text string, k Kind) []Fact {
	if k == Code || !utf8.ValidString(text) {
		return nil
	}
	return x.Extract(Statements(text, k))
}

// Statements returns text with every part that states nothing for kind k
// replaced by spaces (line ends kept, so lines and offsets stay where they
// were): fenced code blocks always; in a Document also block quotes,
// backtick code spans, quotations, sentences that give an example ("for
// example", "e.g.", "such as", "por ejemplo", "p. ej.", …) and what a
// sentence ending in one of those and a colon introduces. A Code text is
// blanked whole.
func Statements(text string, k Kind) string {
	b := []byte(text)
	switch k {
	case Code:
		blank(b, 0, len(b))
	case Document:
		blankFences(b)
		blankQuoteLines(b)
		blankSpans(b)
		blankExamples(b)
	default:
		blankFences(b)
	}
	return string(b)
}

// blank replaces b[lo:hi] with spaces, keeping line ends, and whole UTF-8
// sequences (every byte of a multi-byte rune becomes a space).
func blank(b []byte, lo, hi int) {
	for i := lo; i < hi; i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
}

// lines returns the [start, end) of every line of b, end before its '\n'.
func lines(b []byte) [][2]int {
	var out [][2]int
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, [2]int{start, i})
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, [2]int{start, len(b)})
	}
	return out
}

// fence reports whether line is a code fence (``` or ~~~, indented at most
// three spaces) and which.
func fence(line []byte) (byte, int, bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i+3 > len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, false
	}
	c, n := line[i], 0
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	return c, n, n >= 3
}

// blankFences blanks fenced code blocks, fences included; an unclosed
// fence runs to the end, as Markdown has it.
func blankFences(b []byte) {
	open := false
	var oc byte
	var on, from int
	for _, l := range lines(b) {
		c, n, ok := fence(b[l[0]:l[1]])
		switch {
		case !open && ok:
			open, oc, on, from = true, c, n, l[0]
		case open && ok && c == oc && n >= on:
			blank(b, from, l[1])
			open = false
		}
	}
	if open {
		blank(b, from, len(b))
	}
}

// blankQuoteLines blanks Markdown block quotes: lines starting with ">".
func blankQuoteLines(b []byte) {
	for _, l := range lines(b) {
		t := strings.TrimLeft(string(b[l[0]:l[1]]), " \t")
		if strings.HasPrefix(t, ">") {
			blank(b, l[0], l[1])
		}
	}
}

// quotePairs are the quotation marks a document quotes between.
var quotePairs = map[rune]rune{'"': '"', '“': '”', '«': '»', '„': '“', '`': '`'}

// maxQuote bounds a quotation or code span: a stray mark must not blank a
// whole paragraph.
const maxQuote = 600

// blankSpans blanks backtick code spans and quotations. A span does not
// cross a paragraph (a blank line), and a mark without its closer within
// maxQuote bytes is left as it is.
func blankSpans(b []byte) {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		closer, ok := quotePairs[r]
		if !ok || (r == '"' && i > 0 && wordByte(b[i-1])) {
			i += size
			continue
		}
		run := 1
		if r == '`' {
			for i+run < len(b) && b[i+run] == '`' {
				run++
			}
		}
		end := findCloser(b, i+run*size, closer, run)
		if end < 0 {
			i += run * size
			continue
		}
		blank(b, i, end)
		i = end
	}
}

// findCloser returns the end of the span whose closer (run of them, for
// backticks) comes first at or after from, -1 when a paragraph ends or
// maxQuote passes first.
func findCloser(b []byte, from int, closer rune, run int) int {
	cb := string(closer)
	for j := from; j < len(b) && j-from < maxQuote; {
		if b[j] == '\n' && blankLineAt(b, j+1) {
			return -1
		}
		if strings.HasPrefix(string(b[j:min(len(b), j+len(cb)*run)]), strings.Repeat(cb, run)) {
			end := j + len(cb)*run
			if closer == '`' && end < len(b) && b[end] == '`' {
				j = end
				for j < len(b) && b[j] == '`' {
					j++
				}
				continue
			}
			return end
		}
		_, size := utf8.DecodeRune(b[j:])
		j += size
	}
	return -1
}

// blankLineAt reports whether the line starting at i holds only white space.
func blankLineAt(b []byte, i int) bool {
	for ; i < len(b) && b[i] != '\n'; i++ {
		if b[i] != ' ' && b[i] != '\t' && b[i] != '\r' {
			return false
		}
	}
	return true
}

// wordByte is a byte of a word: an ASCII letter or digit, or any byte of a
// multi-byte rune (a letter, in the texts this reads).
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// exampleMarkers are words that introduce an example or a hypothesis, in
// English and Spanish: the sentence holding one shows something, it does
// not state it. Matched as whole words, case-insensitively.
var exampleMarkers = words.List("example_markers")

// blankExamples blanks every sentence that holds an example marker, and
// when that sentence ends with a colon, the block it introduces: the next
// paragraph, or the list that follows.
func blankExamples(b []byte) {
	lower := []byte(asciiLower(string(b))) // offsets kept
	for _, s := range sentences(b) {
		if !hasMarker(lower[s[0]:s[1]]) {
			continue
		}
		blank(b, s[0], s[1])
		if t := strings.TrimRight(string(lower[s[0]:s[1]]), " \t\r\n"); strings.HasSuffix(t, ":") {
			blank(b, s[1], introduced(b, s[1]))
		}
	}
}

func hasMarker(s []byte) bool {
	t := string(s)
	for _, m := range exampleMarkers {
		for from := 0; ; {
			i := strings.Index(t[from:], m)
			if i < 0 {
				break
			}
			i += from
			before := i == 0 || !wordByte(t[i-1])
			end := i + len(m)
			after := end >= len(t) || !wordByte(t[end]) || !wordByte(m[len(m)-1])
			if before && after {
				return true
			}
			from = i + 1
		}
	}
	return false
}

// sentences splits b into sentence spans: at ". ", "! ", "? " (and the
// same before a line end), at blank lines, and before a line that starts
// a list item or a heading.
func sentences(b []byte) [][2]int {
	var out [][2]int
	start := 0
	cut := func(end int) {
		if end > start {
			out = append(out, [2]int{start, end})
		}
		start = end
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case (c == '.' || c == '!' || c == '?' || c == ':') && (i+1 == len(b) || b[i+1] == ' ' || b[i+1] == '\n' || b[i+1] == '\r'):
			if c == '.' && abbreviation(b, i) {
				continue
			}
			cut(i + 1)
		case c == '\n' && (blankLineAt(b, i+1) || startsBlock(b, i+1)):
			cut(i + 1)
		}
	}
	cut(len(b))
	return out
}

var exampleAbbreviations = words.List("example_abbreviations")

// abbreviation reports whether the full stop at i ends an abbreviation an
// example marker holds ("e.g.", "p. ej."), which does not end a sentence.
func abbreviation(b []byte, i int) bool {
	lo := max(0, i-5)
	t := strings.ToLower(string(b[lo : i+1]))
	for _, a := range exampleAbbreviations {
		if strings.HasSuffix(t, a) && (len(t) == len(a) || !wordByte(t[len(t)-len(a)-1])) {
			return a != "etc."
		}
	}
	return false
}

// startsBlock reports whether the line at i starts a list item or a
// heading.
func startsBlock(b []byte, i int) bool {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i >= len(b) {
		return false
	}
	switch b[i] {
	case '-', '*', '+':
		return i+1 < len(b) && b[i+1] == ' '
	case '#':
		return true
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return j > i && j+1 < len(b) && (b[j] == '.' || b[j] == ')') && b[j+1] == ' '
}

// introduced returns the end of the block a sentence ending in a colon
// introduces, starting at from: the next paragraph, or a list together
// with its items' following lines.
func introduced(b []byte, from int) int {
	i := from
	// Skip to the block's first line.
	for i < len(b) && (b[i] == '\n' || b[i] == '\r' || b[i] == ' ' || b[i] == '\t') {
		i++
	}
	list := startsBlock(b, i) && b[skipSpace(b, i)] != '#'
	for i < len(b) {
		nl := strings.IndexByte(string(b[i:]), '\n')
		if nl < 0 {
			return len(b)
		}
		i += nl + 1
		if blankLineAt(b, i) {
			// A list goes on after a blank line if an item follows.
			j := i
			for j < len(b) && blankLineAt(b, j) {
				k := strings.IndexByte(string(b[j:]), '\n')
				if k < 0 {
					return len(b)
				}
				j += k + 1
			}
			if list && startsBlock(b, j) && b[skipSpace(b, j)] != '#' {
				i = j
				continue
			}
			return i
		}
	}
	return len(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b)-1 && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lineStarts returns the offset of every line's first byte. A line runs up
// to and including its "\n"; a final line without one still counts, and an
// empty text has no lines.
func lineStarts(text string) []int {
	if text == "" {
		return nil
	}
	starts := make([]int, 1, strings.Count(text, "\n")+1)
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 || i+j+1 == len(text) {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return starts
}

// lineEnd is the end offset of line i given its starts.
func lineEnd(starts []int, i, n int) int {
	if i+1 < len(starts) {
		return starts[i+1]
	}
	return n
}

// isBlank reports whether s holds nothing but white space (a byte-order
// mark counts as white space here: it is invisible to a reader).
func isBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && r != '\uFEFF' {
			return false
		}
	}
	return true
}

// trimLine strips white space, a line end and a byte-order mark.
func trimLine(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

// firstWords returns about the first n words of s on one line, for a
// fallback title.
func firstWords(s string, n int) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 240 {
		s = s[:240]
	}
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return clip(strings.Join(f, " "), 60)
}

// foldASCII lower-cases s and strips the Spanish accents, so that
// "Diagnóstico" and "diagnostico" compare equal.
func foldASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case 'á', 'Á', 'à', 'À', 'ä', 'Ä':
			r = 'a'
		case 'é', 'É', 'è', 'È', 'ë', 'Ë':
			r = 'e'
		case 'í', 'Í', 'ì', 'Ì', 'ï', 'Ï':
			r = 'i'
		case 'ó', 'Ó', 'ò', 'Ò', 'ö', 'Ö':
			r = 'o'
		case 'ú', 'Ú', 'ù', 'Ù', 'ü', 'Ü':
			r = 'u'
		case 'ñ', 'Ñ':
			r = 'n'
		default:
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sample returns at most the first 64 KiB of text, cut at a line end, for
// the detector: a type is clear long before the end of a big file.
func sample(text string) string {
	const n = 64 << 10
	if len(text) <= n {
		return text
	}
	s := text[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i+1]
	}
	for len(s) > 0 && !utf8.RuneStart(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

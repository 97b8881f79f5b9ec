// Package tokenize turns text into the terms the index stores and a query
// looks for.
//
// Both sides must tokenize identically, so this is the only place that
// decides what a term is: lower-cased, accent-folded ("café" → "cafe"),
// split at anything that is not a letter or digit, and split again inside
// identifiers (CamelCase, snake_case, kebab-case) while also keeping the
// joined identifier, so "parseHTTPRequest" yields parse, http, request and
// parsehttprequest and a query for any of them finds it.
package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxTermLen bounds a single term; longer runs (base64 blobs, minified
// code) are cut so one token cannot bloat the index.
const MaxTermLen = 64

// Tokens returns every term of text in order, stop words included.
func Tokens(text string) []string {
	var out []string
	Each(text, func(t string) { out = append(out, t) })
	return out
}

// Each calls fn for every term of text in order, stop words included.
func Each(text string, fn func(term string)) {
	text = fold(text)
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emitWord(text[start:i], fn)
			start = -1
		}
	}
	if start >= 0 {
		emitWord(text[start:], fn)
	}
}

// Terms returns the informative terms of a query, deduplicated, in order of
// first appearance: stop words are dropped unless the query consists of
// nothing else (then "who am i" still searches for something).
func Terms(query string) []string {
	all := Tokens(query)
	seen := make(map[string]bool, len(all))
	var informative, every []string
	for _, t := range all {
		if seen[t] {
			continue
		}
		seen[t] = true
		every = append(every, t)
		if !IsStopWord(t) {
			informative = append(informative, t)
		}
	}
	if len(informative) == 0 {
		return every
	}
	return informative
}

// isWordRune reports whether r belongs inside a word. Underscores and
// hyphens are separators, so snake_case and kebab-case split like spaces;
// the joined form is restored by emitWord through the identifier rules.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// emitWord emits a maximal run of letters and digits: its CamelCase parts,
// lower-cased, then the whole word when it had more than one part.
func emitWord(w string, fn func(string)) {
	parts := splitCamel(w)
	for _, p := range parts {
		fn(clip(strings.ToLower(p)))
	}
	if len(parts) > 1 {
		fn(clip(strings.ToLower(w)))
	}
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

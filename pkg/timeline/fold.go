package timeline

import "unicode"

// foldRune lower-cases r and removes its accent. The table covers the
// Latin letters of the languages memories are written in; other runes
// are only lower-cased. (The standard library has no Unicode
// decomposition, and this package keeps to it.)
func foldRune(r rune) string {
	r = unicode.ToLower(r)
	if s, ok := unaccent[r]; ok {
		return s
	}
	return string(r)
}

var unaccent = func() map[rune]string {
	m := map[rune]string{}
	for base, accented := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ďđ", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥħ",
		"i": "ìíîïĩīĭįı", "j": "ĵ", "k": "ķ", "l": "ĺļľŀł", "n": "ñńņňŉ", "o": "òóôõöøōŏő",
		"r": "ŕŗř", "s": "śŝşš", "t": "ţťŧ", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
		"ss": "ß", "ae": "æ", "oe": "œ", "th": "þ",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()

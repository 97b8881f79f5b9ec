package lexicon

import (
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Addresses returns the IPv4 addresses text gives names, by the names'
// terms: each address is given to the words of its clause since the
// previous address ("The NAS, faro, is at 192.168.1.20", "faro is
// 10.0.10.20, docker-vm 10.0.10.30"). A concept's own word ("ip",
// "server") names no one thing, nor does an owner ("tern's printer" is
// not tern). Two memories that give one name two
// addresses state where one thing is, twice: an address alone does not
// (every host has one).
func (x *Lexicon) Addresses(text string) map[string]string {
	out := map[string]string{}
	if !mayHoldIPv4(text) {
		return out // most texts: not worth reading word by word
	}
	// Clauses as clauses splits them, but for a colon inside a field: a
	// URL's or a port's is part of the address.
	text = clauseBreaks.Replace(text)
	for _, clause := range strings.FieldsFunc(text, func(r rune) bool { return r == ';' || r == '(' || r == ')' || r == '\n' }) {
		var names []string
		for _, f := range strings.Fields(clause) {
			if ip := ipv4In(f); ip != "" {
				for _, n := range names {
					out[n] = ip
				}
				names = names[:0]
				continue
			}
			if strings.HasSuffix(f, "'s") || strings.HasSuffix(f, "’s") {
				continue // the owner of what is at the address ("faro's admin UI")
			}
			for _, t := range stems(f) {
				// A light word ("runs on", "went to") names nothing.
				if !tokenize.IsStopWord(t) && !tokenize.IsLight(t) && !x.conceptWord(t) && len(t) > 1 {
					names = append(names, t)
				}
			}
		}
	}
	return out
}

var clauseBreaks = strings.NewReplacer(": ", ";", ". ", ";")

// conceptWord reports whether term t is on its own a word of a concept.
func (x *Lexicon) conceptWord(t string) bool {
	for _, p := range x.words[t] {
		if len(p.words) == 1 {
			return true
		}
	}
	return false
}

// mayHoldIPv4 reports whether text holds four runs of digits joined by
// dots, the shape every address ipv4In accepts has.
func mayHoldIPv4(text string) bool {
	for i := 0; i < len(text); i++ {
		if isDigit(text[i]) && (i == 0 || !isDigit(text[i-1])) && dottedQuad(text[i:]) {
			return true
		}
	}
	return false
}

// dottedQuad reports whether s opens with digits, a dot, digits, a dot,
// digits, a dot and digits.
func dottedQuad(s string) bool {
	i := 0
	for group := range 4 {
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false
		}
		if group < 3 {
			if i == len(s) || s[i] != '.' {
				return false
			}
			i++
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// ipv4In returns the IPv4 address a field is or holds as a URL's host
// ("https://192.168.1.20:5001", "10.0.10.0/24"), or "".
func ipv4In(f string) string {
	if i := strings.Index(f, "://"); i >= 0 {
		f = f[i+3:]
	}
	if i := strings.IndexAny(f, ":/,;)"); i >= 0 {
		f = f[:i]
	}
	f = strings.TrimPrefix(strings.TrimSuffix(f, "."), "(")
	parts := strings.Split(f, ".")
	if len(parts) != 4 {
		return ""
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }) >= 0 || len(p) == 3 && p > "255" {
			return ""
		}
	}
	return f
}

// AddressConcepts returns the concepts whose values are hosts' addresses.
func (x *Lexicon) AddressConcepts() Set { return x.hosts }

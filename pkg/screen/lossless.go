package screen

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// A secret written so that a reader can undo the change without guessing
// is still the secret: reversed ("V8cG…_evil_ks" is a Stripe key read
// right to left), or an AWS key id lower-cased (its alphabet is upper-case
// letters and digits only, so upper-casing it gives it back exactly). A
// change that loses what the secret is made of — a mixed-case token
// lower-cased, whose capitals a reader can only guess among 2^n — leaves
// no usable secret, and is not refused.

// reversedTokens finds the shaped tokens (tokenPatterns) of the folded
// view f read right to left, placed where they are in the original.
func reversedTokens(f view) []candidate {
	rev, from := reversedRunes(f.text)
	var cs []candidate
	for _, p := range tokenPatterns {
		for _, m := range p.re.FindAllStringIndex(rev, -1) {
			s, e := m[0], m[1]
			if !p.accept(rev, s, e) {
				continue
			}
			// The match's last byte read right to left is its first in f.
			fs, fe := from[e-1], from[s]+1
			os, oe := f.span(fs, fe)
			cs = append(cs, candidate{kind: p.kind, rank: rankOf(p.kind), start: os, end: oe})
		}
	}
	return cs
}

// reversedRunes returns t with its characters in the opposite order, and
// for every byte of it the offset in t of the character it belongs to.
func reversedRunes(t string) (string, []int) {
	b := make([]byte, 0, len(t))
	from := make([]int, 0, len(t)+1)
	for i := len(t); i > 0; {
		_, n := utf8.DecodeLastRuneInString(t[:i])
		b = append(b, t[i-n:i]...)
		for range n {
			from = append(from, i-n)
		}
		i -= n
	}
	return string(b), append(from, len(t))
}

// awsLower is an AWS key id in any case: the prefix, then 16 letters or
// digits, standing alone.
var awsLower = regexp.MustCompile(`(?i)\b(?:akia|asia)[0-9a-z]{16}\b`)

// lowerAWS finds AWS key ids written in lower or mixed case in the folded
// view f (text): upper-cased they are the key id exactly. The body must
// mix letters and digits, as a random id does, so a word glued to a year
// is not one.
func lowerAWS(text string, f view) []candidate {
	var cs []candidate
	for _, m := range awsLower.FindAllStringIndex(text, -1) {
		tok := text[m[0]:m[1]]
		if tok == strings.ToUpper(tok) {
			continue // as written: the shaped check has it
		}
		body := tok[4:]
		digitsN := strings.Count(body, "0") + strings.Count(body, "1") + strings.Count(body, "2") + strings.Count(body, "3") +
			strings.Count(body, "4") + strings.Count(body, "5") + strings.Count(body, "6") + strings.Count(body, "7") +
			strings.Count(body, "8") + strings.Count(body, "9")
		if digitsN < 2 || len(body)-digitsN < 2 || exampleMarked(tok) || !randomish(strings.ToLower(body)) {
			continue
		}
		os, oe := f.span(m[0], m[1])
		cs = append(cs, candidate{kind: kindAWSKeyID, rank: rankOf(kindAWSKeyID), start: os, end: oe})
	}
	return cs
}

// randomish tells 16 random letters and digits from words with a number:
// its letters do not run in long pieces.
func randomish(b string) bool {
	run, longest := 0, 0
	for i := 0; i < len(b); i++ {
		if isLetter(b[i]) {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest <= 7
}

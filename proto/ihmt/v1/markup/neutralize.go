package markup

import (
	"strings"
	"unicode/utf8"
)

// openers are the characters a model may read as a tag's '<': the ASCII
// one and its look-alikes (full width, small, angle brackets).
var openers = map[rune]bool{'<': true, '\uFF1C': true, '\uFE64': true, '\u3008': true, '\u2329': true, '\u27E8': true, '\u2039': true}

// Mode says how much markup [Neutralize] escapes.
type Mode int

const (
	// Prose escapes every tag-like '<' (one followed by a letter, '/', '|',
	// '!' or '?', or spaced out before a context tag): right for memories
	// and notes, where a tag is never needed and an escaped one still
	// reads; "a < b" stays.
	Prose Mode = iota
	// Code escapes only the tags of markup.json and template tokens
	// ("<|…|>"), so that a file's `List<String>` and JSX stay as written.
	Code
)

// Neutralize returns s safe to hand a model as data: the '<' of tag-like
// markup (see [Mode]) written as "&lt;", so that it reads as a tag and
// acts as none; and the characters a person cannot see but a model reads
// (tag characters, marks of direction, zero-width characters) dropped. It
// keeps everything else as written.
func Neutralize(s string, mode Mode) string {
	if !needsWork(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case hidden(r):
		case openers[r] && tagLike(s[i+n:], mode):
			b.WriteString("&lt;")
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsWork is a fast check for the common case: nothing to change.
func needsWork(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '<' || s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// tagLike reports whether what follows an opener makes it markup in mode.
func tagLike(rest string, mode Mode) bool {
	t := strings.TrimLeft(rest, " \t")
	switch {
	case t == "":
		return false
	case t[0] == '|' || strings.HasPrefix(t, "｜"):
		return true // a template token, "<|im_start|>"
	}
	if mode == Prose && len(t) == len(rest) && (t[0] == '/' || t[0] == '!' || t[0] == '?' || isLetter(t[0])) {
		return true // "<b>", "</p>", "<!--": a tag in prose
	}
	// Spaced ("a < b" is a comparison, "< / system >" a tag) or code: only
	// the context's own tags.
	name, ok := TagAt(rest)
	return ok && IsContextTag(name)
}

// hidden reports whether r renders as nothing yet carries meaning to a
// model: the tag characters (U+E0000–E007F, which shadow ASCII), the marks
// and overrides of direction, and the zero-width characters.
func hidden(r rune) bool {
	switch {
	case 0xE0000 <= r && r <= 0xE007F:
		return true
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	case 0x200B <= r && r <= 0x200D, r == 0x2060, r == 0xFEFF:
		return true
	}
	return false
}

package screen

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A determined writer disguises a secret or an instruction so that the
// bytes no longer match while a reader (a person, or a model reading the
// memory back) still sees it: zero-width and format characters inside it,
// one confusable letter (full width, Cyrillic, Greek, mathematical), a
// split across lines, spaces or Markdown emphasis, or an encoding (base64,
// HTML entities, URL escapes). The screens therefore look at views of the
// text that undo each disguise, and report what they find at its place in
// the original.

// view is a rewritten copy of a text and, for every byte of it, the offset
// in the original that byte came from. from has one extra entry, the
// original's end, so a span [s, e) of the view maps to [from[s], from[e]).
type view struct {
	text string
	from []int
	// changed lists offsets in text where it differs from the original
	// (fold records them), so a check can look again only there.
	changed []int
}

// span maps [s, e) of the view to the original, never empty.
func (v view) span(s, e int) (int, int) {
	os, oe := v.from[s], v.from[min(e, len(v.from)-1)]
	if oe <= os {
		oe = os + 1
	}
	return os, oe
}

// compose maps a view of v back through v to the original.
func (v view) compose(w view) view {
	from := make([]int, len(w.from))
	for i, k := range w.from {
		from[i] = v.from[k]
	}
	return view{text: w.text, from: from}
}

// viewBuilder writes a view.
type viewBuilder struct {
	b       []byte
	from    []int
	changed []int
}

// mark records that the view differs from the original here.
func (vb *viewBuilder) mark() {
	if n := len(vb.changed); n == 0 || vb.changed[n-1] != len(vb.b) {
		vb.changed = append(vb.changed, len(vb.b))
	}
}

func (vb *viewBuilder) add(s string, at int) {
	vb.b = append(vb.b, s...)
	for range len(s) {
		vb.from = append(vb.from, at)
	}
}

// drop takes back the last byte written.
func (vb *viewBuilder) drop() {
	vb.b = vb.b[:len(vb.b)-1]
	vb.from = vb.from[:len(vb.from)-1]
}

func (vb *viewBuilder) done(end int) view {
	return view{text: string(vb.b), from: append(vb.from, end), changed: vb.changed}
}

// confusables maps letters that look like Latin ones in common fonts to
// them: the Cyrillic and Greek capitals and small letters a reader cannot
// tell from a, c, e, o, p, x and the rest. Width and mathematical or
// circled forms are folded by compatibility decomposition instead.
var confusables = map[rune]string{
	'А': "A", 'В': "B", 'Е': "E", 'К': "K", 'М': "M", 'Н': "H", 'О': "O", 'Р': "P",
	'С': "C", 'Т': "T", 'Х': "X", 'У': "Y", 'І': "I", 'Ј': "J", 'Ѕ': "S", 'Ԛ': "Q", 'Ԝ': "W",
	'а': "a", 'е': "e", 'о': "o", 'р': "p", 'с': "c", 'у': "y", 'х': "x", 'і': "i",
	'ј': "j", 'ѕ': "s", 'ԁ': "d", 'һ': "h", 'ԛ': "q", 'ԝ': "w", 'ү': "y", 'ӏ': "l",
	'Α': "A", 'Β': "B", 'Ε': "E", 'Ζ': "Z", 'Η': "H", 'Ι': "I", 'Κ': "K", 'Μ': "M",
	'Ν': "N", 'Ο': "O", 'Ρ': "P", 'Τ': "T", 'Υ': "Y", 'Χ': "X",
	'ο': "o", 'α': "a", 'ι': "i", 'κ': "k", 'ν': "v", 'ρ': "p", 'υ': "u", 'τ': "t",
	'ɑ': "a", 'ɡ': "g", 'ı': "i", 'ℓ': "l",
	// Typography a model reads as its ASCII twin.
	'‐': "-", '‑': "-", '‒': "-", '–': "-", '—': "-", '―': "-", '−': "-",
	'“': `"`, '”': `"`, '„': `"`, '«': `"`, '»': `"`, '‘': "'", '’': "'", 'ʼ': "'",
}

// invisible reports whether r renders as nothing: format characters
// (zero-width space, joiners, marks of direction, the byte-order mark, soft
// hyphen, tag characters), variation selectors and combining marks — so
// that "ghp\u200b_…" and a key with accents stacked on it read as they look.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) ||
		(0xFE00 <= r && r <= 0xFE0F) || (0xE0100 <= r && r <= 0xE01EF) ||
		r == 0x034F || r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0
}

// foldRune returns what r reads as: "" for an invisible character, the
// ASCII letter a confusable stands for, the compatibility decomposition
// (full width, mathematical, circled, ligatures, accents dropped) of the
// rest, a space for any other space.
func foldRune(r rune) string {
	switch {
	case r < utf8.RuneSelf:
		return string(r)
	case 0xE0020 <= r && r <= 0xE007E:
		// A tag character: invisible, yet a model reads it as the ASCII
		// it shadows ("ASCII smuggling"), so the screens read it so too.
		return string(r - 0xE0000)
	case invisible(r):
		return ""
	case unicode.IsSpace(r):
		return " "
	}
	if s, ok := confusables[r]; ok {
		return s
	}
	d := norm.NFKD.String(string(r))
	var b strings.Builder
	for _, c := range d {
		if invisible(c) {
			continue
		}
		if s, ok := confusables[c]; ok {
			b.WriteString(s)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// inlineTags are the HTML tags of emphasis and code that may split a word
// without a reader seeing it.
var inlineTags = []string{
	"b", "/b", "i", "/i", "em", "/em", "strong", "/strong", "code", "/code", "s", "/s",
	"u", "/u", "mark", "/mark", "span", "/span", "sup", "/sup", "sub", "/sub", "wbr", "wbr/", "kbd", "/kbd",
}

// fold is the view a reader sees: invisible characters gone, confusables
// and compatibility forms folded to ASCII, HTML entities and URL escapes
// decoded, and Markdown emphasis (* ~ `) and inline HTML tags that touch a
// word removed. It changes nothing a plain ASCII note is made of, so an
// honest note reads the same in it.
func fold(text string) view {
	var vb viewBuilder
	vb.from = make([]int, 0, len(text)+1)
	for i := 0; i < len(text); {
		if n, s := decodeAt(text, i); n > 0 {
			vb.mark()
			vb.add(s, i)
			i += n
			continue
		}
		c := text[i]
		if c == '*' || c == '~' || c == '`' {
			j := i
			for j < len(text) && (text[j] == '*' || text[j] == '~' || text[j] == '`') {
				j++
			}
			if (i > 0 && isAlnum(text[i-1])) || (j < len(text) && isAlnum(text[j])) {
				vb.mark()
				i = j // emphasis touching a word: a reader does not see it
				continue
			}
			vb.add(text[i:j], i)
			i = j
			continue
		}
		if c == '<' {
			if n := inlineTag(text[i:]); n > 0 {
				vb.mark()
				i += n
				continue
			}
		}
		if c < utf8.RuneSelf {
			vb.add(text[i:i+1], i)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			vb.add(text[i:i+1], i)
		} else if f := foldRune(r); f != text[i:i+size] {
			vb.mark()
			vb.add(f, i)
		} else {
			vb.add(f, i)
		}
		i += size
	}
	return vb.done(len(text))
}

// inlineTag returns the length of an inline tag at the start of s, or 0.
func inlineTag(s string) int {
	end := strings.IndexByte(s, '>')
	if end < 2 || end > 40 {
		return 0
	}
	name := strings.ToLower(s[1:end])
	if sp := strings.IndexByte(name, ' '); sp > 0 && (strings.HasPrefix(name, "span") || strings.HasPrefix(name, "code")) {
		name = name[:sp]
	}
	for _, t := range inlineTags {
		if name == t {
			return end + 1
		}
	}
	return 0
}

// decodeAt decodes an HTML character reference (&#103; &#x67; &quot;), a
// URL escape (%67) or a JSON, JavaScript or C escape of a character
// (\u0067, \x67) at text[i], returning its length and what it stands for
// (folded like any other character), or 0.
func decodeAt(text string, i int) (int, string) {
	switch text[i] {
	case '\\':
		if i+5 < len(text) && text[i+1] == 'u' && isHexDigits(text[i+2:i+6]) {
			r := rune(unhex(text[i+2])<<4|unhex(text[i+3]))<<8 | rune(unhex(text[i+4])<<4|unhex(text[i+5]))
			if r >= 0xD800 && r < 0xE000 {
				return 0, "" // half of a pair: left as written
			}
			return 6, foldRune(r)
		}
		if i+3 < len(text) && text[i+1] == 'x' && isHexDigits(text[i+2:i+4]) {
			if b := unhex(text[i+2])<<4 | unhex(text[i+3]); b >= 0x20 && b < 0x7f {
				return 4, string(rune(b))
			}
		}
	case '%':
		if i+2 < len(text) && isHexDigit(text[i+1]) && isHexDigit(text[i+2]) {
			b := unhex(text[i+1])<<4 | unhex(text[i+2])
			if b < utf8.RuneSelf {
				return 3, string(rune(b))
			}
		}
	case '&':
		end := strings.IndexByte(text[i:min(len(text), i+12)], ';')
		if end < 2 {
			return 0, ""
		}
		ref := text[i : i+end+1]
		s := html.UnescapeString(ref)
		if s == ref {
			return 0, ""
		}
		var b strings.Builder
		for _, r := range s {
			b.WriteString(foldRune(r))
		}
		return len(ref), b.String()
	}
	return 0, ""
}

func isHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// tokenByte is a byte a key, a token or base64 is made of.
func tokenByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.'
}

// join is the view of v (its offsets are v's) in which what a line break or spaces split is one word
// again: every run of white space (with the quote or list markers that
// follow a line break in Markdown) between two bytes of a token is
// dropped; with dehyphen, so is a hyphen that ends a line between two
// letters or digits (a word broken with "-" at a line's end). It glues ordinary prose into long words too, so only checks
// that tell a random key from glued words run on it (see scanJoined).
func join(v view, dehyphen bool) view {
	t := v.text
	var vb viewBuilder
	vb.from = make([]int, 0, len(t)+1)
	for i := 0; i < len(t); {
		if t[i] != ' ' && t[i] != '\t' && t[i] != '\r' && t[i] != '\n' {
			vb.add(t[i:i+1], i)
			i++
			continue
		}
		j, lines := breakEnd(t, i)
		if i > 0 && tokenByte(t[i-1]) && j < len(t) && tokenByte(t[j]) && lines <= 2 {
			if dehyphen && lines > 0 && t[i-1] == '-' && i > 1 && isAlnum(t[i-2]) && isAlnum(t[j]) {
				vb.drop() // a hyphen that only breaks the line
			}
			i = j
			continue
		}
		for k := i; k < j; k++ {
			vb.add(t[k:k+1], k)
		}
		i = j
	}
	return vb.done(len(t))
}

// breakEnd returns where the white space at t[i] ends, with the Markdown
// quote (>) and list (- * +) markers that open a following line, and how
// many line breaks it holds.
func breakEnd(t string, i int) (int, int) {
	lines := 0
	for i < len(t) {
		switch t[i] {
		case ' ', '\t', '\r':
			i++
		case '\n':
			lines++
			i++
			for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
				i++
			}
			for i < len(t) && t[i] == '>' {
				i++
			}
			if i+1 < len(t) && (t[i] == '-' || t[i] == '+') && t[i+1] == ' ' {
				i++
			}
		default:
			return i, lines
		}
	}
	return i, lines
}

// Limits on what is decoded as base64: shorter runs are words and ids as
// often as encodings, and a decoded text is screened again at most this
// deep (base64 of base64).
const (
	minBase64Run = 16
	maxBase64Run = 64 << 10
	maxDecodeDep = 2
)

// base64Runs calls fn with every run of base64 in t that decodes to
// readable text, starting at a word's start: its span in t and the text it
// decodes to (the longest readable prefix, so a blob glued to a word by
// join still decodes).
func base64Runs(t string, fn func(s, e int, decoded string)) {
	for i := 0; i < len(t); i++ {
		if !isB64Byte(t[i]) || (i > 0 && isAlnum(t[i-1])) {
			continue
		}
		j := i
		for j < len(t) && j-i < maxBase64Run && isB64Byte(t[j]) {
			j++
		}
		if j-i >= minBase64Run {
			if d, n := decodeReadable(t[i:j]); len(d) >= minBase64Run*3/4 {
				fn(i, i+n, d)
				i += n - 1 // what decoded is not tried again from inside
				continue
			}
		}
		// Try again from the run's next word start: a blob glued to a word
		// by join starts there.
		for i < j && isAlnum(t[i]) {
			i++
		}
	}
}

func isB64Byte(c byte) bool {
	return isAlnum(c) || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// decodeReadable decodes base64 (standard or URL alphabet, padded or not)
// four characters at a time while what comes out is printable ASCII, and
// returns that and how many characters it took.
func decodeReadable(s string) (string, int) {
	var out []byte
	n := 0
	for n+4 <= len(s) || (n < len(s) && len(s)-n >= 2) {
		q := s[n:min(len(s), n+4)]
		var v uint32
		bits := 0
		for k := 0; k < len(q); k++ {
			d := b64Value(q[k])
			if d < 0 {
				break
			}
			v = v<<6 | uint32(d)
			bits += 6
		}
		if bits < 12 {
			break
		}
		nb := bits / 8
		v <<= 24 - uint32(bits)
		ok := true
		var got [3]byte
		for k := 0; k < nb; k++ {
			got[k] = byte(v >> (16 - 8*k))
			if c := got[k]; !(c >= 0x20 && c < 0x7f || c == '\n' || c == '\r' || c == '\t') {
				ok = false
			}
		}
		if !ok {
			break
		}
		out = append(out, got[:nb]...)
		n += len(q)
		if bits < 24 {
			break
		}
	}
	return string(out), n
}

func b64Value(c byte) int {
	switch {
	case isUpper(c):
		return int(c - 'A')
	case isLower(c):
		return int(c-'a') + 26
	case isDigit(c):
		return int(c-'0') + 52
	case c == '+' || c == '-':
		return 62
	case c == '/' || c == '_':
		return 63
	}
	return -1
}

// around returns the stretches of v around its changes, merged: where a
// check of v can find what a check of the original could not. A stretch
// runs from a few lines before a change to enough lines after it for the
// multi-line checks (a PEM block, a service-account file), each bounded in
// bytes, so the work stays linear however many changes there are.
func (v view) around() [][2]int {
	const back, fwd, backBytes, fwdBytes = 3, 40, 2 << 10, 8 << 10
	var out [][2]int
	t := v.text
	for _, c := range v.changed {
		if n := len(out); n > 0 && c < out[n-1][1] {
			continue
		}
		s, lines := c, 0
		for s > 0 && c-s < backBytes && lines <= back {
			s--
			if t[s] == '\n' {
				lines++
			}
		}
		e, lines := c, 0
		for e < len(t) && e-c < fwdBytes && lines <= fwd {
			if t[e] == '\n' {
				lines++
			}
			e++
		}
		if n := len(out); n > 0 && s <= out[n-1][1] {
			out[n-1][1] = e
			continue
		}
		out = append(out, [2]int{s, e})
	}
	return out
}

// minHexRun is the shortest run of hex digits decoded as text: 16 bytes,
// which a hash or an id is as often as an encoding, but a hash decodes to
// bytes that are not text.
const minHexRun = 32

// hexRuns calls fn with every run of hex digits in t (even length, at a
// word's start) that decodes to readable text: its span and the text.
func hexRuns(t string, fn func(s, e int, decoded string)) {
	for i := 0; i < len(t); i++ {
		if !isHexDigit(t[i]) || (i > 0 && isAlnum(t[i-1])) {
			continue
		}
		j := i
		for j < len(t) && j-i < maxBase64Run && isHexDigit(t[j]) {
			j++
		}
		if j-i >= minHexRun && (j == len(t) || !isAlnum(t[j])) {
			var out []byte
			for k := i; k+1 < j; k += 2 {
				c := unhex(t[k])<<4 | unhex(t[k+1])
				if !(c >= 0x20 && c < 0x7f || c == '\n' || c == '\r' || c == '\t') {
					out = nil
					break
				}
				out = append(out, c)
			}
			if len(out) >= minHexRun/2 {
				fn(i, j, string(out))
			}
		}
		i = j
	}
}

package ingest

import (
	"strings"
	"unicode/utf8"
)

// The literal scanners of the brace lexer: each consumes one string,
// character, raw string, template, heredoc or regular expression literal
// whole, so that no bracket inside it is counted, and starts a
// continuation line at every line break inside it.

// str scans a string delimited by q ('"', or '`' in PHP), with the
// language's escapes and interpolation.
func (x *braceLexer) str(top bool, q byte) {
	if q == '"' && x.l.triple && strings.HasPrefix(x.src[x.i:], `"""`) {
		x.tripleStr(top)
		return
	}
	x.quoted(top, q, x.l.multiLine, x.l.interp)
}

// quoted scans a string delimited by q, which spans lines when multiLine
// (else a line end ends it, unterminated) and holds code as interp says
// (see braceLang.interp).
func (x *braceLexer) quoted(top bool, q byte, multiLine bool, interp byte) {
	x.i++
	for x.i < len(x.src) {
		c := x.src[x.i]
		switch {
		case c == '\\':
			x.backslash(interp)
		case c == q:
			x.i++
			x.mark(top, "\"")
			return
		case c == '\n':
			if !multiLine {
				x.mark(top, "\"") // unterminated: the line end ends it
				return
			}
			x.i++
			x.nl(true, lineCode)
		case x.interpolation(interp):
		default:
			x.i++
		}
	}
	x.mark(top, "\"")
}

// backslash scans what a backslash in a string starts: Swift's \(…)
// interpolation, or an escape.
func (x *braceLexer) backslash(interp byte) {
	if interp == 's' && x.peek(1) == '(' {
		x.i += 2
		x.nested(')')
		return
	}
	x.escape()
}

// interpolation scans the interpolation that opens at x.i in a string of
// the interp kind — Kotlin's ${…} (and a template literal's), PHP's {$…}
// and ${…} — and reports whether one does.
func (x *braceLexer) interpolation(interp byte) bool {
	c, next := x.src[x.i], x.peek(1)
	switch {
	case interp == 'k' && c == '$' && next == '{':
		x.i += 2
	case interp == 'p' && c == '{' && next == '$':
		x.i++
	case interp == 'p' && c == '$' && next == '{':
		x.i += 2
	default:
		return false
	}
	x.nested('}')
	return true
}

// escape skips a backslash and what it escapes; a line break it escapes
// (LF or CRLF) starts a continuation line.
func (x *braceLexer) escape() {
	x.i++
	switch {
	case x.i >= len(x.src):
	case x.src[x.i] == '\n':
		x.i++
		x.nl(true, lineCode)
	case x.src[x.i] == '\r' && x.peek(1) == '\n':
		x.i += 2
		x.nl(true, lineCode)
	default:
		x.i++
	}
}

// tripleStr scans a """...""" string (Java text block, Kotlin raw string,
// Swift multi-line string).
func (x *braceLexer) tripleStr(top bool) {
	x.i += 3
	for x.i < len(x.src) {
		c := x.src[x.i]
		switch {
		case c == '\\' && x.l.tripleEscape:
			x.backslash(x.l.interp)
		case strings.HasPrefix(x.src[x.i:], `"""`):
			x.i += 3
			for x.i < len(x.src) && x.src[x.i] == '"' { // Kotlin: """a"""" is a"
				x.i++
			}
			x.mark(top, "\"")
			return
		case c == '\n':
			x.i++
			x.nl(true, lineCode)
		case x.interpolation(x.l.interp): // Kotlin's (no language with """ has PHP's)
		default:
			x.i++
		}
	}
	x.mark(top, "\"")
}

// quote scans what a single quote opens in this language.
func (x *braceLexer) quote(top bool) {
	switch x.l.quote {
	case quoteString:
		x.str(top, '\'')
		return
	case quoteNone:
		x.i++
		x.mark(top, "'")
		return
	}
	// A character literal: 'x', '\n', '\u{1F600}', '\''.
	if x.peek(1) == '\\' {
		for e := x.i + 2; e < len(x.src) && e < x.i+16 && x.src[e] != '\n'; e++ {
			if x.src[e] == '\'' && e > x.i+2 {
				x.i = e + 1
				x.mark(top, "\"")
				return
			}
		}
	} else if x.i+1 < len(x.src) {
		_, sz := utf8.DecodeRuneInString(x.src[x.i+1:])
		if e := x.i + 1 + sz; e < len(x.src) && x.src[e] == '\'' && x.src[x.i+1] != '\n' {
			x.i = e + 1
			x.mark(top, "\"")
			return
		}
	}
	x.i++
	if x.l.quote == quoteRust { // a lifetime or a loop label: 'a, 'static
		for x.i < len(x.src) && isIdentByte(x.src[x.i]) {
			x.i++
		}
		x.mark(top, "'")
		return
	}
	x.mark(top, "'") // a stray quote: ignore it
}

func (x *braceLexer) backtick(top bool) {
	switch {
	case x.l.template:
		// A template literal spans lines and holds ${…} as Kotlin's
		// strings do.
		x.quoted(top, '`', true, 'k')
	case x.l.php:
		x.str(top, '`')
	case x.l.tickIdent:
		e := x.i + 1
		for e < len(x.src) && x.src[e] != '`' && x.src[e] != '\n' {
			e++
		}
		if e < len(x.src) && x.src[e] == '`' {
			e++
		}
		x.i = e
		x.mark(top, "name")
	default:
		x.i++
		x.mark(top, "`")
	}
}

// word scans an identifier or keyword, and the raw strings an identifier
// prefixes: R"d(...)d" in C++, r#"..."# in Rust.
func (x *braceLexer) word(top bool) {
	s := x.i
	for x.i < len(x.src) && isIdentByte(x.src[x.i]) {
		x.i++
	}
	w := x.src[s:x.i]
	if x.i < len(x.src) {
		switch {
		case x.l.cppRaw && x.src[x.i] == '"' && (w == "R" || w == "LR" || w == "uR" || w == "UR" || w == "u8R"):
			if x.cppRawString(top) {
				return
			}
		case x.l.rustRaw && (w == "r" || w == "br" || w == "cr") && (x.src[x.i] == '"' || x.src[x.i] == '#'):
			if x.rustRawString(top) {
				return
			}
		}
	}
	x.mark(top, w)
}

// cppRawString scans "delim( ... )delim" after an R prefix.
func (x *braceLexer) cppRawString(top bool) bool {
	j := x.i + 1
	for j < len(x.src) && j-x.i <= 17 && x.src[j] != '(' {
		if strings.IndexByte(" ()\\\t\v\f\r\n\"", x.src[j]) >= 0 {
			return false
		}
		j++
	}
	if j >= len(x.src) || x.src[j] != '(' {
		return false
	}
	x.rawString(top, j+1, ")"+x.src[x.i+1:j]+`"`)
	return true
}

// rustRawString scans #*"..."#* after an r, br or cr prefix.
func (x *braceLexer) rustRawString(top bool) bool {
	j, ok := x.quoteAfterHashes()
	if !ok {
		return false // r#ident, a raw identifier
	}
	x.rawString(top, j+1, `"`+x.src[x.i:j])
	return true
}

// quoteAfterHashes returns the offset of the quote that ends the run of
// '#' at x.i; false if no quote follows the run.
func (x *braceLexer) quoteAfterHashes() (int, bool) {
	j := x.i
	for j < len(x.src) && x.src[j] == '#' {
		j++
	}
	return j, j < len(x.src) && x.src[j] == '"'
}

// swiftRawString scans #"..."#, ##"..."## and #"""..."""#.
func (x *braceLexer) swiftRawString(top bool) bool {
	j, ok := x.quoteAfterHashes()
	if !ok {
		return false
	}
	hashes := x.src[x.i:j]
	q := `"`
	if strings.HasPrefix(x.src[j:], `"""`) {
		q = `"""`
	}
	x.rawString(top, j+len(q), q+hashes)
	return true
}

// rawString consumes a raw string whose body starts at from, up to and
// including closer, or to the end of the source if nothing closes it.
func (x *braceLexer) rawString(top bool, from int, closer string) {
	end := len(x.src)
	if e := strings.Index(x.src[from:], closer); e >= 0 {
		end = from + e + len(closer)
	}
	x.advance(end, lineCode)
	x.mark(top, "\"")
}

// csharpString scans @"verbatim", $"interpolated {x}", $@"both" and
// """raw""" strings; it reports false when '@' or '$' opens none.
func (x *braceLexer) csharpString(top bool) bool {
	j := x.i
	verbatim, interp := false, false
	for j < len(x.src) && j-x.i < 8 && (x.src[j] == '@' || x.src[j] == '$') {
		verbatim = verbatim || x.src[j] == '@'
		interp = interp || x.src[j] == '$'
		j++
	}
	if j >= len(x.src) || x.src[j] != '"' {
		return false
	}
	x.i = j
	if strings.HasPrefix(x.src[j:], `"""`) { // a raw string: as many quotes close it
		q := j
		for q < len(x.src) && x.src[q] == '"' {
			q++
		}
		x.rawString(top, q, x.src[j:q])
		return true
	}
	x.i++
	for x.i < len(x.src) {
		c := x.src[x.i]
		switch {
		case c == '"':
			if verbatim && x.peek(1) == '"' {
				x.i += 2
				continue
			}
			x.i++
			x.mark(top, "\"")
			return true
		case c == '\\' && !verbatim:
			x.i += 2
			if x.i > len(x.src) {
				x.i = len(x.src)
			}
		case c == '{' && interp:
			if x.peek(1) == '{' {
				x.i += 2
				continue
			}
			x.i++
			x.nested('}')
		case c == '\n':
			if !verbatim {
				x.mark(top, "\"")
				return true
			}
			x.i++
			x.nl(true, lineCode)
		default:
			x.i++
		}
	}
	x.mark(top, "\"")
	return true
}

// heredoc scans PHP's <<<ID ... ID and <<<'ID' ... ID.
func (x *braceLexer) heredoc(top bool) bool {
	j := x.i + 3
	for j < len(x.src) && (x.src[j] == ' ' || x.src[j] == '\t') {
		j++
	}
	quoted := j < len(x.src) && (x.src[j] == '\'' || x.src[j] == '"')
	if quoted {
		j++
	}
	k := j
	for k < len(x.src) && isIdentByte(x.src[k]) {
		k++
	}
	if k == j {
		return false
	}
	id := x.src[j:k]
	if quoted {
		k++
	}
	nlAt := strings.IndexByte(x.src[k:], '\n')
	if nlAt < 0 || strings.TrimSpace(x.src[k:k+nlAt]) != "" {
		return false
	}
	// The body ends at a line whose first non-blank text is the identifier
	// not followed by an identifier character.
	end := len(x.src)
	for p := k + nlAt + 1; p < len(x.src); {
		q := p
		for q < len(x.src) && (x.src[q] == ' ' || x.src[q] == '\t') {
			q++
		}
		if strings.HasPrefix(x.src[q:], id) && (q+len(id) >= len(x.src) || !isIdentByte(x.src[q+len(id)])) {
			end = q + len(id)
			break
		}
		e := strings.IndexByte(x.src[p:], '\n')
		if e < 0 {
			break
		}
		p += e + 1
	}
	x.advance(end, lineCode)
	x.mark(top, "\"")
	return true
}

// regexAllowed reports whether a '/' here starts a regular expression
// rather than dividing: after an operator, an opening bracket or a keyword
// that takes an expression.
func (x *braceLexer) regexAllowed() bool {
	p := x.prev
	switch {
	case p == "":
		return true
	case p == ")" || p == "]" || p == "}" || p == "\"" || p == "name":
		return false
	case isIdent(p):
		switch p {
		case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw",
			"case", "do", "else", "yield", "await":
			return true
		}
		return false
	case p[0] >= '0' && p[0] <= '9':
		return false
	}
	return true
}

// regexLit scans /.../flags; it reports false (a division after all) when
// the line ends first.
func (x *braceLexer) regexLit(top bool) bool {
	if x.i < x.noRegex { // this line already failed once: keep it linear
		return false
	}
	j, class := x.i+1, false
	for j < len(x.src) {
		switch c := x.src[j]; {
		case c == '\n':
			x.noRegex = j
			return false
		case c == '\\':
			j++
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			j++
			for j < len(x.src) && isIdentByte(x.src[j]) {
				j++
			}
			x.i = j
			x.mark(top, "\"")
			return true
		}
		j++
	}
	x.noRegex = len(x.src)
	return false
}

func (x *braceLexer) number(top bool) {
	s := x.i
	for x.i < len(x.src) {
		c := x.src[x.i]
		if isIdentByte(c) || c == '.' {
			x.i++
			continue
		}
		if c == '\'' && x.l.digitSep && x.i+1 < len(x.src) && isIdentByte(x.src[x.i+1]) {
			x.i++
			continue
		}
		break
	}
	x.mark(top, x.src[s:x.i])
}

// html skips PHP's text outside <?php ... ?>.
func (x *braceLexer) html() {
	rest := x.src[x.i:]
	j := strings.Index(rest, "<?")
	if j < 0 {
		x.advance(len(x.src), lineCode)
		return
	}
	x.advance(x.i+j, lineCode)
	k := 2
	switch {
	case strings.HasPrefix(rest[j:], "<?php"):
		k = 5
	case strings.HasPrefix(rest[j:], "<?="):
		k = 3
	}
	x.i += k
	x.mark(true, "<?php")
}

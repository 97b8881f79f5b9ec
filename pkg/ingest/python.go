package ingest

import "strings"

// Python has no braces to count: a top-level statement begins on a line
// indented zero that is not inside brackets, a string or a backslash
// continuation, and is not an "else:"/"except:" of the statement before.
// The lexer therefore tracks strings (triple-quoted, prefixed, f-strings
// whose {expressions} may hold strings of their own), comments and
// brackets, and records each line's indentation as its depth.

type pyLexer struct {
	src   string
	i     int
	nest  int // bracket depth at the outer level
	inter int // f-string nesting, bounded
	lines []cline
}

func pythonModel(src string) *codeModel {
	x := &pyLexer{src: src, lines: make([]cline, 0, strings.Count(src, "\n")+1)}
	x.newLine(false)
	if strings.HasPrefix(src, "\uFEFF") {
		x.i = 3
	}
	x.code(true, 0)
	if n := len(x.lines); n > 1 && x.lines[n-1].off >= len(src) {
		x.lines = x.lines[:n-1]
	}
	// Starts: a code line at its own indentation that does not continue
	// anything and does not follow a decorator.
	prevAttr := false
	for i := range x.lines {
		l := &x.lines[i]
		if l.kind != lineCode || l.cont {
			continue
		}
		switch l.first {
		case "else", "elif", "except", "finally":
		default:
			l.start = !prevAttr
		}
		l.attr = l.first == "@"
		prevAttr = l.attr
	}
	return &codeModel{src: src, lines: x.lines, kindOf: pyKind, title: pyTitle, body: pyBody}
}

// newLine starts a line at x.i; cont says it continues the previous one.
func (x *pyLexer) newLine(cont bool) {
	col := 0
	for j := x.i; j < len(x.src); j++ {
		switch x.src[j] {
		case ' ':
			col++
			continue
		case '\t':
			col = col/8*8 + 8
			continue
		case '\f':
			continue
		}
		break
	}
	l := cline{off: x.i, depth: col, cont: cont}
	if cont {
		l.kind = lineCode
		l.first = "\""
	}
	x.lines = append(x.lines, l)
}

func (x *pyLexer) mark(top bool, tok string) {
	if !top {
		return
	}
	l := &x.lines[len(x.lines)-1]
	l.kind = lineCode
	switch {
	case l.first == "":
		l.first = tok
	case l.second == "":
		l.second = tok
	}
	l.last = tok
}

// code scans until the end, or inside an f-string expression (top false)
// until the unmatched stop bracket, which it consumes.
func (x *pyLexer) code(top bool, stop byte) {
	local := 0
	for x.i < len(x.src) {
		c := x.src[x.i]
		switch {
		case c == '\n':
			x.i++
			x.newLine(!top || x.nest > 0)
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			x.i++
		case c == '\\' && (x.peek(1) == '\n' || x.peek(1) == '\r' && x.peek(2) == '\n'):
			x.i = strings.IndexByte(x.src[x.i:], '\n') + x.i + 1
			x.newLine(true)
		case c == '#':
			if top && x.lines[len(x.lines)-1].kind == lineBlank {
				x.lines[len(x.lines)-1].kind = lineComment
			}
			if j := strings.IndexByte(x.src[x.i:], '\n'); j >= 0 {
				x.i += j
			} else {
				x.i = len(x.src)
			}
		case c == '"' || c == '\'':
			x.str(top, "")
		case c == '(' || c == '[' || c == '{':
			x.i++
			if top {
				x.nest++
			} else {
				local++
			}
			x.mark(top, string(c))
		case c == ')' || c == ']' || c == '}':
			x.i++
			if !top {
				if local == 0 && c == stop {
					return
				}
				if local > 0 {
					local--
				}
				continue
			}
			if x.nest > 0 {
				x.nest--
			}
			x.mark(top, string(c))
		case isIdentByte(c):
			s := x.i
			for x.i < len(x.src) && isIdentByte(x.src[x.i]) {
				x.i++
			}
			w := x.src[s:x.i]
			if x.i < len(x.src) && (x.src[x.i] == '"' || x.src[x.i] == '\'') && isStringPrefix(w) {
				x.str(top, strings.ToLower(w))
				continue
			}
			x.mark(top, w)
		default:
			x.i++
			x.mark(top, string(c))
		}
	}
}

func (x *pyLexer) peek(k int) byte {
	if x.i+k < len(x.src) {
		return x.src[x.i+k]
	}
	return 0
}

// isStringPrefix reports whether w may prefix a string literal: r, b, u,
// f, t and their two-letter combinations, in any case.
func isStringPrefix(w string) bool {
	if len(w) > 2 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if strings.IndexByte("rRbBuUfFtT", w[i]) < 0 {
			return false
		}
	}
	return true
}

// str scans a string literal at x.i with the given (lower-case) prefix.
func (x *pyLexer) str(top bool, prefix string) {
	q := x.src[x.i]
	triple := x.peek(1) == q && x.peek(2) == q
	format := strings.ContainsAny(prefix, "ft")
	if triple {
		x.i += 3
	} else {
		x.i++
	}
	for x.i < len(x.src) {
		c := x.src[x.i]
		switch {
		case c == '\\':
			x.i++
			switch {
			case x.i >= len(x.src):
			case x.src[x.i] == '\n':
				x.i++
				x.newLine(true)
			case x.src[x.i] == '\r' && x.peek(1) == '\n':
				x.i += 2
				x.newLine(true)
			default:
				x.i++
			}
		case c == q:
			if !triple {
				x.i++
				x.mark(top, "\"")
				return
			}
			if x.peek(1) == q && x.peek(2) == q {
				x.i += 3
				x.mark(top, "\"")
				return
			}
			x.i++
		case c == '\n':
			if !triple {
				x.mark(top, "\"") // unterminated: the line end ends it
				return
			}
			x.i++
			x.newLine(true)
		case format && c == '{':
			if x.peek(1) == '{' {
				x.i += 2
				continue
			}
			x.i++
			if x.inter < 32 {
				x.inter++
				x.code(false, '}')
				x.inter--
			}
		default:
			x.i++
		}
	}
	x.mark(top, "\"")
}

func pyKind(m *codeModel, it item) itemKind {
	switch m.lines[it.code].first {
	case "import", "from":
		return kindImport
	case "\"":
		if it.from == 0 { // the module docstring: it goes with the imports
			return kindImport
		}
	}
	return kindDecl
}

func pyTitle(m *codeModel, it item) string {
	i := m.titleLine(it)
	if it.kind == kindImport {
		return "imports"
	}
	end := min(m.off(it.to), m.off(i)+400)
	toks := headerTokens(m.src[m.off(i):end], 40)
	if len(toks) > 0 && toks[0] == "if" && strings.Contains(m.src[m.off(i):end], "__main__") {
		return "__main__"
	}
	return titleFromTokens(toks)
}

// pyBody splits an oversized class per method: the header runs from the
// class line to the ':' that ends it, the members are the statements at
// the indentation of the first line after it.
func pyBody(m *codeModel, it item, d int) (int, int, int, bool) {
	i := m.headLine(it)
	if i >= it.to || m.lines[i].first != "class" {
		return 0, 0, 0, false
	}
	h := i
	for h+1 < it.to && m.lines[h+1].cont {
		h++
	}
	if m.lines[h].last != ":" {
		return 0, 0, 0, false // "class A: pass"
	}
	for j := h + 1; j < it.to; j++ {
		if l := m.lines[j]; l.kind == lineCode && !l.cont {
			if l.depth <= m.lines[i].depth {
				return 0, 0, 0, false
			}
			return h, it.to, l.depth, true
		}
	}
	return 0, 0, 0, false
}

package ingest

import (
	"go/scanner"
	"go/token"
	"strings"
)

// goModel reads Go with go/scanner rather than go/parser: the scanner
// knows every literal and comment form exactly and, unlike the parser,
// keeps going through a syntax error, so a half-edited file still splits
// at its declarations. Go's automatic semicolons mark where each statement
// (and each field or spec inside a struct or a var group) ends.
func goModel(src string) *codeModel {
	m := &codeModel{src: src, kindOf: goKind, title: goTitle, body: goBody}
	starts := lineStarts(src)
	m.lines = make([]cline, len(starts))
	for i, o := range starts {
		m.lines[i].off = o
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, scanner.ScanComments) // errors ignored: see above

	r := &goReader{m: m, titles: map[int]string{}, atStart: true, stmt: -1}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		r.token(file.Offset(pos), tok, lit)
	}
	r.endStmt()
	r.setDepths(len(m.lines) - 1)
	m.names = r.titles
	return m
}

// goReader is goModel's state while it reads the tokens in order.
type goReader struct {
	m        *codeModel
	titles   map[int]string // line of a top-level statement → its title
	depth    int
	atStart  bool // the next token starts a statement
	next, li int  // next line whose depth is unset; line of the current token
	prev     token.Token
	open     []int // the brackets open, as indices into m.brackets
	stmt     int   // line of the top-level statement being read, or -1
	stmtToks []goTok
}

// token takes the token at offset off into the model: its line's kind and
// words, the statement it starts or ends, the brackets it opens or closes.
func (r *goReader) token(off int, tok token.Token, lit string) {
	m := r.m
	for r.li+1 < len(m.lines) && m.lines[r.li+1].off <= off {
		r.li++
	}
	r.setDepths(r.li)
	text := lit
	if text == "" {
		text = tok.String()
	}
	if tok == token.SEMICOLON && lit != ";" { // automatic, at a line end or EOF
		r.atStart = true
		if r.depth == 0 {
			r.endStmt()
		}
		return
	}
	l := &m.lines[r.li]
	if strings.Contains(text, "\n") {
		r.span(off, tok, text)
	}
	if tok == token.COMMENT {
		if l.kind == lineBlank {
			l.kind = lineComment
		}
		return
	}
	l.kind = lineCode
	if l.first == "" {
		l.first = text
		if r.atStart && !l.cont {
			l.start = true
		}
	} else if l.second == "" {
		l.second = text
	}
	l.last = text
	if r.depth == 0 && r.atStart {
		r.endStmt()
		r.stmt = r.li
	}
	if r.stmt >= 0 && len(r.stmtToks) < 32 {
		r.stmtToks = append(r.stmtToks, goTok{tok, lit})
	}
	r.atStart = false
	r.nest(off, tok)
	r.prev = tok
}

// span marks the lines after the first of a token that spans lines (a raw
// string, a block comment): they start inside it.
func (r *goReader) span(off int, tok token.Token, text string) {
	m := r.m
	endLine := m.lineOf(goTokenEnd(m.src, off, text) - 1)
	for k := r.li + 1; k <= endLine; k++ {
		m.lines[k].cont = true
		m.lines[k].first = "\""
		if tok == token.COMMENT {
			m.lines[k].kind = lineComment
		} else {
			m.lines[k].kind = lineCode
		}
	}
}

// nest follows the brackets and explicit semicolons: the depth, the
// brackets' extents, and where a statement (or a field or spec inside a
// struct or group) starts.
func (r *goReader) nest(off int, tok token.Token) {
	m := r.m
	switch tok {
	case token.LBRACE, token.LPAREN:
		m.brackets = append(m.brackets, bracket{open: off, close: -1, depth: r.depth, ch: m.src[off]})
		r.open = append(r.open, len(m.brackets)-1)
		r.depth++
		p := r.prev
		r.atStart = tok == token.LBRACE || p == token.VAR || p == token.CONST || p == token.TYPE || p == token.IMPORT
	case token.LBRACK:
		r.depth++
	case token.RBRACE, token.RPAREN:
		if n := len(r.open); n > 0 {
			m.brackets[r.open[n-1]].close = off
			r.open = r.open[:n-1]
		}
		if r.depth > 0 {
			r.depth--
		}
	case token.RBRACK:
		if r.depth > 0 {
			r.depth--
		}
	case token.SEMICOLON:
		r.atStart = true
		if r.depth == 0 {
			r.endStmt()
		}
	}
}

// setDepths gives the lines up to last not yet given one the current depth.
func (r *goReader) setDepths(last int) {
	for ; r.next <= last; r.next++ {
		r.m.lines[r.next].depth = r.depth
	}
}

// endStmt titles the top-level statement being read, if any.
func (r *goReader) endStmt() {
	if r.stmt >= 0 {
		r.titles[r.stmt] = goDeclTitle(r.stmtToks)
	}
	r.stmt, r.stmtToks = -1, r.stmtToks[:0]
}

// goTokenEnd is the offset just past a token in src. The scanner drops
// carriage returns from raw strings and comments, so their literal can be
// shorter than the source they span.
func goTokenEnd(src string, off int, lit string) int {
	rest := src[off:]
	switch {
	case strings.HasPrefix(rest, "`"):
		if j := strings.IndexByte(rest[1:], '`'); j >= 0 {
			return off + j + 2
		}
		return len(src)
	case strings.HasPrefix(rest, "/*"):
		if j := strings.Index(rest[2:], "*/"); j >= 0 {
			return off + j + 4
		}
		return len(src)
	}
	return min(off+len(lit), len(src))
}

type goTok struct {
	tok token.Token
	lit string
}

func goKind(m *codeModel, it item) itemKind {
	switch m.lines[it.code].first {
	case "package", "import":
		return kindImport
	}
	return kindDecl
}

func goTitle(m *codeModel, it item) string {
	if t := m.names[it.code]; t != "" {
		return t
	}
	toks := headerTokens(m.src[m.off(it.code):m.off(it.to)], 40)
	if t := titleFromTokens(toks); t != "" || m.lines[it.code].depth == 0 {
		return t
	}
	if len(toks) > 0 && isIdent(toks[0]) { // a field or spec: its name
		return toks[0]
	}
	return ""
}

// goDeclTitle names a top-level declaration from its first tokens:
// "package main", "imports", "Server.Run", "Options".
func goDeclTitle(toks []goTok) string {
	if len(toks) < 2 {
		if len(toks) == 1 && toks[0].tok == token.IMPORT {
			return "imports"
		}
		return ""
	}
	first, second := toks[0], toks[1]
	switch first.tok {
	case token.PACKAGE:
		return "package " + second.lit
	case token.IMPORT:
		return "imports"
	case token.FUNC:
		if second.tok == token.IDENT {
			return second.lit
		}
		if second.tok != token.LPAREN {
			return ""
		}
		// A method: the receiver's type is the last identifier inside the
		// receiver's parentheses outside type arguments.
		recv, depth, brack := "", 1, 0
		for i := 2; i < len(toks); i++ {
			switch toks[i].tok {
			case token.LPAREN:
				depth++
			case token.RPAREN:
				depth--
			case token.LBRACK:
				brack++
			case token.RBRACK:
				brack--
			case token.IDENT:
				if depth == 1 && brack == 0 {
					recv = toks[i].lit
				}
			}
			if depth == 0 {
				if i+1 < len(toks) && toks[i+1].tok == token.IDENT {
					if recv != "" {
						return recv + "." + toks[i+1].lit
					}
					return toks[i+1].lit
				}
				return ""
			}
		}
	case token.TYPE, token.VAR, token.CONST:
		for _, t := range toks[1:] {
			if t.tok == token.IDENT {
				if second.tok == token.LPAREN { // a group: "var (a …)"
					return first.tok.String() + " (" + t.lit + " …)"
				}
				return t.lit
			}
		}
	}
	return ""
}

// goBody splits an oversized struct or interface type, or a grouped
// var/const/type declaration, per field or spec.
func goBody(m *codeModel, it item, d int) (int, int, int, bool) {
	return bodyByBracket(m, it, d, func(header string, ch byte) bool {
		toks := headerTokens(header, 200)
		if len(toks) == 0 {
			return false
		}
		if ch == '(' {
			return len(toks) == 1 && (toks[0] == "var" || toks[0] == "const" || toks[0] == "type")
		}
		last := toks[len(toks)-1]
		return toks[0] == "type" && (last == "struct" || last == "interface")
	})
}

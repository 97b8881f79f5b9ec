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

	titles := map[int]string{}
	var (
		depth    int
		atStart  = true
		next, li int // next line whose depth is unset; line of the current token
		prev     token.Token
		open     []int
		stmt     = -1 // line of the top-level statement being read
		stmtToks []goTok
	)
	endStmt := func() {
		if stmt >= 0 {
			titles[stmt] = goDeclTitle(stmtToks)
		}
		stmt, stmtToks = -1, stmtToks[:0]
	}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		for li+1 < len(m.lines) && m.lines[li+1].off <= off {
			li++
		}
		for ; next <= li; next++ {
			m.lines[next].depth = depth
		}
		text := lit
		if text == "" {
			text = tok.String()
		}
		if tok == token.SEMICOLON && lit != ";" { // automatic, at a line end or EOF
			atStart = true
			if depth == 0 {
				endStmt()
			}
			continue
		}
		l := &m.lines[li]
		// A token may span lines (a raw string, a block comment): the
		// lines after its first start inside it.
		if strings.Contains(text, "\n") {
			endLine := m.lineOf(goTokenEnd(src, off, text) - 1)
			for k := li + 1; k <= endLine; k++ {
				m.lines[k].cont = true
				m.lines[k].first = "\""
				if tok == token.COMMENT {
					m.lines[k].kind = lineComment
				} else {
					m.lines[k].kind = lineCode
				}
			}
		}
		if tok == token.COMMENT {
			if l.kind == lineBlank {
				l.kind = lineComment
			}
			continue
		}
		l.kind = lineCode
		if l.first == "" {
			l.first = text
			if atStart && !l.cont {
				l.start = true
			}
		} else if l.second == "" {
			l.second = text
		}
		l.last = text
		if depth == 0 && atStart {
			endStmt()
			stmt = li
		}
		if stmt >= 0 && len(stmtToks) < 32 {
			stmtToks = append(stmtToks, goTok{tok, lit})
		}
		atStart = false
		switch tok {
		case token.LBRACE, token.LPAREN:
			m.brackets = append(m.brackets, bracket{open: off, close: -1, depth: depth, ch: src[off]})
			open = append(open, len(m.brackets)-1)
			depth++
			atStart = tok == token.LBRACE || prev == token.VAR || prev == token.CONST || prev == token.TYPE || prev == token.IMPORT
		case token.LBRACK:
			depth++
		case token.RBRACE, token.RPAREN:
			if n := len(open); n > 0 {
				m.brackets[open[n-1]].close = off
				open = open[:n-1]
			}
			if depth > 0 {
				depth--
			}
		case token.RBRACK:
			if depth > 0 {
				depth--
			}
		case token.SEMICOLON:
			atStart = true
			if depth == 0 {
				endStmt()
			}
		}
		prev = tok
	}
	endStmt()
	for ; next < len(m.lines); next++ {
		m.lines[next].depth = depth
	}
	m.names = titles
	return m
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

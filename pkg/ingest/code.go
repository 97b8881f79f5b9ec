package ingest

import (
	"sort"
	"strings"
)

// Every language is read by its own scanner (go/scanner for Go, an
// indentation-aware lexer for Python, one configurable brace lexer for the
// C family) into the same line model: for each line, whether it is blank,
// a comment, a preprocessor directive or code, its nesting, and whether a
// statement at that nesting may begin on it. Everything after that — where
// a declaration begins, which comments lead it, which items coalesce, how an
// oversized class splits per member — is shared, so the languages cannot
// drift apart in how they treat blocks.

type lineKind uint8

const (
	lineBlank lineKind = iota
	lineComment
	lineCode
	lineDirective
)

// cline is one line of source as the scanner saw it.
type cline struct {
	off    int      // offset of the line's first byte
	kind   lineKind // what the line holds (code wins over a trailing comment)
	depth  int      // bracket nesting (brace languages, Go) or indentation (Python) at its start
	cont   bool     // starts inside a literal, a comment, brackets or a continued line
	start  bool     // a statement at depth may begin on this line
	attr   bool     // an attribute, annotation or decorator line: glues to what follows
	first  string   // first significant token at the outer level
	second string   // second one
	last   string   // last one
	dir    string   // directive name ("include", "if", "endif"…) on directive lines
}

// bracket is an opening bracket at the outer level with its partner.
type bracket struct {
	open, close int  // offsets; close is -1 when unmatched
	depth       int  // nesting before the opening bracket
	ch          byte // '{' or '('
}

type itemKind uint8

const (
	kindDecl     itemKind = iota
	kindImport            // package clause, imports, includes: coalesce
	kindGlueNext          // #if, #region: belongs with what follows
	kindGluePrev          // #endif, #endregion: belongs with what precedes
)

// item is a run of whole lines [from, to) holding one top-level statement
// (or member) with its leading comments and attributes.
type item struct {
	from, to int
	code     int // first code or directive line, to when there is none
	kind     itemKind
}

// codeModel is a scanned source file plus the few language hooks the shared
// splitting needs.
type codeModel struct {
	src      string
	lines    []cline
	brackets []bracket      // by opening offset
	names    map[int]string // declaration names by line, when the scanner knows them (Go)
	// kindOf classifies an item from its first code line.
	kindOf func(m *codeModel, it item) itemKind
	// title names an item ("Server.Run", "Foo", "imports").
	title func(m *codeModel, it item) string
	// body finds the member lines of a container item at depth d: the
	// header ends with line hdrEnd, members run to line closeAt (where
	// the closing line starts, or it.to), at nesting level.
	body func(m *codeModel, it item, d int) (hdrEnd, closeAt, level int, ok bool)
}

// off is the offset of line i, or the end of the text for i == len(lines).
func (m *codeModel) off(i int) int {
	if i >= len(m.lines) {
		return len(m.src)
	}
	return m.lines[i].off
}

// lineOf returns the index of the line holding offset o.
func (m *codeModel) lineOf(o int) int {
	return sort.Search(len(m.lines), func(i int) bool { return m.lines[i].off > o }) - 1
}

// headLine returns the first code line of it that is not an attribute
// (its header, past doc comments and annotations), or it.to if it has none.
func (m *codeModel) headLine(it item) int {
	i := it.code
	for i < it.to && (m.lines[i].attr || m.lines[i].kind != lineCode) {
		i++
	}
	return i
}

// titleLine returns the line a title of it is read from: its headLine, or
// its first code line if it has none.
func (m *codeModel) titleLine(it item) int {
	if i := m.headLine(it); i < it.to {
		return i
	}
	return it.code
}

// splitCode splits source in lang into units; languages without a scanner
// split like generic text.
func splitCode(lang, text string, max int) []unit {
	var m *codeModel
	switch {
	case lang == "go":
		m = goModel(text)
	case lang == "python":
		m = pythonModel(text)
	case braceLangs[lang] != nil:
		m = braceModel(text, braceLangs[lang])
	default:
		return splitProse(text, max, false)
	}
	if len(m.lines) == 0 {
		return []unit{{start: 0, end: len(text)}}
	}
	items := m.items(0, len(m.lines), 0)
	out := make([]unit, 0, len(items))
	for _, it := range items {
		m.emit(&out, it, 0, "", "", max, 0)
	}
	return out
}

// splittable reports whether lang has a scanner here.
func splittable(lang string) bool {
	return lang == "go" || lang == "python" || braceLangs[lang] != nil
}

// items cuts lines [lo, hi) into items at nesting d: each begins on a line
// where a statement at d may begin, pulled back over the comments right
// above it (blank lines stay with the item before). Then #if/#endif glue to
// their neighbours and consecutive imports coalesce.
func (m *codeModel) items(lo, hi, d int) []item {
	starts := []int{lo}
	for i := lo + 1; i < hi; i++ {
		l := &m.lines[i]
		if !l.start || l.cont || l.depth != d || (l.kind != lineCode && l.kind != lineDirective) {
			continue
		}
		s := i
		for j := i - 1; j > starts[len(starts)-1]; j-- {
			lj := &m.lines[j]
			if lj.kind == lineBlank {
				continue
			}
			if lj.kind == lineComment && (lj.cont || lj.depth == d) {
				if !lj.cont {
					s = j
				}
				continue
			}
			break
		}
		starts = append(starts, s)
	}
	var out []item
	for k, s := range starts {
		e := hi
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		it := item{from: s, to: e, code: e}
		for i := s; i < e; i++ {
			if k := m.lines[i].kind; (k == lineCode && !m.lines[i].cont) || k == lineDirective {
				it.code = i
				break
			}
		}
		if it.code < e {
			it.kind = m.kindOf(m, it)
		} else if k+1 < len(starts) {
			it.kind = kindGlueNext // only comments: they lead what follows
		}
		if n := len(out); n > 0 {
			p := &out[n-1]
			if it.kind == kindGluePrev || p.kind == kindGlueNext || (it.kind == kindImport && p.kind == kindImport) {
				if p.kind == kindGlueNext {
					p.kind, p.code = it.kind, it.code
				}
				p.to = it.to
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// emit turns an item into units: one unit, or, for an oversized container,
// its header, its members (each carrying the header as context) and its
// closing line.
func (m *codeModel) emit(out *[]unit, it item, d int, ctx, parent string, max, nesting int) {
	start, end := m.off(it.from), m.off(it.to)
	title := ""
	if it.code < it.to {
		title = m.title(m, it)
	}
	own := title
	if parent != "" && title != "" {
		title = parent + "." + title
	}
	weak := ""
	if it.code < it.to {
		weak = firstWords(m.src[m.off(it.code):end], 8)
	}
	if nesting < 16 && it.code < it.to && len(strings.TrimSpace(m.src[start:end])) > max && m.body != nil {
		if hdrEnd, closeAt, lvl, ok := m.body(m, it, d); ok && hdrEnd >= it.code && hdrEnd+1 < closeAt && closeAt <= it.to {
			hctx := headerContext(m.src[m.off(it.code):m.off(hdrEnd+1)])
			inner := hctx
			if ctx != "" {
				inner = ctx + "\n" + hctx
			}
			name := parent // members are named after a named container: "Server.Run"
			if isIdent(own) {
				name = title
			}
			*out = append(*out, unit{start: start, end: m.off(hdrEnd + 1), solo: true, ctx: ctx, title: title, weak: weak})
			for _, mem := range m.items(hdrEnd+1, closeAt, lvl) {
				m.emit(out, mem, lvl, inner, name, max, nesting+1)
			}
			if closeAt < it.to {
				// The closing line ends the last member's block: a leaf
				// holding only "}" would be a search hit of nothing.
				(*out)[len(*out)-1].end = end
			}
			return
		}
	}
	*out = append(*out, unit{start: start, end: end, ctx: ctx, title: title, weak: weak})
}

// headerContext is a container's header as it travels in Block.Context:
// its code lines, each without trailing white space.
func headerContext(h string) string {
	ls := strings.Split(strings.TrimRight(h, " \t\r\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(ls, "\n")
}

// bodyByBracket finds the body of a container whose members sit inside
// its first bracket at depth d; isContainer judges the header text before
// that bracket.
func bodyByBracket(m *codeModel, it item, d int, isContainer func(header string, ch byte) bool) (int, int, int, bool) {
	start, end := m.off(it.code), m.off(it.to)
	k := sort.Search(len(m.brackets), func(i int) bool { return m.brackets[i].open >= start })
	for ; k < len(m.brackets) && m.brackets[k].open < end; k++ {
		b := m.brackets[k]
		if b.depth != d {
			continue
		}
		if b.close < 0 || b.close >= end || !isContainer(m.src[start:b.open], b.ch) {
			return 0, 0, 0, false
		}
		return m.lineOf(b.open), m.lineOf(b.close), d + 1, true
	}
	return 0, 0, 0, false
}

// headerTokens splits a declaration header into words and punctuation,
// skipping comments and string literals: enough to name it and to tell a
// class from a function.
func headerTokens(s string, limit int) []string {
	var toks []string
	for i := 0; i < len(s) && len(toks) < limit; {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case strings.HasPrefix(s[i:], "//") || (c == '#' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '!')):
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(s)
			}
		case strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		case c == '\'' && lifetime(s, i):
			i++
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(s) && s[j] != c && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
			toks = append(toks, "\"")
		case isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			toks = append(toks, "::")
			i += 2
		default:
			toks = append(toks, s[i:i+1])
			i++
		}
	}
	return toks
}

// lifetime reports a Rust lifetime ('a, 'static) at s[i]: a quote, a word
// and no closing quote.
func lifetime(s string, i int) bool {
	j := i + 1
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	return j > i+1 && (j >= len(s) || s[j] != '\'')
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z') || (c >= '0' && c <= '9')
}

func isIdent(t string) bool {
	if t == "" || (t[0] >= '0' && t[0] <= '9') {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isIdentByte(t[i]) {
			return false
		}
	}
	return true
}

var declKeywords = map[string]bool{
	"class": true, "struct": true, "interface": true, "enum": true, "union": true, "trait": true,
	"impl": true, "fn": true, "func": true, "function": true, "fun": true, "def": true,
	"namespace": true, "mod": true, "module": true, "object": true, "extension": true,
	"protocol": true, "record": true, "type": true, "typealias": true, "actor": true,
	"macro_rules": true, "typedef": true,
}

var controlWords = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true, "catch": true,
	"sizeof": true, "typeof": true, "new": true, "await": true, "foreach": true, "using": true,
	"lock": true, "synchronized": true, "elif": true, "with": true, "print": true,
}

// titleFromTokens names a declaration from its header tokens.
func titleFromTokens(toks []string) string {
	assign := len(toks) >= 2 && isIdent(toks[0]) && (toks[1] == "=" || toks[1] == ":")
	named := "" // the identifier right before "=", ";" or "{": a field, variable or property
	for i, t := range toks {
		if t == "{" || t == ";" || t == "=" {
			if i > 0 && isIdent(toks[i-1]) && !blockWords[toks[i-1]] {
				named = toks[i-1]
			}
			toks = toks[:i]
			break
		}
	}
	for i, t := range toks {
		if !declKeywords[t] {
			continue
		}
		j := skipTokens(toks, i+1, func(u string) bool { return declKeywords[u] || u == "*" || u == "!" })
		if t == "impl" {
			var parts []string
			depth := 0
			for _, u := range toks[j:] {
				switch u {
				case "<":
					depth++
				case ">":
					depth--
				case "::":
					if depth == 0 && len(parts) > 0 {
						parts[len(parts)-1] += "::"
					}
				default:
					if depth == 0 && isIdent(u) {
						if n := len(parts); n > 0 && strings.HasSuffix(parts[n-1], "::") {
							parts[n-1] += u
						} else {
							parts = append(parts, u)
						}
					}
				}
			}
			return strings.Join(append([]string{"impl"}, parts...), " ")
		}
		if j < len(toks) && toks[j] == "<" { // impl<T>, class<T> in some languages
			for j < len(toks) && toks[j] != ">" {
				j++
			}
			j++
		}
		if j < len(toks) && isIdent(toks[j]) {
			return toks[j]
		}
		if t != "type" {
			return t
		}
	}
	if b := binding(toks); b != "" {
		return b
	}
	for i, t := range toks {
		if t == "(" && i > 0 && isIdent(toks[i-1]) && !controlWords[toks[i-1]] {
			name := toks[i-1]
			if i > 2 && toks[i-2] == "::" && isIdent(toks[i-3]) {
				name = toks[i-3] + "::" + name
			}
			return name
		}
	}
	if named != "" {
		return named
	}
	if assign {
		return toks[0]
	}
	return ""
}

var blockWords = wordSet("default", "else", "do", "try", "finally", "static", "init", "unsafe", "async")

// binding names a "let x: T", "const x", "val x", "static mut X: T".
func binding(toks []string) string {
	for i, t := range toks {
		switch t {
		case "const", "let", "var", "val", "static":
			j := i + 1
			for j < len(toks) && (toks[j] == "mut" || toks[j] == "const" || toks[j] == "static" || toks[j] == "readonly") {
				j++
			}
			if j < len(toks) && isIdent(toks[j]) && (j+1 == len(toks) || toks[j+1] == ":") {
				return toks[j]
			}
		}
	}
	return ""
}

// containerKeywords open a body whose members may be split apart.
var containerKeywords = map[string]bool{
	"class": true, "struct": true, "interface": true, "enum": true, "union": true,
	"namespace": true, "impl": true, "trait": true, "mod": true, "module": true,
	"object": true, "extension": true, "protocol": true, "record": true, "actor": true,
	"extern": true,
}

// afterContainerName are the tokens that may follow a container's name
// before its body; any other identifier means the keyword named a type
// being used ("struct foo *make_foo(void) {"), not declared.
var afterContainerName = map[string]bool{
	":": true, "(": true, "extends": true, "implements": true, "where": true, "final": true,
	"for": true, "<": true, "sealed": true, "permits": true, "abstract": true, "open": true,
	"private": true, "internal": true, "public": true, "constructor": true, "\"": true,
}

// skipTokens returns the index of the first of toks from j on that skip
// does not match, or len(toks).
func skipTokens(toks []string, j int, skip func(string) bool) int {
	for j < len(toks) && skip(toks[j]) {
		j++
	}
	return j
}

// isBraceContainer reports whether a header (the text before its body's
// "{") declares a class-like container.
func isBraceContainer(header string, _ byte) bool {
	toks := headerTokens(header, 200)
	for i, t := range toks {
		if !containerKeywords[t] {
			continue
		}
		j := skipTokens(toks, i+1, func(u string) bool { return containerKeywords[u] || u == "companion" || u == "data" })
		if t == "impl" || t == "extern" || j >= len(toks) {
			return true
		}
		if toks[j] == "<" { // generics before the name: impl<T>
			return true
		}
		if !isIdent(toks[j]) {
			return toks[j] == ":" || toks[j] == "\""
		}
		j++ // the name, possibly qualified
		for j+1 < len(toks) && (toks[j] == "::" || toks[j] == ".") && isIdent(toks[j+1]) {
			j += 2
		}
		if j >= len(toks) {
			return true
		}
		return afterContainerName[toks[j]]
	}
	return false
}

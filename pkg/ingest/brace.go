package ingest

import "strings"

// One lexer reads Java, JavaScript, TypeScript, C, C++, C#, Rust, Kotlin,
// Swift and PHP. It does not parse: it only has to know, for every byte,
// whether it is code, a comment or inside a literal, so that brackets are
// counted where they really are. Each language differs only in its
// literals and comments, which braceLang describes.

type quoteStyle uint8

const (
	quoteChar   quoteStyle = iota // 'x' is a character literal (C, C++, Java, C#, Kotlin)
	quoteRust                     // 'x' is a character, 'a a lifetime or label
	quoteString                   // '...' is a string (JavaScript, TypeScript, PHP)
	quoteNone                     // ' is an ordinary character (Swift)
)

// braceLang describes one language's literals, comments and statements.
type braceLang struct {
	quote        quoteStyle
	template     bool // `...${expr}...` template literals (JavaScript, TypeScript)
	tickIdent    bool // `name` quoted identifiers (Kotlin, Swift)
	triple       bool // """...""" strings
	tripleEscape bool // backslash escapes inside """ (Java, Swift; not Kotlin raw strings)
	interp       byte // code inside "...": 'k' Kotlin ${}, 's' Swift \(), 'p' PHP {$} ${}
	nestComments bool // /* /* */ */ nests (Rust, Swift, Kotlin)
	directives   bool // '#' at a line's start is a preprocessor line (C, C++, C#)
	swiftIf      bool // #if/#elseif/#else/#endif lines (Swift)
	cppRaw       bool // R"delim(...)delim"
	rustRaw      bool // r"...", r#"..."#, br"..."
	csharp       bool // @"...", $"...{}...", $@"...", """raw"""
	swiftRaw     bool // #"..."#
	php          bool // <?php ... ?> around the code, # comments, heredocs
	regex        bool // /regex/ literals
	asi          bool // a line end may end a statement
	multiLine    bool // "..." may span lines (Rust, PHP)
	digitSep     bool // 1'000'000 (C++14, C23)
	attrAt       bool // @Annotation lines (Java, Kotlin, TS, Swift)
	attrHash     bool // #[attr] lines (Rust, PHP 8)
	attrBracket  bool // [Attr] lines (C#)
	imports      map[string]bool
	semiImports  map[string]bool // import-like only as a one-line "kw x;" (C# file-scoped namespace, Rust "mod x;")
	contWords    map[string]bool // words that continue the previous line's statement
}

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var braceLangs = map[string]*braceLang{
	"java": {quote: quoteChar, triple: true, tripleEscape: true, attrAt: true,
		imports: wordSet("package", "import")},
	"javascript": {quote: quoteString, template: true, regex: true, asi: true, attrAt: true,
		imports: wordSet("import")},
	"typescript": {quote: quoteString, template: true, regex: true, asi: true, attrAt: true,
		imports: wordSet("import")},
	"c": {quote: quoteChar, directives: true, digitSep: true},
	"cpp": {quote: quoteChar, directives: true, digitSep: true, cppRaw: true,
		imports: wordSet("using", "import")},
	"csharp": {quote: quoteChar, directives: true, csharp: true, attrBracket: true,
		imports: wordSet("using", "extern"), semiImports: wordSet("namespace")},
	"rust": {quote: quoteRust, rustRaw: true, nestComments: true, multiLine: true, attrHash: true,
		imports: wordSet("use", "extern"), semiImports: wordSet("mod")},
	"kotlin": {quote: quoteChar, triple: true, interp: 'k', nestComments: true, asi: true, tickIdent: true, attrAt: true,
		imports: wordSet("package", "import"), contWords: wordSet("get", "set", "by")},
	"swift": {quote: quoteNone, triple: true, tripleEscape: true, interp: 's', nestComments: true, asi: true,
		tickIdent: true, swiftIf: true, swiftRaw: true, attrAt: true, imports: wordSet("import")},
	"php": {quote: quoteString, php: true, interp: 'p', multiLine: true, attrHash: true,
		imports: wordSet("namespace", "use", "require", "require_once", "include", "include_once", "declare")},
}

// braceLexer scans a source once, building the line model.
type braceLexer struct {
	src      string
	l        *braceLang
	i        int
	depth    int // bracket nesting at the outer level
	lines    []cline
	brackets []bracket
	open     []int // indexes of unclosed '{' in brackets
	ifs      []ifFrame
	skewed   int    // frames in ifs that are unbalanced
	nest     int    // interpolation nesting, bounded
	prev     string // last significant token at any level (regex detection)
	noRegex  int    // a regex scan failed: none starts before this offset (its line end)
	opEnd    int    // offset just past the last operator recorded at the outer level
}

// ifFrame remembers the nesting at a #if so that each branch of a
// conditional starts from it and the first branch's effect is kept: a
// function header written twice under #ifdef/#else must not open two
// bodies.
type ifFrame struct {
	depth, endDepth int
	open, endOpen   []int
	sawElse         bool
	// unbalanced: the first branch left a bracket open, so the other
	// branches repeat a header ("int f(int a, int b) {" then "int f(int
	// a) {"): no statement begins inside them.
	unbalanced bool
}

func braceModel(src string, l *braceLang) *codeModel {
	x := &braceLexer{src: src, l: l, opEnd: -1}
	x.lines = make([]cline, 1, strings.Count(src, "\n")+1)
	if strings.HasPrefix(src, "\uFEFF") {
		x.i = 3
	}
	if l.php {
		for x.i < len(src) {
			x.html()
			x.code(true, 0)
		}
	} else {
		x.code(true, 0)
	}
	if n := len(x.lines); n > 1 && x.lines[n-1].off >= len(src) {
		x.lines = x.lines[:n-1]
	}
	x.markStarts()
	m := &codeModel{src: src, lines: x.lines, brackets: x.brackets}
	m.kindOf = func(m *codeModel, it item) itemKind { return braceKind(l, m, it) }
	m.title = braceTitle
	m.body = func(m *codeModel, it item, d int) (int, int, int, bool) {
		return bodyByBracket(m, it, d, isBraceContainer)
	}
	return m
}

// cur is the line being scanned.
func (x *braceLexer) cur() *cline { return &x.lines[len(x.lines)-1] }

// nl starts a new line at x.i (just past a "\n"). cont says the line starts
// inside something (a literal, a comment, a continued directive), whose
// kind it then has.
func (x *braceLexer) nl(cont bool, kind lineKind) {
	l := cline{off: x.i, depth: x.depth, cont: cont || x.skewed > 0}
	if cont {
		l.kind = kind
		if kind == lineCode {
			l.first = "\""
		}
	}
	x.lines = append(x.lines, l)
}

// advance moves x.i to end, starting a continuation line at every "\n".
func (x *braceLexer) advance(end int, kind lineKind) {
	for x.i < end {
		j := strings.IndexByte(x.src[x.i:end], '\n')
		if j < 0 {
			x.i = end
			return
		}
		x.i += j + 1
		x.nl(true, kind)
	}
}

// mark records a significant token; at the outer level it also updates
// the current line.
func (x *braceLexer) mark(top bool, tok string) {
	x.prev = tok
	if !top {
		return
	}
	l := x.cur()
	if l.kind != lineDirective {
		l.kind = lineCode
	}
	isOp := len(tok) == 1 && strings.IndexByte(opChars, tok[0]) >= 0
	at := x.i - len(tok)
	switch {
	case l.first == "":
		l.first = tok
	case isOp && x.opEnd == at && l.second == "" && isOpRun(l.first) && l.last == l.first:
		l.first += tok
	case l.second == "":
		l.second = tok
	}
	if isOp && x.opEnd == at && isOpRun(l.last) && len(l.last) < 3 {
		l.last += tok
	} else {
		l.last = tok
	}
	if isOp {
		x.opEnd = x.i
	}
}

const opChars = "=+-*/%&|^<>!?:.~,@#"

func isOpRun(s string) bool {
	return s != "" && strings.IndexByte(opChars, s[0]) >= 0
}

// atLineStart reports whether only white space precedes x.i on its line.
func (x *braceLexer) atLineStart() bool {
	for j := x.i - 1; j >= x.cur().off; j-- {
		if c := x.src[j]; c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
			return j == 2 && x.cur().off == 0 && strings.HasPrefix(x.src, "\uFEFF")
		}
	}
	return true
}

func (x *braceLexer) peek(k int) byte {
	if x.i+k < len(x.src) {
		return x.src[x.i+k]
	}
	return 0
}

// code scans code until the end, or — inside an interpolation (top false)
// — until the unmatched closing bracket stop, which it consumes. At the
// outer level of PHP it also returns at "?>".
func (x *braceLexer) code(top bool, stop byte) {
	local := 0
	for x.i < len(x.src) {
		c := x.src[x.i]
		switch c {
		case '\n':
			x.i++
			x.nl(!top, lineCode)
			continue
		case ' ', '\t', '\r', '\f', '\v':
			x.i++
			continue
		}
		if top && c == '#' && (x.l.directives || x.l.swiftIf) && x.atLineStart() && x.directive() {
			continue
		}
		n1 := x.peek(1)
		switch {
		case c == '/' && n1 == '/':
			x.lineComment(top)
		case c == '/' && n1 == '*':
			x.blockComment(top)
		case c == '#' && x.l.php && n1 != '[':
			x.lineComment(top)
		case c == '"':
			x.str(top, '"')
		case c == '\'':
			x.quote(top)
		case c == '`':
			x.backtick(top)
		case c == '{' || c == '(' || c == '[':
			x.openBracket(top, c, &local)
		case c == '}' || c == ')' || c == ']':
			if x.closeBracket(top, c, stop, &local) {
				return
			}
		case c == '?' && n1 == '>' && x.l.php && top:
			x.i += 2
			x.mark(top, ";")
			return
		case (c == '@' || c == '$') && x.l.csharp && x.csharpString(top):
		case c == '#' && x.l.swiftRaw && x.swiftRawString(top):
		case c == '<' && x.l.php && strings.HasPrefix(x.src[x.i:], "<<<") && x.heredoc(top):
		case c == '/' && x.l.regex && x.regexAllowed() && x.regexLit(top):
		case isIdentByte(c) && !(c >= '0' && c <= '9'):
			x.word(top)
		case c >= '0' && c <= '9':
			x.number(top)
		default:
			x.i++
			x.mark(top, string(c))
		}
	}
}

// openBracket consumes the opening bracket c: at the outer level it nests
// (a brace is recorded for the splitter), inside an interpolation it
// counts in local.
func (x *braceLexer) openBracket(top bool, c byte, local *int) {
	x.i++
	if top {
		if c == '{' {
			x.brackets = append(x.brackets, bracket{open: x.i - 1, close: -1, depth: x.depth, ch: '{'})
			x.open = append(x.open, len(x.brackets)-1)
		}
		x.depth++
	} else {
		*local++
	}
	x.mark(top, string(c))
}

// closeBracket consumes the closing bracket c, the counterpart of
// openBracket. It reports whether c is the unmatched stop that ends an
// interpolation.
func (x *braceLexer) closeBracket(top bool, c, stop byte, local *int) (done bool) {
	x.i++
	if !top {
		if *local == 0 && c == stop {
			x.prev = ")"
			return true
		}
		if *local > 0 {
			*local--
		}
		x.prev = string(c)
		return false
	}
	if c == '}' {
		if n := len(x.open); n > 0 {
			x.brackets[x.open[n-1]].close = x.i - 1
			x.open = x.open[:n-1]
		}
	}
	if x.depth > 0 {
		x.depth--
	}
	x.mark(top, string(c))
	return false
}

// nested scans an interpolation's code up to its closing bracket. Past a
// sane nesting the rest is taken as literal text, so hostile input cannot
// exhaust the stack.
func (x *braceLexer) nested(stop byte) {
	if x.nest >= 64 {
		return
	}
	x.nest++
	x.code(false, stop)
	x.nest--
}

func (x *braceLexer) lineComment(top bool) {
	if top && x.cur().kind == lineBlank {
		x.cur().kind = lineComment
	}
	rest := x.src[x.i:]
	end := strings.IndexByte(rest, '\n')
	if end < 0 {
		end = len(rest)
	}
	if x.l.php {
		if j := strings.Index(rest[:end], "?>"); j >= 0 {
			end = j
		}
	}
	x.i += end
}

func (x *braceLexer) blockComment(top bool) {
	if top && x.cur().kind == lineBlank {
		x.cur().kind = lineComment
	}
	kind := lineComment
	if !top {
		kind = lineCode
	}
	depth := 0
	for x.i < len(x.src) {
		switch {
		case strings.HasPrefix(x.src[x.i:], "/*"):
			depth++
			x.i += 2
			if !x.l.nestComments && depth > 1 {
				depth = 1
			}
		case strings.HasPrefix(x.src[x.i:], "*/"):
			x.i += 2
			if depth--; depth == 0 {
				return
			}
		case x.src[x.i] == '\n':
			x.i++
			x.nl(true, kind)
		default:
			x.i++
		}
	}
}

// directive scans a preprocessor line (with its continuations) and keeps
// the nesting consistent across #if branches. It reports false when the
// '#' does not begin a directive (Swift's #selector, #"raw"#).
func (x *braceLexer) directive() bool {
	j := x.i + 1
	for j < len(x.src) && (x.src[j] == ' ' || x.src[j] == '\t') {
		j++
	}
	k := j
	for k < len(x.src) && isIdentByte(x.src[k]) {
		k++
	}
	name := x.src[j:k]
	if x.l.swiftIf && !x.l.directives {
		switch name {
		case "if", "elseif", "else", "endif", "warning", "error", "sourceLocation":
		default:
			return false
		}
	}
	l := x.cur()
	l.kind, l.dir = lineDirective, name
	x.i = k
	for x.i < len(x.src) {
		c := x.src[x.i]
		switch {
		case c == '\n':
			x.ifs = x.conditional(name)
			return true
		case c == '\\' && (x.peek(1) == '\n' || (x.peek(1) == '\r' && x.peek(2) == '\n')):
			x.i = strings.IndexByte(x.src[x.i:], '\n') + x.i + 1
			x.nl(true, lineDirective)
		case c == '/' && x.peek(1) == '*':
			x.blockComment(true)
			x.cur().kind = lineDirective
		case c == '/' && x.peek(1) == '/':
			x.lineComment(false)
		case c == '"' || c == '\'':
			e := x.i + 1
			for e < len(x.src) && x.src[e] != c && x.src[e] != '\n' {
				if x.src[e] == '\\' && e+1 < len(x.src) && x.src[e+1] != '\n' {
					e++
				}
				e++
			}
			if e < len(x.src) && x.src[e] == c {
				e++
			}
			x.i = e
		default:
			x.i++
		}
	}
	x.ifs = x.conditional(name)
	return true
}

// conditional applies a directive to the #if stack.
func (x *braceLexer) conditional(name string) []ifFrame {
	switch name {
	case "if", "ifdef", "ifndef":
		if len(x.ifs) < 64 { // deeper conditionals are left alone
			x.ifs = append(x.ifs, ifFrame{depth: x.depth, open: append([]int(nil), x.open...), endDepth: -1})
		}
	case "elif", "elifdef", "elifndef", "else", "elseif":
		if n := len(x.ifs); n > 0 {
			f := &x.ifs[n-1]
			if !f.sawElse {
				f.sawElse, f.endDepth, f.endOpen = true, x.depth, append([]int(nil), x.open...)
				if f.unbalanced = x.depth != f.depth; f.unbalanced {
					x.skewed++
				}
			}
			x.depth, x.open = f.depth, append(x.open[:0], f.open...)
		}
	case "endif":
		if n := len(x.ifs); n > 0 {
			f := x.ifs[n-1]
			if f.sawElse {
				x.depth, x.open = f.endDepth, append(x.open[:0], f.endOpen...)
			}
			if f.unbalanced {
				x.skewed--
			}
			x.ifs = x.ifs[:n-1]
		}
	}
	return x.ifs
}

// markStarts decides on which lines a statement may begin: at a line whose
// previous statement is complete — after ";", "}", "{", a directive, or
// (in languages where a line end ends a statement, or after a blank line)
// after anything that does not continue onto the next line — unless the
// line itself continues the previous one ("else", ".", "->") or follows an
// attribute.
func (x *braceLexer) markStarts() {
	prevLast, prevAttr, prevDir, gap := "", false, false, false
	attrDepth := -1
	for i := range x.lines {
		l := &x.lines[i]
		switch l.kind {
		case lineBlank:
			gap = true
			continue
		case lineComment:
			continue
		case lineDirective:
			l.start = !l.cont
			prevLast, prevAttr, prevDir, gap = "", false, true, false
			continue
		}
		if !l.cont {
			complete := prevDir || prevLast == "" || prevLast == ";" || prevLast == "}" || prevLast == "{"
			if (x.l.asi || gap) && !continuesEnd(prevLast) {
				complete = true
			}
			if prevAttr || continuesStart(l.first, x.l.contWords) {
				complete = false
			}
			l.start = complete
		}
		nextDepth := x.depth
		if i+1 < len(x.lines) {
			nextDepth = x.lines[i+1].depth
		}
		// An attribute alone on its line ("@Override", "@Foo(x)",
		// "#[derive(Debug)]", "[Obsolete]") glues to the next line;
		// "@Published var count = 0" is a declaration of its own.
		open := nextDepth > l.depth // "@Component({" goes on below
		l.attr = !l.cont && (x.l.attrAt && l.first == "@" && l.second != "interface" && (l.last == l.second || l.last == ")" || open) ||
			x.l.attrHash && strings.HasPrefix(l.first, "#") && (l.last == "]" || open) ||
			x.l.attrBracket && l.first == "[" && (l.last == "]" || open))
		switch {
		case l.attr && nextDepth > l.depth:
			attrDepth, prevAttr = l.depth, false // a multi-line attribute
		case l.attr:
			prevAttr = l.last != ";" && l.last != "}"
		case attrDepth >= 0 && nextDepth <= attrDepth:
			attrDepth, prevAttr = -1, true
		default:
			prevAttr = false
		}
		if l.last != "" {
			prevLast = l.last
		}
		prevDir, gap = false, false
	}
}

// continuesEnd reports whether a line ending in tok continues onto the
// next line.
func continuesEnd(tok string) bool {
	switch tok {
	case "", ";", "}", "{", ")", "]", "\"", "'", "name", "++", "--", "!", "!!":
		return false
	case "=>", "->", ">=", ">>=", "(", "[", ",":
		return true
	case "extends", "implements", "in", "of", "instanceof", "typeof", "new", "as", "is",
		"where", "throws", "and", "or", "await", "yield":
		return true
	}
	if isOpRun(tok) {
		switch tok[len(tok)-1] {
		case '>', '!', '@', '#':
			return false
		}
		return true
	}
	return false
}

// continuesStart reports whether a line beginning with tok continues the
// previous line's statement.
func continuesStart(tok string, words map[string]bool) bool {
	switch tok {
	case "{", "else", "catch", "finally", "extends", "implements", "where", "throws":
		return true
	}
	if words[tok] {
		return true
	}
	if isOpRun(tok) {
		switch tok[0] {
		case '.', ',', '?', ':', '=', '+', '-', '&', '|', '^', '%', '>':
			return true
		}
	}
	return false
}

var visibility = wordSet("pub", "export", "public", "private", "protected", "internal", "static", "global")

func braceKind(l *braceLang, m *codeModel, it item) itemKind {
	i := it.code
	for i < it.to && (m.lines[i].attr || m.lines[i].kind == lineComment || m.lines[i].kind == lineBlank) {
		i++
	}
	if i >= it.to {
		i = it.code
	}
	ln := &m.lines[i]
	if ln.kind == lineDirective {
		switch ln.dir {
		case "include", "import", "pragma", "using":
			return kindImport
		case "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "elseif", "region":
			return kindGlueNext
		case "endif", "endregion":
			return kindGluePrev
		}
		return kindDecl
	}
	w1, w2 := ln.first, ln.second
	if w1 == "<?php" {
		return kindImport
	}
	if visibility[w1] && (l.imports[w2] || l.semiImports[w2]) {
		w1 = w2
	}
	if l.imports[w1] || (l.semiImports[w1] && ln.last == ";") {
		return kindImport
	}
	return kindDecl
}

func braceTitle(m *codeModel, it item) string {
	i := m.titleLine(it)
	if l := m.lines[i]; l.kind == lineDirective && l.dir == "define" {
		if toks := headerTokens(m.src[l.off:m.off(i+1)], 4); len(toks) >= 3 {
			return toks[2] // "#", "define", NAME
		}
	}
	if it.kind == kindImport {
		if f := m.lines[i].first; f == "package" || f == "namespace" {
			line := m.src[m.off(i):m.off(i+1)]
			return clip(strings.Trim(strings.TrimSpace(line), ";{ "), 60)
		}
		return "imports"
	}
	end := min(m.off(it.to), m.off(i)+400)
	return titleFromTokens(headerTokens(m.src[m.off(i):end], 60))
}

package codeindex

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lookup"
	"github.com/ihmt-dev/ihmt/pkg/screen"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// indexFile adds a file's symbols to the inverted index. Each symbol's
// text is indexed with its file's path and its name, so a query naming a
// file or a symbol meets it.
func (p *Project) indexFile(f *file, text string) {
	f.docs = f.docs[:0]
	for i, s := range f.Symbols {
		d := p.ix.Add(f.Path+"\n"+s.Name+"\n"+text[s.Start:s.End], f.group)
		f.docs = append(f.docs, d)
		p.docs[d] = symRef{f, i}
	}
}

// drop hides a file's symbols.
func (p *Project) drop(f *file) {
	if p.ix == nil {
		return
	}
	for _, d := range f.docs {
		p.ix.SetLive(d, false)
		delete(p.docs, d)
		p.dead++
	}
	f.docs = nil
}

// codeB is BM25's length normalisation for symbols. Higher than the
// memories' (package index): a long function is long because it does
// more, and without it a 300-line handler that mentions every word once
// outranks the ten-line function named for what was asked.
const codeB = 0.75

// startIndex makes the inverted index when it is missing, or anew when
// hidden symbols outnumber the live ones, before a sync: the sync then
// indexes the files it reads, and fillIndex the rest. The caller holds
// p.mu.
func (p *Project) startIndex() {
	if p.ix != nil && !(p.dead > 1024 && p.dead > p.ix.Len()) {
		return
	}
	p.ix, p.docs, p.dead = index.NewWithOptions(index.Options{B: codeB}), map[index.Doc]symRef{}, 0
	for _, f := range p.files {
		f.docs = nil
	}
}

// fillIndex indexes the files the sync did not read: those the manifest
// already knew. The caller holds p.mu.
func (p *Project) fillIndex() {
	for _, f := range p.files {
		if len(f.Symbols) == 0 || f.docs != nil {
			continue
		}
		data, _, err := readBeneath(p.root, f.Path, MaxFileBytes)
		if err != nil || checksum(data) != f.Sum {
			// Changed since the sync a moment ago: the next call
			// re-splits it.
			f.ModTime = 0
			continue
		}
		p.indexFile(f, string(data))
	}
}

// text returns symbol s of f as the file holds it now.
func (p *Project) text(f *file, s Symbol) (string, bool) {
	data, _, err := readBeneath(p.root, f.Path, MaxFileBytes)
	if err != nil || s.End > len(data) || checksum(data) != f.Sum {
		return "", false
	}
	return string(data[s.Start:s.End]), true
}

// under reports whether rel is dir or inside it ("" is the root).
func under(dir, rel string) bool {
	return dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// base resolves a call's path and subpath to a directory of the project,
// relative to the root.
func (p *Project) base(pathArg, subpath string) (string, error) {
	_, rel, err := Resolve(p.root, pathArg)
	if err != nil {
		return "", err
	}
	if subpath != "" {
		if filepath.IsAbs(subpath) {
			return "", fmt.Errorf("%w: subpath %q must be relative to path", ErrOutside, subpath)
		}
		_, rel, err = Resolve(p.root, path.Join(rel, filepath.ToSlash(subpath)))
		if err != nil {
			return "", err
		}
	}
	return rel, nil
}

// FileEntry is a file in a map.
type FileEntry struct {
	Path    string
	Bytes   int64
	Tokens  int64
	Lines   int
	Skipped string
	Symbols []Symbol
}

// Map is a project map.
type Map struct {
	Files       []FileEntry
	TotalTokens int64
	Truncated   bool
	Stats       Stats
}

// Tokens estimates a text's tokens: four bytes a token.
func Tokens(bytes int64) int64 { return (bytes + 3) / 4 }

// MaxMapFiles bounds the files one map lists: past it, a subpath is
// needed.
const MaxMapFiles = 3000

// Map syncs and maps the files under pathArg/subpath; symbols says
// whether each file lists its declarations.
func (p *Project) Map(pathArg, subpath, detail string) (Map, error) {
	var symbols bool
	switch detail {
	case "", "files":
	case "symbols":
		symbols = true
	default:
		return Map{}, fmt.Errorf("%w: detail %q: use files or symbols", leaf.ErrInvalid, detail)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	dir, err := p.base(pathArg, subpath)
	if err != nil {
		return Map{}, err
	}
	st, err := p.sync()
	if err != nil {
		return Map{}, err
	}
	m := Map{Stats: st, Truncated: p.truncated}
	for _, f := range p.files {
		if !under(dir, f.Path) {
			continue
		}
		e := FileEntry{Path: f.Path, Bytes: f.Size, Tokens: Tokens(f.Size), Lines: f.Lines, Skipped: f.Skipped}
		if symbols {
			for _, s := range f.Symbols {
				if s.Kind != "imports" {
					e.Symbols = append(e.Symbols, s)
				}
			}
		}
		m.TotalTokens += e.Tokens
		m.Files = append(m.Files, e)
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	if len(m.Files) > MaxMapFiles {
		m.Files, m.Truncated = m.Files[:MaxMapFiles], true
	}
	return m, nil
}

// FindQuery is one find_code call.
type FindQuery struct {
	Query, Clue   string
	Path, Subpath string
	Scope         string // main, test or all
	MaxTokens     int
}

// Found is one symbol in an answer.
type Found struct {
	Path      string
	Symbol    Symbol
	Code      string
	Truncated bool
	Score     float64
	Tokens    int64
}

// Answer is find_code's answer.
type Answer struct {
	Verdict    verdict.Verdict
	Confidence float64
	Hits       []Found // with code
	Also       []Found // further matches, without code
	Candidates []Found // ambiguous: the tied symbols; not_found: a near miss
	Message    string
	Tokens     int64
	Stats      Stats
}

// Ranking weights, on top of BM25 over a symbol's path, name and code: an
// import block names many things and answers none; a symbol whose name the
// query spells out ("decode the timeout" and decodeTimeout) is usually the
// one meant, and so is a file the query names ("in retry.go") or whose
// name it uses ("the verdict policy" and verdict.go).
const (
	importWeight    = 0.25
	namedFileWeight = 1.5
	nameWeight      = 1.0 // × the share of the name's words the query has
	stemWeight      = 0.3 // × the share of the file name's words the query has
	// rivalShare: a further hit shows its code only when it scores this
	// close to the best; the others are listed by place.
	rivalShare   = 0.75
	alsoShare    = 0.4 // and is listed at all only this close
	maxHits      = 5
	maxAlso      = 5
	defaultLimit = 1500
	maxLimit     = 20000
)

// Find syncs and answers a query with the symbols that match it.
func (p *Project) Find(q FindQuery) (Answer, error) {
	test, main, err := scopeOf(q.Scope)
	if err != nil {
		return Answer{}, err
	}
	budget := q.MaxTokens
	switch {
	case budget == 0:
		budget = defaultLimit
	case budget < 50 || budget > maxLimit:
		return Answer{}, fmt.Errorf("%w: max_tokens %d: use 50 to %d", leaf.ErrInvalid, budget, maxLimit)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	dir, err := p.base(q.Path, q.Subpath)
	if err != nil {
		return Answer{}, err
	}
	p.startIndex()
	st, err := p.sync()
	if err != nil {
		return Answer{}, err
	}
	p.fillIndex()
	groups := map[index.Group]*file{}
	for _, f := range p.files {
		if under(dir, f.Path) && len(f.docs) > 0 && (isTest(f.Path) && test || !isTest(f.Path) && main) {
			groups[f.group] = f
		}
	}
	w := newWeights(q.Query)
	a, err := lookup.Search(p.ix, lookup.Query{
		Text: q.Query, Clue: q.Clue,
		Visible: func(g index.Group) bool { return groups[g] != nil },
		Weigh: func(d index.Doc, s float64) float64 {
			r := p.docs[d]
			return s * w.of(r.f.Path, r.f.Symbols[r.i])
		},
		Apart: func(a, b index.Doc) bool { return p.docs[a].f.Path != p.docs[b].f.Path },
		Words: func(d index.Doc) []string {
			r := p.docs[d]
			t, _ := p.text(r.f, r.f.Symbols[r.i])
			return tokenize.Terms(t)
		},
	})
	if err != nil {
		return Answer{}, err
	}
	return p.answer(a, int64(budget), st), nil
}

// answer turns a judged ranking into code within the budget.
func (p *Project) answer(a lookup.Answer, budget int64, st Stats) Answer {
	out := Answer{Verdict: a.Verdict, Confidence: a.Confidence, Stats: st}
	found := func(h lookup.Hit) Found {
		r := p.docs[h.Doc]
		s := r.f.Symbols[r.i]
		return Found{Path: r.f.Path, Symbol: s, Score: h.Score}
	}
	out.Message = a.Judgment.Message(verdict.Symbols, fmt.Sprintf("the %d symbols in scope", a.Searched), a.Terms)
	switch {
	case a.Verdict == verdict.NotFound:
		for _, h := range a.Shown {
			out.Candidates = append(out.Candidates, found(h))
		}
		return out
	case a.Verdict == verdict.Ambiguous:
		for _, h := range a.Shown {
			out.Candidates = append(out.Candidates, found(h))
		}
		out.Message += " Call again with a clue (a word of the one you mean) or a subpath."
		return out
	}
	best := a.Shown[0].Score
	for i, h := range a.Shown {
		f := found(h)
		if i > 0 && (h.Score < rivalShare*best || len(out.Hits) >= maxHits) {
			if len(out.Also) < maxAlso && h.Score >= alsoShare*best {
				out.Also = append(out.Also, f)
			}
			continue
		}
		code, ok := p.text(p.docs[h.Doc].f, f.Symbol)
		if !ok {
			continue
		}
		tokens := Tokens(int64(len(code)))
		if out.Tokens+tokens > budget {
			if len(out.Hits) > 0 {
				if len(out.Also) < maxAlso {
					out.Also = append(out.Also, f)
				}
				continue
			}
			code, f.Truncated = clip(code, budget), true
			tokens = Tokens(int64(len(code)))
		}
		f.Code, f.Tokens = code, tokens
		out.Tokens += tokens
		out.Hits = append(out.Hits, f)
	}
	return out
}

// clip cuts code to budget tokens at a line end.
func clip(code string, budget int64) string {
	n := int(budget * 4)
	if n >= len(code) {
		return code
	}
	if k := strings.LastIndexByte(code[:n], '\n'); k > 0 {
		n = k + 1
	}
	return code[:n]
}

func scopeOf(s string) (test, main bool, err error) {
	switch s {
	case "", "main":
		return false, true, nil
	case "test":
		return true, false, nil
	case "all":
		return true, true, nil
	}
	return false, false, fmt.Errorf("%w: scope %q: use main, test or all", leaf.ErrInvalid, s)
}

// isTest recognises test files of the common layouts.
func isTest(rel string) bool {
	b := path.Base(rel)
	low := strings.ToLower(b)
	ext := path.Ext(low)
	name := strings.TrimSuffix(low, ext)
	switch {
	case strings.HasSuffix(name, "_test"), strings.HasPrefix(name, "test_"),
		strings.HasSuffix(name, ".test"), strings.HasSuffix(name, ".spec"),
		strings.HasSuffix(strings.TrimSuffix(b, path.Ext(b)), "Test"), strings.HasSuffix(strings.TrimSuffix(b, path.Ext(b)), "Tests"):
		return true
	}
	for _, d := range strings.Split(path.Dir(rel), "/") {
		switch d {
		case "test", "tests", "__tests__", "testdata", "spec":
			return true
		}
	}
	return false
}

// weights are a query's preferences among the symbols it matches.
type weights struct {
	terms map[string]bool
	named map[string]bool
}

func newWeights(query string) weights {
	w := weights{terms: map[string]bool{}, named: namedFiles(query)}
	for _, t := range tokenize.Terms(query) {
		w.terms[t] = true
	}
	return w
}

// of is the weight of symbol s of the file at path.
func (w weights) of(path string, s Symbol) float64 {
	f := 1.0
	if s.Kind == "imports" {
		f *= importWeight
	}
	if w.named[stem(path)] {
		f *= namedFileWeight
	}
	f *= 1 + nameWeight*w.share(s.Name)
	f *= 1 + stemWeight*w.share(stem(path))
	return f
}

// share is the share of a name's words that the query has: its parts
// ("decodeTimeout" is decode and timeout), not the joined form, which a
// query spelling the parts never has (but counts when it does).
func (w weights) share(name string) float64 {
	parts, have := 0, 0
	for _, word := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		ts := tokenize.Tokens(word)
		if len(ts) > 1 {
			if w.terms[ts[len(ts)-1]] { // the joined form: the whole name asked for
				return 1
			}
			ts = ts[:len(ts)-1]
		}
		for _, t := range ts {
			if tokenize.IsStopWord(t) {
				continue
			}
			parts++
			if w.terms[t] {
				have++
			}
		}
	}
	if parts == 0 {
		return 0
	}
	return float64(have) / float64(parts)
}

// namedFiles are the file stems a query names ("server.go", "server").
func namedFiles(q string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return r == ' ' || r == ',' || r == '"' || r == '`' || r == '\'' }) {
		if strings.Contains(w, ".") || strings.Contains(w, "/") {
			out[stem(w)] = true
		}
	}
	return out
}

// stem is a path's file name without its extension, lower-cased.
func stem(p string) string {
	b := strings.ToLower(path.Base(filepath.ToSlash(p)))
	return strings.TrimSuffix(b, path.Ext(b))
}

// Read returns the file at p inside root, whole, if it is text, not over
// MaxFileBytes and holds no credentials. It opens the file once, beneath
// the root and through no symlink, and reads that descriptor (see
// openBeneath), so a file swapped for a symlink meanwhile is never
// followed out of the project.
func Read(root, p string) (rel, text string, err error) {
	rel, err = clean(root, p)
	if err != nil {
		return "", "", err
	}
	data, fi, err := readBeneath(root, rel, MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", "", fmt.Errorf("%w: %s does not exist in the project (paths are relative to %s)", leaf.ErrNotFound, p, root)
	case errors.Is(err, errSymlink):
		return "", "", fmt.Errorf("%w: %q is a symlink (or under one): read_file follows none, since one could lead outside the project; read the file it points to, if it is in the project", leaf.ErrInvalid, p)
	case errors.Is(err, errOutsideStep):
		return "", "", fmt.Errorf("%w: %q leads out of the project root", ErrOutside, p)
	case errors.Is(err, errIsDir):
		return "", "", fmt.Errorf("%w: %s is a directory: use project_map to list it", leaf.ErrInvalid, p)
	case errors.Is(err, errNotRegular):
		return "", "", fmt.Errorf("%w: %s is not a regular file", leaf.ErrInvalid, p)
	case errors.Is(err, errTooBig):
		return "", "", fmt.Errorf("%w: %s is %d bytes, over the %d this tool returns: use find_code, or read a part with your own tools", leaf.ErrInvalid, p, fi.Size(), MaxFileBytes)
	case err != nil:
		return "", "", fmt.Errorf("read %s: %w", p, err)
	}
	if !isText(data) {
		return "", "", fmt.Errorf("%w: %s is not UTF-8 text", leaf.ErrInvalid, p)
	}
	if found := screen.Secrets(string(data)); len(found) > 0 {
		return "", "", fmt.Errorf("%w: %s holds %s: the code tools never hand credentials to an agent; tell the user where the secret is kept instead", ErrSecret, p, found[0])
	}
	return rel, string(data), nil
}

// ErrSecret means a file holds a private key or a credential, which the
// code tools never return (read_file), index (find_code) or describe
// (project_map) — as the memory never stores one.
var ErrSecret = fmt.Errorf("%w: the file holds a credential", leaf.ErrInvalid)

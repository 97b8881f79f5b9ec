package recall

import (
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/memo"
)

// Engine is the search pipeline with its settings and what it remembers
// between searches; one per store, safe for concurrent searches.
type Engine struct {
	off   Switches
	names *memo.Map[nameKey, nameUse]
}

// New returns an engine with the signals off switched off (ParseSwitches).
func New(off Switches) *Engine {
	return &Engine{off: off, names: memo.New[nameKey, nameUse](maxNameUses, nil)}
}

// on reports whether a signal is on.
func (e *Engine) on(name string) bool { return !e.off[name] }

// Forget drops what the engine remembers of memory id's text: the store
// calls it when a text leaves (a purge).
func (e *Engine) Forget(id string) {
	e.names.DeleteFunc(func(k nameKey) bool { return k.id == id })
}

// searcher is one search under way: the engine, the reader it reads
// through, and the reader's parts it reads most.
type searcher struct {
	*Engine
	r    Reader
	ix   Index
	lex  *lexicon.Lexicon
	succ successors // the supersede stage's lookups (rank)
}

func (e *Engine) over(r Reader) *searcher {
	return &searcher{Engine: e, r: r, ix: r.Index(), lex: r.Lexicon()}
}

// leaf is memory d's header.
func (s *searcher) leaf(d index.Doc) *leaf.Leaf { return s.r.Leaf(d) }

func (s *searcher) groupOf(l *leaf.Leaf) index.Group { return groupOf(s.r, l) }

// groupOf is the index group of a memory: 0 for a global one.
func groupOf(r Reader, l *leaf.Leaf) index.Group {
	if l.Scope == leaf.ScopeGlobal {
		return 0
	}
	g, _ := r.Group(l.Project)
	return g
}

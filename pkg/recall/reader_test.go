package recall

import (
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// memReader is a Reader over memories held in memory, in record order:
// what a stage's test needs of a store, without one. Global memories go
// to group 0, each project to a group of its own; nothing supersedes
// anything unless a test says so in by.
type memReader struct {
	ix       *index.Index
	docs     []*leaf.Leaf
	groups   map[string]index.Group
	projects []string
	defs     map[index.Group][]Definer
	by       map[index.Doc]index.Doc // explicit successors
	now      time.Time
}

func newMemReader() *memReader {
	return &memReader{ix: index.New(), groups: map[string]index.Group{"": 0}, projects: []string{""},
		defs: map[index.Group][]Definer{}, by: map[index.Doc]index.Doc{}, now: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
}

// add records a memory with header h (active and asserted unless h says
// otherwise) and text, and returns its document.
func (m *memReader) add(t testing.TB, h leaf.Header, text string) index.Doc {
	t.Helper()
	if h.Status == "" {
		h.Status = leaf.StatusActive
	}
	if h.Trust == "" {
		h.Trust = leaf.TrustAsserted
	}
	if h.Scope == "" {
		h.Scope = leaf.ScopeGlobal
	}
	if h.ID == "" {
		h.ID = leaf.ID(h, text)
	}
	if h.RecordedAt.IsZero() {
		h.RecordedAt = m.now
	}
	if h.ValidFrom.IsZero() {
		h.ValidFrom = h.RecordedAt
	}
	g := index.Group(0)
	if h.Scope != leaf.ScopeGlobal {
		var ok bool
		if g, ok = m.groups[h.Project]; !ok {
			g = index.Group(len(m.projects))
			m.groups[h.Project] = g
			m.projects = append(m.projects, h.Project)
		}
	}
	d := m.ix.Add(text, g)
	if int(d) != len(m.docs) {
		t.Fatalf("document %d added as %d", len(m.docs), d)
	}
	m.docs = append(m.docs, &leaf.Leaf{Header: h, Text: text})
	return d
}

func (m *memReader) Index() Index                     { return m.ix }
func (m *memReader) Leaf(d index.Doc) *leaf.Leaf      { return m.docs[d] }
func (m *memReader) Text(d index.Doc) leaf.Leaf       { return *m.docs[d] }
func (m *memReader) Projects() []string               { return m.projects }
func (m *memReader) Definers(g index.Group) []Definer { return m.defs[g] }
func (m *memReader) Lexicon() *lexicon.Lexicon        { return lexicon.Default() }
func (m *memReader) Now() time.Time                   { return m.now }
func (m *memReader) Descend(*index.Scorer, int, func(index.Group) bool, func(index.Doc) bool) ([]index.Hit, Coverage, bool) {
	return nil, Coverage{}, false
}
func (m *memReader) TreePath(string) []string { return nil }
func (m *memReader) Notices(_, _ index.Doc, _ bool, _ timeline.View) []string {
	return []string{"OUTDATED"}
}

func (m *memReader) Group(project string) (index.Group, bool) {
	g, ok := m.groups[project]
	return g, ok
}

func (m *memReader) Successor(d index.Doc, _ timeline.View, visible func(index.Doc) bool) (index.Doc, bool) {
	n, ok := m.by[d]
	return n, ok && visible(n)
}

func (m *memReader) Likely(index.Doc, func(index.Doc) bool, EdgeFilter) (Edge, bool) {
	return Edge{}, false
}

// searcherOver is a searcher with every signal on over r.
func searcherOver(r Reader) *searcher { return New(nil).over(r) }

// docOf is the document a test added n-th.
func docOf(n int) index.Doc { return index.Doc(n) }

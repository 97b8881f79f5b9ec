package store

import (
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// A search is pkg/recall's pipeline. The store checks who asks and what
// they may see, logs a read of every project, and lends the pipeline a
// read-only view of itself (reader) under its read lock.

// SearchScope is which memories a search may see.
type SearchScope int

const (
	// ScopeDefault sees global memories and the caller's project.
	ScopeDefault SearchScope = iota
	// ScopeOnlyProject sees the caller's project only.
	ScopeOnlyProject
	// ScopeOnlyGlobal sees global memories only.
	ScopeOnlyGlobal
	// ScopeAll sees everything, every project included.
	ScopeAll
)

func scopeName(s SearchScope) string {
	switch s {
	case ScopeOnlyProject:
		return "this project"
	case ScopeOnlyGlobal:
		return "global memories"
	case ScopeAll:
		return "any project"
	}
	return "global memories or this project"
}

// SearchInput is one search.
type SearchInput struct {
	Caller Caller
	Query  string
	Clue   string
	Scope  SearchScope
	Limit  int
	// AsOf, optional: answer as things stood on that date (valid time).
	AsOf string
	// KnownAt, optional: answer with what had been recorded by that date
	// (record time).
	KnownAt string
	// Explain asks for the search's trace (recall.Trace).
	Explain bool
}

// Search ranks the memories the caller may see. The ranking is exhaustive:
// every visible memory containing a query term is scored.
func (s *Store) Search(in SearchInput) (SearchResult, error) {
	return s.search(in, recall.Options{})
}

// Evaluate is Search for tests, benchmarks and evaluation scripts (such as
// scripts/locomo): the same answer, searched as opts says, with the
// ranking behind it (SearchResult.Ranked).
func (s *Store) Evaluate(in SearchInput, opts EvalOptions) (SearchResult, error) {
	opts.Ranking = true
	return s.search(in, opts)
}

func (s *Store) search(in SearchInput, opts recall.Options) (SearchResult, error) {
	if err := validateCaller(in.Caller); err != nil {
		return SearchResult{}, err
	}
	q, err := recall.Parse(recall.Input{Query: in.Query, Clue: in.Clue, From: in.Caller.Project, Limit: in.Limit,
		AsOf: in.AsOf, KnownAt: in.KnownAt, Explain: in.Explain})
	if err != nil {
		return SearchResult{}, err
	}
	// A scope=all search is logged while it ranks; it answers only once
	// the entry is durable (startReadAll).
	logged, err := s.startReadAll(in.Caller, in.Scope, "search "+in.Query)
	if err != nil {
		return SearchResult{}, err
	}
	res, err := s.searchLocked(in, q, opts)
	if lerr := logged(); lerr != nil {
		return SearchResult{}, lerr
	}
	return res, err
}

// searchLocked runs the pipeline under s.mu for reading.
func (s *Store) searchLocked(in SearchInput, q recall.Query, opts recall.Options) (SearchResult, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, desc, err := s.visible(in.Caller, in.Scope)
	if err != nil {
		return SearchResult{}, err
	}
	return s.engine.Search(s.reader(), q, recall.Scope{Visible: vis, Described: desc}, opts), nil
}

// reader is the store as a search reads it (recall.Reader): valid while
// its caller holds s.mu for reading. It takes the tree's lock itself, and
// only when the tree is free: a search never waits for a consolidation.
type reader Store

// reader is the store's read-only view, for a caller holding s.mu for
// reading (a pointer: lending it costs nothing).
func (s *Store) reader() *reader { return (*reader)(s) }

func (r *reader) Index() recall.Index                     { return r.ix }
func (r *reader) Leaf(d index.Doc) *leaf.Leaf             { return r.docs[d] }
func (r *reader) Text(d index.Doc) leaf.Leaf              { return (*Store)(r).docShown(d) }
func (r *reader) Projects() []string                      { return r.projects }
func (r *reader) Definers(g index.Group) []recall.Definer { return r.definers[g] }
func (r *reader) Lexicon() *lexicon.Lexicon               { return r.lex }
func (r *reader) Now() time.Time                          { return r.now() }

func (r *reader) Group(project string) (index.Group, bool) {
	g, ok := r.groups[project]
	return g, ok
}

func (r *reader) Successor(d index.Doc, tv timeline.View, visible func(index.Doc) bool) (index.Doc, bool) {
	n, _, ok := (*Store)(r).certainSuccessor(d, tv, visible)
	return n, ok
}

func (r *reader) Likely(d index.Doc, visible func(index.Doc) bool, f recall.EdgeFilter) (recall.Edge, bool) {
	return (*Store)(r).likelySuccessor(d, visible, f)
}

func (r *reader) Notices(d, by index.Doc, probable bool, tv timeline.View) []string {
	return (*Store)(r).notices(d, by, probable, tv)
}

func (r *reader) TreePath(id string) []string {
	s := (*Store)(r)
	if !s.treeMu.TryRLock() {
		return nil
	}
	defer s.treeMu.RUnlock()
	if s.tree == nil {
		return nil
	}
	return s.branchTitles(s.tree, id)
}

// Descend is the search's scoring through the summary tree
// (recall.Options.Descend): a descent from the root, then pkg/tree's
// guarantee pass, which scores whatever could still place.
func (r *reader) Descend(sc *index.Scorer, k int, vis func(index.Group) bool, visible func(index.Doc) bool) ([]index.Hit, recall.Coverage, bool) {
	s := (*Store)(r)
	if !s.treeMu.TryRLock() {
		return nil, recall.Coverage{}, false
	}
	defer s.treeMu.RUnlock()
	if s.tree == nil {
		return nil, recall.Coverage{}, false
	}
	res := s.tree.Search(tree.Query{
		Scorer: treeScorer{s: s, sc: sc, visible: visible},
		K:      k,
		Visible: func(id string) bool {
			d, ok := s.byID[id]
			return ok && visible(d)
		},
		VisibleGroup: groupVisibility(s.groups, vis),
	})
	hits := make([]index.Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, index.Hit{Doc: s.byID[h.ID], Score: h.Score, Matched: h.Matched})
	}
	return hits, recall.Coverage{Exhaustive: res.Exhaustive, NodesRead: res.NodesRead, LeavesScored: res.LeavesScored,
		ViaTree: true, Descended: res.Descended, Guaranteed: res.Guaranteed}, true
}

// treeScorer is the index's scorer as pkg/tree asks for it: leaves by id,
// restricted to what the caller may see at the search's moment.
type treeScorer struct {
	s       *Store
	sc      *index.Scorer
	visible func(index.Doc) bool
}

func (t treeScorer) Terms() []string          { return t.sc.Terms() }
func (t treeScorer) UpperBound(i int) float64 { return t.sc.UpperBound(i) }

func (t treeScorer) Postings(i int, fn func(string)) {
	t.PostingsScored(i, func(id string, _ float64) { fn(id) })
}

// PostingsScored lets the guarantee rule postings out without scoring them
// (tree.ScoredPostings).
func (t treeScorer) PostingsScored(i int, fn func(string, float64)) {
	t.sc.Postings(i, func(d index.Doc, c float64) {
		if t.visible(d) {
			fn(t.s.docs[d].ID, c)
		}
	})
}

func (t treeScorer) Score(id string) (float64, uint64, bool) {
	d, ok := t.s.byID[id]
	if !ok || !t.visible(d) {
		return 0, 0, false
	}
	return t.sc.Score(d)
}

// excerpt is the opening of a text on one line, for the store's own
// answers (an OUTDATED notice, the log's summary). What the daemon sends
// on the wire is cut by the wire's own ihmtv1.Excerpt: the store does not
// import the API.
func excerpt(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= excerptMaxRunes {
		return text
	}
	return string(r[:excerptMaxRunes]) + "…"
}

const excerptMaxRunes = 160

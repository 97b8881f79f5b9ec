package recall

import (
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// Reader is everything a search reads of the store, and all it may: the
// store implements it under its read lock, for the length of one search,
// as a query runs against an index reader. Nothing here writes, and what
// it hands out (headers, lists) is the store's own: a search must not
// modify it.
type Reader interface {
	// Index is the inverted index over every memory's words.
	Index() Index
	// Leaf is memory d's header as the store holds it (its text may have
	// been left to its file); Text is the memory with its text.
	Leaf(d index.Doc) *leaf.Leaf
	Text(d index.Doc) leaf.Leaf
	// Group is a project's index group; Projects names every group's
	// project, by group ("" for the global one, 0).
	Group(project string) (index.Group, bool)
	Projects() []string
	// Definers are the memories that define a project, by its group.
	Definers(g index.Group) []Definer
	Lexicon() *lexicon.Lexicon
	Now() time.Time
	// The store's one model of what is current: Successor is the newest
	// successor of d by a correction or a fact's newer value that visible
	// allows; Likely the most probable inferred one that the filter
	// applies (nil: any); Notices word why d is not current when by
	// supersedes it.
	Successor(d index.Doc, tv timeline.View, visible func(index.Doc) bool) (index.Doc, bool)
	Likely(d index.Doc, visible func(index.Doc) bool, f EdgeFilter) (Edge, bool)
	Notices(d, by index.Doc, probable bool, tv timeline.View) []string
	// Descend scores the k best memories visible allows (in groups vis
	// allows) by descending the summary tree with sc (Options.Descend),
	// exhaustive-equivalent; false when the tree is busy (a search never
	// waits for a consolidation). TreePath names the branches above a
	// memory, root first.
	Descend(sc *index.Scorer, k int, vis func(index.Group) bool, visible func(index.Doc) bool) ([]index.Hit, Coverage, bool)
	TreePath(id string) []string
}

// EdgeFilter says whether an inferred link from memory d takes effect for
// the search under way (an interface, not a func, so that asking it per
// memory allocates nothing).
type EdgeFilter interface {
	Applies(d index.Doc, e Edge) bool
}

// Index is the inverted index, as a search reads it.
type Index interface {
	Search(q index.Query) ([]index.Hit, index.Stats)
	WeightedScorer(terms []string, weights []float64, visible func(index.Group) bool) *index.Scorer
	Contains(d index.Doc, term string) bool
	Holds(term string, visible func(index.Group) bool) bool
	DocFreq(term string) int
	IDF(term string) float64
	GroupLen(g index.Group) int
}

// Package index is the in-memory inverted index the daemon searches: BM25
// over every live document, exhaustive by construction.
//
// Every document is scored through the posting lists of the query's terms,
// so a document that contains a query term cannot be missed; documents the
// caller may not see are skipped while scoring, not filtered afterwards, so
// a limit never hides a visible match behind invisible ones.
//
// Documents may be linked to their neighbours (Link): each then also counts
// the other's words, at a lower weight, so a memory that says "yes, in May"
// is found by the question the memory before it asked. The words are lent
// at query time through the neighbour's own postings, so a link costs a few
// bytes rather than a copy of the neighbour's postings, and a hidden
// neighbour stops lending at once.
//
// An Index is not safe for concurrent mutation. The store serialises writes
// through its single writer and guards the index with a RWMutex; any number
// of searches may run at once under the read lock.
package index

import (
	"container/heap"
	"math"
	"sync"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// BM25 parameters. b is lower than the textbook 0.75: memories vary a lot in
// length and a long one is usually long because it says more, not because it
// repeats itself (measured on LoCoMo: b≈0.3–0.4 beats 0.75; k1 barely matters).
const (
	K1 = 1.2
	B  = 0.4
)

// Options tune the ranking; the zero value is the default.
type Options struct {
	// K1 and B are BM25's parameters: K1 > 0 and 0 < B ≤ 1, where zero
	// (or a value out of range) means the constants above.
	K1, B float64
}

// MaxQueryTerms bounds the terms a query may score; Hit.Matched is a bitmask.
const MaxQueryTerms = 64

// Doc identifies a document inside one Index.
type Doc uint32

// Group is a visibility group: 0 is global, every project has its own.
type Group uint32

type docInfo struct {
	length uint32 // terms in the document's own text
	group  Group
	live   bool
	// lent is the length the live linked neighbours lend, weighted: a
	// document is scored as if it were its text plus theirs at weight w.
	lent float64
}

// link is one side of Link: the neighbour and the weight of its words.
type link struct {
	doc Doc
	w   float32
}

// Index is a BM25 inverted index.
type Index struct {
	k1, b float64
	// terms numbers every term seen; lists holds its postings (see
	// postings.go). A number rather than a map value lets Add count a
	// document's terms in counts, a scratch array, instead of a map of its
	// own, and lets a Scorer find its lists without hashing terms again.
	terms    map[string]uint32
	lists    []plist
	counts   []uint32 // by term; zero between calls of Add
	seen     []uint32 // the terms of the document being added
	docs     []docInfo
	links    [][]link      // by Doc; shorter than docs when the last ones have none
	groups   map[Group]int // live documents per group
	totalLen float64       // own and lent length of live documents
	live     int
}

// New returns an empty index with the default ranking.
func New() *Index { return NewWithOptions(Options{}) }

// NewWithOptions returns an empty index ranking with o.
func NewWithOptions(o Options) *Index {
	if !(o.K1 > 0) {
		o.K1 = K1
	}
	if !(o.B > 0 && o.B <= 1) {
		o.B = B
	}
	return &Index{k1: o.K1, b: o.B, terms: make(map[string]uint32), groups: make(map[Group]int)}
}

// Add indexes text as a new document of group g and returns its id. Ids are
// dense and increasing, so posting lists stay sorted by document.
func (ix *Index) Add(text string, g Group) Doc {
	d := Doc(len(ix.docs))
	var n uint32
	seen := ix.seen[:0]
	tokenize.Each(text, func(t string) {
		n++
		id, ok := ix.terms[t]
		if !ok {
			id = uint32(len(ix.lists))
			ix.terms[t] = id
			ix.lists = append(ix.lists, plist{})
			ix.counts = append(ix.counts, 0)
		}
		if ix.counts[id] == 0 {
			seen = append(seen, id)
		}
		ix.counts[id]++
	})
	for _, id := range seen {
		ix.lists[id].add(d, ix.counts[id])
		ix.counts[id] = 0
	}
	ix.seen = seen[:0]
	ix.docs = append(ix.docs, docInfo{length: n, group: g, live: true})
	ix.groups[g]++
	ix.totalLen += float64(n)
	ix.live++
	return d
}

// NeighbourWeight is the weight to Link a document with the one saved
// distance places before it in the same conversation (for a store: the same
// session on the same day): 0.5 for the previous one, 0.25 for the one
// before, 0 beyond. Measured on LoCoMo (scripts/locomo): ±2 at .5/.25 beat
// ±1 alone, ±3, flat and heavier weights. Words are lent, not scores: adding
// a share of a neighbour's score instead was found to pull the neighbour
// above the memory that actually answers.
func NeighbourWeight(distance int) float64 {
	switch distance {
	case 1:
		return 0.5
	case 2:
		return 0.25
	}
	return 0
}

// MaxLinkWeight bounds Link's weight: a neighbour's words never count as
// much as the document's own.
const MaxLinkWeight = 1

// Link makes documents a and b lend each other their words at weight w
// (0 < w ≤ 1): for ranking, each is read as its own text plus the other's
// with every occurrence counting w. The caller chooses the neighbours (the
// index cannot tell which documents belong together: the store links
// memories saved one after another in one session on one day) and must
// link only within one group, or a document would rank for words its
// reader may not see. Linking the same pair twice lends twice.
//
// Lent words rank a document but are never contained in it: Contains and
// Hit.Matched see its own text, Hit.Related what only neighbours lent, and
// IDF counts only documents whose own text holds a term. A hidden
// document (SetLive) neither scores nor lends.
func (ix *Index) Link(a, b Doc, w float64) {
	if a == b || int(a) >= len(ix.docs) || int(b) >= len(ix.docs) || !(w > 0) {
		return
	}
	w = min(w, MaxLinkWeight)
	if need := int(max(a, b)) + 1; len(ix.links) < need {
		ix.links = append(ix.links, make([][]link, need-len(ix.links))...)
	}
	ix.links[a] = append(ix.links[a], link{doc: b, w: float32(w)})
	ix.links[b] = append(ix.links[b], link{doc: a, w: float32(w)})
	ix.lend(a, b, float64(float32(w)), 1)
	ix.lend(b, a, float64(float32(w)), 1)
}

// lend adds (sign 1) or removes (sign -1) the length lender lends to
// borrower at weight w, when the lender is live.
func (ix *Index) lend(borrower, lender Doc, w float64, sign float64) {
	if !ix.docs[lender].live {
		return
	}
	n := sign * w * float64(ix.docs[lender].length)
	ix.docs[borrower].lent += n
	if ix.docs[borrower].live {
		ix.totalLen += n
	}
}

// Len returns the number of live documents.
func (ix *Index) Len() int { return ix.live }

// GroupLen returns the number of live documents in group g.
func (ix *Index) GroupLen(g Group) int { return ix.groups[g] }

// Groups returns the number of distinct groups with live documents.
func (ix *Index) Groups() int { return len(ix.groups) }

// IDF is the BM25 inverse document frequency of term t. A term found
// nowhere has the highest IDF, which makes it weigh most in Coverage: a query
// whose rarest words match nothing is not well answered by its commonest.
func (ix *Index) IDF(t string) float64 {
	var df float64
	if pl := ix.list(t); pl != nil {
		df = float64(pl.n)
	}
	n := float64(ix.live)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Contains reports whether the text of document d contains term t (words
// lent by a linked neighbour do not count).
func (ix *Index) Contains(d Doc, t string) bool {
	pl := ix.list(t)
	return pl != nil && pl.tf(d) > 0
}

// list returns term t's posting list, nil when no document has it.
func (ix *Index) list(t string) *plist {
	if id, ok := ix.terms[t]; ok {
		return &ix.lists[id]
	}
	return nil
}

// Query is one search.
type Query struct {
	// Terms are the query's informative terms, deduplicated; at most
	// MaxQueryTerms are used.
	Terms []string
	// Visible reports whether documents of a group may be returned.
	Visible func(Group) bool
	// Limit is how many hits to return, best first.
	Limit int
}

// Hit is one scored document.
type Hit struct {
	Doc   Doc
	Score float64
	// Matched has bit i set when the document contains Terms[i].
	Matched uint64
	// Related has bit i set when Terms[i] is not in the document but a
	// linked neighbour lent it (Link).
	Related uint64
}

// Stats says how much a search examined.
type Stats struct {
	PostingsRead int // posting lists read
	DocsScored   int // documents that received a score
	Visible      int // live documents the query could see
}

type accumulator struct {
	score   []float64
	matched []uint64
	related []uint64
	touched []Doc
	// tf and termDocs collect one term's weighted counts when documents
	// are linked: a document's own count and its neighbours' are summed
	// before BM25 saturates them, as if the words were in its text.
	tf       []float64
	termDocs []Doc
}

var accPool = sync.Pool{New: func() any { return new(accumulator) }}

// Search scores every visible document that contains at least one query
// term, or is linked to one that does, and returns the best Limit of them,
// highest score first (ties broken by the newer document first).
func (ix *Index) Search(q Query) ([]Hit, Stats) {
	var st Stats
	for g, n := range ix.groups {
		if q.Visible(g) {
			st.Visible += n
		}
	}
	terms := q.Terms
	if len(terms) > MaxQueryTerms {
		terms = terms[:MaxQueryTerms]
	}
	if len(terms) == 0 || q.Limit <= 0 || ix.live == 0 {
		return nil, st
	}
	acc := accPool.Get().(*accumulator)
	defer accPool.Put(acc)
	if len(acc.score) < len(ix.docs) {
		n := len(ix.docs) + len(ix.docs)/4
		acc.score = make([]float64, n)
		acc.matched = make([]uint64, n)
		acc.related = make([]uint64, n)
		acc.tf = make([]float64, n)
	}
	acc.touched = acc.touched[:0]

	avgLen := ix.totalLen / float64(ix.live)
	var docs [batch]Doc
	var tfs [batch]uint32
	for i, t := range terms {
		pl := ix.list(t)
		if pl == nil {
			continue
		}
		st.PostingsRead++
		idf := ix.IDF(t)
		bit := uint64(1) << uint(i)
		if len(ix.links) == 0 {
			// Nothing is linked: score each posting directly.
			for c := pl.cursor(); ; {
				n := c.fill(&docs, &tfs)
				if n == 0 {
					break
				}
				for k, d := range docs[:n] {
					info := ix.docs[d]
					if !info.live || !q.Visible(info.group) {
						continue
					}
					if acc.matched[d] == 0 {
						acc.touched = append(acc.touched, d)
					}
					acc.score[d] += ix.bm25(idf, float64(tfs[k]), info, avgLen)
					acc.matched[d] |= bit
				}
			}
			continue
		}
		acc.termDocs = acc.termDocs[:0]
		for c := pl.cursor(); ; {
			n := c.fill(&docs, &tfs)
			if n == 0 {
				break
			}
			for k, d := range docs[:n] {
				info := ix.docs[d]
				if !info.live {
					continue // a hidden document neither scores nor lends
				}
				tf := float64(tfs[k])
				if q.Visible(info.group) {
					acc.add(d, tf, bit, true)
				}
				if int(d) < len(ix.links) {
					for _, l := range ix.links[d] {
						if n := ix.docs[l.doc]; n.live && q.Visible(n.group) {
							acc.add(l.doc, float64(l.w)*tf, bit, false)
						}
					}
				}
			}
		}
		for _, d := range acc.termDocs {
			acc.score[d] += ix.bm25(idf, acc.tf[d], ix.docs[d], avgLen)
			acc.tf[d] = 0
		}
	}
	st.DocsScored = len(acc.touched)

	h := make(hitHeap, 0, q.Limit+1)
	for _, d := range acc.touched {
		hit := Hit{Doc: d, Score: acc.score[d], Matched: acc.matched[d], Related: acc.related[d] &^ acc.matched[d]}
		acc.score[d], acc.matched[d], acc.related[d] = 0, 0, 0
		if len(h) < q.Limit {
			heap.Push(&h, hit)
		} else if better(hit, h[0]) {
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out, st
}

// bm25 is one term's share of a document's score, for a (weighted) count
// tf of the term in the document and what its neighbours lend.
func (ix *Index) bm25(idf, tf float64, info docInfo, avgLen float64) float64 {
	norm := ix.k1 * (1 - ix.b + ix.b*(float64(info.length)+info.lent)/avgLen)
	return idf * tf * (ix.k1 + 1) / (tf + norm)
}

// add counts tf occurrences of the current term (bit) for document d, from
// its own text or lent by a neighbour.
func (acc *accumulator) add(d Doc, tf float64, bit uint64, own bool) {
	if acc.tf[d] == 0 {
		acc.termDocs = append(acc.termDocs, d)
	}
	if acc.matched[d]|acc.related[d] == 0 {
		acc.touched = append(acc.touched, d)
	}
	acc.tf[d] += tf
	if own {
		acc.matched[d] |= bit
	} else {
		acc.related[d] |= bit
	}
}

// better orders hits: higher score first, then the newer document.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc > b.Doc
}

// hitHeap is a min-heap by better, so its root is the worst hit kept.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

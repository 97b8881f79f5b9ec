// Package index is the in-memory inverted index the daemon searches: BM25
// over every live document, exhaustive by construction.
//
// Every document is scored through the posting lists of the query's terms,
// so a document that contains a query term cannot be missed; documents the
// caller may not see are skipped while scoring, not filtered afterwards, so
// a limit never hides a visible match behind invisible ones.
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

// MaxQueryTerms bounds the terms a query may score; Hit.Matched is a bitmask.
const MaxQueryTerms = 64

// Doc identifies a document inside one Index.
type Doc uint32

// Group is a visibility group: 0 is global, every project has its own.
type Group uint32

type posting struct {
	doc Doc
	tf  uint32
}

type docInfo struct {
	length uint32
	group  Group
	live   bool
}

// Index is a BM25 inverted index.
type Index struct {
	postings map[string][]posting
	docs     []docInfo
	groups   map[Group]int // live documents per group
	totalLen int64
	live     int
}

// New returns an empty index.
func New() *Index {
	return &Index{postings: make(map[string][]posting), groups: make(map[Group]int)}
}

// Add indexes text as a new document of group g and returns its id. Ids are
// dense and increasing, so posting lists stay sorted by document.
func (ix *Index) Add(text string, g Group) Doc {
	d := Doc(len(ix.docs))
	tf := make(map[string]uint32)
	var n uint32
	tokenize.Each(text, func(t string) {
		tf[t]++
		n++
	})
	for t, c := range tf {
		ix.postings[t] = append(ix.postings[t], posting{doc: d, tf: c})
	}
	ix.docs = append(ix.docs, docInfo{length: n, group: g, live: true})
	ix.groups[g]++
	ix.totalLen += int64(n)
	ix.live++
	return d
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
	df := float64(len(ix.postings[t]))
	n := float64(ix.live)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Contains reports whether document d contains term t.
func (ix *Index) Contains(d Doc, t string) bool {
	ps := ix.postings[t]
	lo, hi := 0, len(ps)
	for lo < hi {
		mid := (lo + hi) / 2
		if ps[mid].doc < d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo < len(ps) && ps[lo].doc == d
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
	touched []Doc
}

var accPool = sync.Pool{New: func() any { return new(accumulator) }}

// Search scores every visible document that contains at least one query
// term and returns the best Limit of them, highest score first (ties broken
// by the newer document first).
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
		acc.score = make([]float64, len(ix.docs)+len(ix.docs)/4)
		acc.matched = make([]uint64, len(acc.score))
	}
	acc.touched = acc.touched[:0]

	avgLen := float64(ix.totalLen) / float64(ix.live)
	for i, t := range terms {
		ps, ok := ix.postings[t]
		if !ok {
			continue
		}
		st.PostingsRead++
		idf := ix.IDF(t)
		for _, p := range ps {
			info := ix.docs[p.doc]
			if !info.live || !q.Visible(info.group) {
				continue
			}
			tf := float64(p.tf)
			norm := K1 * (1 - B + B*float64(info.length)/avgLen)
			if acc.matched[p.doc] == 0 {
				acc.touched = append(acc.touched, p.doc)
			}
			acc.score[p.doc] += idf * tf * (K1 + 1) / (tf + norm)
			acc.matched[p.doc] |= 1 << uint(i)
		}
	}
	st.DocsScored = len(acc.touched)

	h := make(hitHeap, 0, q.Limit+1)
	for _, d := range acc.touched {
		hit := Hit{Doc: d, Score: acc.score[d], Matched: acc.matched[d]}
		acc.score[d], acc.matched[d] = 0, 0
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

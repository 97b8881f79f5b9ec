package index

import (
	"cmp"
	"container/heap"
	"slices"
	"sync"
)

// Query is one search.
type Query struct {
	// Terms are the query's informative terms, deduplicated; at most
	// MaxQueryTerms are used.
	Terms []string
	// Visible reports whether documents of a group may be returned.
	Visible func(Group) bool
	// Limit is how many hits to return, best first.
	Limit int
	// Weights, optional, scale each term's IDF (a missing or zero weight
	// is 1): a query's own words weigh fully, words added for them (a
	// translation, a synonym) less.
	Weights []float64
}

// weight returns the weight of term i.
func weight(weights []float64, i int) float64 {
	if i < len(weights) && weights[i] > 0 {
		return weights[i]
	}
	return 1
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

// Search returns the best Limit visible documents for the query, highest
// score first (ties broken by the newer document first): exactly the
// documents, scores and term bits an exhaustive BM25 over every visible
// document gives.
//
// It reads the query's terms rarest first, scoring every document each
// term reaches (its own postings and the neighbours they lend to). Once
// what the unread terms could add to any document — each term's BM25
// bound, summed — falls below the Limit-th best score so far, a document
// no term has reached yet can no longer place: the rest of the search
// only completes the scores of the documents that still can (MaxScore,
// term at a time), dropping each as soon as it cannot. A query that pairs
// a rare word with common ones then reads the common words' lists only
// for a few candidates. Stats.DocsScored counts the documents that
// received a score.
func (ix *Index) Search(q Query) ([]Hit, Stats) {
	var st Stats
	vis := ix.visibility(q.Visible)
	for g, n := range ix.groups {
		if vis.sees(g) {
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
	plan := ix.plan(terms, q.Weights)
	acc := getAccumulator(len(ix.docs))
	defer putAccumulator(acc)
	avgLen := ix.totalLen / float64(ix.live)

	// rest[j] bounds what terms j… can add to any document's score, read
	// bounds what the terms read so far can have given one.
	rest := make([]float64, len(plan)+1)
	for j := len(plan) - 1; j >= 0; j-- {
		rest[j] = rest[j+1] + plan[j].ub
	}
	prunable := len(plan) > 1 && plan[len(plan)-1].idf > 0 // scores only grow
	var read, theta float64
	j := 0
	for ; j < len(plan); j++ {
		// theta, the Limit-th best score so far, is at most read: only
		// when rest[j] is below that is it worth finding.
		if prunable && j > 0 && rest[j] < read && len(acc.touched) >= q.Limit {
			if theta = acc.kth(q.Limit); rest[j] < theta {
				break
			}
		}
		ix.walk(acc, plan[j], vis, false)
		acc.scoreTerm(ix, plan[j].bit, plan[j].idf, avgLen)
		read += plan[j].ub
		st.PostingsRead++
	}
	st.DocsScored = len(acc.touched)
	if j < len(plan) {
		ix.complete(acc, plan[j:], rest[j:], theta, q, vis, avgLen)
		st.PostingsRead += len(plan) - j
	}

	h := make(hitHeap, 0, q.Limit+1)
	for _, d := range acc.touched {
		sl := &acc.slots[d]
		hit := Hit{Doc: d, Score: sl.score, Matched: sl.matched, Related: sl.related &^ sl.matched}
		*sl = slot{}
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

// planned is one query term as a search reads it.
type planned struct {
	bit uint64 // 1 << the term's position in the query
	pl  *plist
	idf float64
	ub  float64 // bounds the term's share of any document's score
	// lends: linked neighbours lend the term (see Index.lends).
	lends bool
}

// plan returns the query's terms that some document holds, in the order
// every score sums them: rarest (highest bound) first, then by position.
// Search and Scorer.Score add a document's shares in this one order, so
// their scores are equal to the last bit.
func (ix *Index) plan(terms []string, weights []float64) []planned {
	plan := make([]planned, 0, len(terms))
	for i, t := range terms {
		pl := ix.list(t)
		if pl == nil {
			continue
		}
		idf := ix.IDF(t) * weight(weights, i)
		plan = append(plan, planned{bit: 1 << uint(i), pl: pl, idf: idf, ub: ix.bound(idf), lends: ix.lends(pl)})
	}
	slices.SortStableFunc(plan, func(a, b planned) int { return cmp.Compare(b.ub, a.ub) })
	return plan
}

// bound bounds the share of any document's score of a term with this IDF:
// BM25 saturates, tf/(tf+norm) < 1 for any count, lent words included. A
// negative IDF (hidden documents still count in the document frequency)
// gives a share below zero, so zero bounds it, and Search does not prune.
func (ix *Index) bound(idf float64) float64 { return max(0, idf*(ix.k1+1)) }

// walk counts one term for every visible live document its postings reach,
// its own and its linked neighbours; with onlyScored, only documents that
// already have a score (a slot in use has a norm) are counted. Search and
// Scorer.Postings both count through it, so they count alike.
func (ix *Index) walk(acc *accumulator, t planned, vis visibility, onlyScored bool) {
	var docs [batch]Doc
	var tfs [batch]uint32
	add := func(d Doc, tf float32, own bool) {
		if !onlyScored || acc.slots[d].norm != 0 {
			acc.add(d, tf, own)
		}
	}
	for c := t.pl.cursor(); ; {
		n := c.fill(&docs, &tfs)
		if n == 0 {
			return
		}
		for k, d := range docs[:n] {
			// A hidden document neither scores nor lends; links stay in
			// their group, so an invisible one lends to no visible one.
			if info := ix.docs[d]; !info.live || !vis.sees(info.group) {
				continue
			}
			tf := float32(tfs[k])
			add(d, tf, true)
			if !t.lends || int(d) >= len(ix.links) {
				continue
			}
			ls := &ix.links[d]
			for i := range ls {
				l := ls[i]
				if l.w <= 0 {
					if l.w == 0 {
						break
					}
					continue // a hidden neighbour is not scored
				}
				add(l.doc, l.out*tf, false)
			}
			if ls[inlineLinks-1].w != 0 {
				for _, l := range ix.more[d] {
					if l.w > 0 {
						add(l.doc, l.out*tf, false)
					}
				}
			}
		}
	}
}

// visibility is a query's Visible, asked once for each group rather than
// once for each posting: a search at a large store walks tens of
// thousands of postings and a store has a handful of groups.
type visibility []bool

func (ix *Index) visibility(visible func(Group) bool) visibility {
	var top Group
	for g := range ix.groups {
		top = max(top, g)
	}
	v := make(visibility, int(top)+1)
	for g := range v {
		v[g] = visible(Group(g))
	}
	return v
}

// sees reports whether group g is visible; a group no live document is
// in (so not in ix.groups) is not.
func (v visibility) sees(g Group) bool { return int(g) < len(v) && v[g] }

// lookupCost is, in postings walked, about what finding one document's
// count through a list's skip table costs (a binary search and the decoding
// of part of a block, for the document and each neighbour).
const lookupCost = 24

// complete finishes the scores of the documents that can still place once
// no unscored one can: theta is the Limit-th best score so far and rest[j]
// bounds what plan[j…] can add. A document whose score plus that bound
// stays under theta is dropped; the others are counted term by term, by
// looking their counts up when they are few and by walking the list
// otherwise.
func (ix *Index) complete(acc *accumulator, plan []planned, rest []float64, theta float64, q Query, vis visibility, avgLen float64) {
	for j, t := range plan {
		acc.prune(rest[j], theta)
		if len(acc.touched)*lookupCost < int(t.pl.n) {
			for _, d := range acc.touched {
				sl := &acc.slots[d]
				c := ix.termCount(d, t)
				if c.own > 0 {
					sl.matched |= t.bit
				}
				if c.lent > 0 {
					sl.related |= t.bit
				}
				if tf := float64(c.own) + float64(c.lent); tf > 0 {
					sl.score += ix.bm25(t.idf, tf, sl.norm)
				}
			}
		} else {
			ix.walk(acc, t, vis, true)
			acc.scoreTerm(ix, t.bit, t.idf, avgLen)
		}
		theta = max(theta, acc.kth(q.Limit))
	}
}

// termCount is document d's count of term t, its own and what its live
// neighbours lend, summed as a walk of t's list sums it but found through
// the lists' skip tables: for a few documents, far cheaper than a walk.
func (ix *Index) termCount(d Doc, t planned) count {
	c := count{own: float32(t.pl.tf(d))}
	if t.lends {
		for _, l := range ix.linksOf(d) {
			if l.w > 0 {
				c.lent += l.w * float32(t.pl.tf(l.doc))
			}
		}
	}
	return c
}

// pruneSlack keeps a document whose bound equals theta up to rounding.
const pruneSlack = 1e-9

// prune drops the documents whose score, even with bound added, stays
// under theta: at least Limit documents already score theta or more.
func (acc *accumulator) prune(bound, theta float64) {
	keep := acc.touched[:0]
	for _, d := range acc.touched {
		sl := &acc.slots[d]
		if sl.score+bound < theta*(1-pruneSlack) {
			*sl = slot{}
			continue
		}
		keep = append(keep, d)
	}
	acc.touched = keep
}

// kth returns the k-th best score among the scored documents, 0 when fewer
// than k have one.
func (acc *accumulator) kth(k int) float64 {
	if len(acc.touched) < k {
		return 0
	}
	h := acc.kheap[:0]
	for _, d := range acc.touched {
		s := acc.slots[d].score
		switch {
		case len(h) < k:
			h = append(h, s)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if h[p] <= h[i] {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
		case s > h[0]:
			h[0] = s
			for i := 0; ; {
				m, l, r := i, 2*i+1, 2*i+2
				if l < len(h) && h[l] < h[m] {
					m = l
				}
				if r < len(h) && h[r] < h[m] {
					m = r
				}
				if m == i {
					break
				}
				h[m], h[i] = h[i], h[m]
				i = m
			}
		}
	}
	acc.kheap = h
	return h[0]
}

// accumulator is one search's working state, by document. A linked search
// counts a term for documents in no useful order (a neighbour may be
// anywhere), so the counting touches only a small array — 8 bytes a
// document, which mostly stays in the CPU's cache even for a large store —
// and the rest of a document's state (its slot) is updated once per term.
type accumulator struct {
	counts []count // the current term's counts
	slots  []slot
	// termDocs are the documents the current term reached: a document's
	// own count and its neighbours' are summed before BM25 saturates them,
	// as if the words were in its text.
	termDocs []Doc
	touched  []Doc     // documents with a slot in use
	kheap    []float64 // kth's scratch
}

// count is one term's count in a document: in its own text, and lent by
// its neighbours at the links' weights.
type count struct{ own, lent float32 }

type slot struct {
	score   float64
	norm    float64 // BM25's length normalisation: > 0 once in use
	matched uint64
	related uint64
}

// accumulators keeps the accumulators of finished searches for the next
// ones: one holds a count and a slot for every document. A sync.Pool would
// do, except that it is emptied at every garbage collection, and a daemon
// running under a memory limit collects often: each search after a
// collection then allocated a fresh accumulator, which brought the next
// collection sooner.
var accumulators struct {
	mu   sync.Mutex
	free []*accumulator
}

// maxIdleAccumulators bounds the kept ones: as many as searches that ran
// at once, up to this many.
const maxIdleAccumulators = 4

// getAccumulator returns an accumulator for n documents, every count and
// slot zero. putAccumulator gives it back.
func getAccumulator(n int) *accumulator {
	a := &accumulators
	a.mu.Lock()
	var acc *accumulator
	if k := len(a.free); k > 0 {
		acc, a.free = a.free[k-1], a.free[:k-1]
	}
	a.mu.Unlock()
	if acc == nil {
		acc = new(accumulator)
	}
	if len(acc.slots) < n {
		acc.slots = make([]slot, n+n/4)
		acc.counts = make([]count, n+n/4)
	}
	acc.touched, acc.termDocs = acc.touched[:0], acc.termDocs[:0]
	return acc
}

func putAccumulator(acc *accumulator) {
	a := &accumulators
	a.mu.Lock()
	if len(a.free) < maxIdleAccumulators {
		a.free = append(a.free, acc)
	}
	a.mu.Unlock()
}

// add counts tf occurrences of the current term for document d, in its own
// text or lent by a neighbour.
func (acc *accumulator) add(d Doc, tf float32, own bool) {
	c := &acc.counts[d]
	if *c == (count{}) {
		acc.termDocs = append(acc.termDocs, d)
	}
	if own {
		c.own += tf
	} else {
		c.lent += tf
	}
}

// scoreTerm adds the current term's (bit's) share to the score of every
// document it reached and clears its counts.
func (acc *accumulator) scoreTerm(ix *Index, bit uint64, idf, avgLen float64) {
	for _, d := range acc.termDocs {
		c := acc.counts[d]
		acc.counts[d] = count{}
		sl := &acc.slots[d]
		if sl.norm == 0 {
			sl.norm = ix.norm(ix.docs[d], avgLen)
			acc.touched = append(acc.touched, d)
		}
		if c.own > 0 {
			sl.matched |= bit
		}
		if c.lent > 0 {
			sl.related |= bit
		}
		sl.score += ix.bm25(idf, float64(c.own)+float64(c.lent), sl.norm)
	}
	acc.termDocs = acc.termDocs[:0]
}

// norm is BM25's length normalisation of a document, whose own and lent
// length is measured against the collection's average.
func (ix *Index) norm(info docInfo, avgLen float64) float64 {
	return ix.k1 * (1 - ix.b + ix.b*(float64(info.length)+info.lent)/avgLen)
}

// bm25 is one term's share of a document's score, for a (weighted) count
// tf of the term in the document and what its neighbours lend.
func (ix *Index) bm25(idf, tf, norm float64) float64 {
	return idf * tf * (ix.k1 + 1) / (tf + norm)
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

// A term in more than one document in lendShare (and in more than
// lendFloor documents) is not lent to neighbours. Such a word says little
// about which memory answers — its IDF is low — yet lending it reaches
// every neighbour of every memory holding it, most of a large store for the
// commonest words: that walk was most of a search's time on a large store.
// Ranking gained too, on LoCoMo (scripts/locomo): 1/16 ranks better than
// lending every word or 1/32; with questions weighed (NeighbourLink) 1/8
// ranks better still, but costs a large store's searches about twice the
// time. The floor keeps more of a small store's words lent — there every
// walk is cheap — and is what a conversation of some hundreds of memories
// ranks best with: a word in up to 64 of them is lent, about 1/8 of such a
// store, while from about a thousand memories up the share decides.
const (
	lendShare = 16
	lendFloor = 64
)

// lends reports whether linked neighbours lend the term of list pl.
func (ix *Index) lends(pl *plist) bool {
	return int(pl.n) <= lendFloor || int(pl.n)*lendShare <= ix.live
}

// Holds reports whether a live document of a visible group holds term t in
// its own text: whether a search for t alone finds anything (a document
// that lends t holds it too), answered at the first such document rather
// than by scoring the whole list.
func (ix *Index) Holds(t string, visible func(Group) bool) bool {
	pl := ix.list(t)
	if pl == nil {
		return false
	}
	var docs [batch]Doc
	var tfs [batch]uint32
	c := pl.cursor()
	for k := c.fill(&docs, &tfs); k > 0; k = c.fill(&docs, &tfs) {
		for _, d := range docs[:k] {
			if info := ix.docs[d]; info.live && visible(info.group) {
				return true
			}
		}
	}
	return false
}

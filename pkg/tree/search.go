package tree

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Scorer is the caller's exact ranking: BM25 over every visible leaf's full
// text, backed by its inverted index. Search trusts it to be consistent:
// Score is the ranking, Postings finds every leaf term i can contribute to,
// and UpperBound bounds that contribution.
type Scorer interface {
	// Terms are the query's terms.
	Terms() []string
	// UpperBound(i) bounds term i's contribution to any leaf's score.
	// idf × (k1+1) is always valid for BM25; a bound from the term's
	// actual postings (its highest contribution) is tighter, and the
	// tighter it is, the fewer leaves the guarantee scores.
	UpperBound(i int) float64
	// Postings calls fn for every visible leaf containing term i (every
	// leaf to whose score term i contributes).
	Postings(i int, fn func(leafID string))
	// Score returns a visible leaf's exact score and the bitmask of query
	// terms it contains (bit i for Terms()[i]); ok is false for a leaf the
	// caller may not see.
	Score(leafID string) (score float64, matched uint64, ok bool)
}

// ScoredPostings is an optional Scorer extension: posting lists that also
// pass term i's exact contribution to each leaf's score, which an inverted
// index knows as it walks the list. With it the guarantee rules out a leaf
// whose contribution plus the bounds of the terms not yet walked cannot
// reach the k-th score, without calling Score: a query of one common term
// then costs one walk of its list and a few Score calls instead of a Score
// call per posting.
type ScoredPostings interface {
	PostingsScored(i int, fn func(leafID string, contribution float64))
}

// Defaults for Query.
const (
	DefaultK    = 10
	DefaultBeam = 4
)

// Query is a search.
type Query struct {
	// Scorer scores leaves exactly; required.
	Scorer Scorer
	// Terms rank branch summaries during the descent, tokenized as
	// tokenize.Terms does (default: Scorer.Terms()).
	Terms []string
	// K is the number of hits (default 10).
	K int
	// Beam is the number of branches opened per level (default 4); a
	// negative Beam skips the descent, leaving the guarantee alone to find
	// the top K (still exhaustive-equivalent, and on some corpora cheaper:
	// see the package tests' figures).
	Beam int
	// Visible, when set, says whether the caller may see a leaf; the
	// descent skips leaves it rejects without scoring them.
	Visible func(leafID string) bool
	// VisibleGroup, when set, says whether the caller may see anything of a
	// group; the descent does not spend its beam on groups it rejects.
	VisibleGroup func(group string) bool

	descentOnly bool // test knob: skip the guarantee
}

// Hit is one result.
type Hit struct {
	ID      string
	Score   float64
	Matched uint64   // bitmask over Scorer.Terms()
	Path    []string // branch ids from the root down to the leaf; empty when parentless, nil when the tree does not hold it
	// ViaGuarantee says the descent did not reach this leaf: the guarantee
	// pass found it.
	ViaGuarantee bool
}

// Result is a search's hits and what it cost.
type Result struct {
	// Hits are the top K by score descending, then by id ascending: the
	// order an exhaustive search must use to compare equal.
	Hits []Hit
	// NodesRead counts the root, the branches opened and the posting
	// lists walked; LeavesScored counts calls to Scorer.Score.
	NodesRead, LeavesScored int
	// Exhaustive says Hits equal an exhaustive BM25's top K by
	// construction (always, unless the guarantee was skipped).
	Exhaustive bool
	// Descended counts the visible leaves the descent reached and scored,
	// Guaranteed those the guarantee pass scored on top.
	Descended, Guaranteed int

	branchesRead int // branches opened by the descent
	filesRead    int // of which read from their files (not in the cache)
}

// BM25 parameters for ranking summaries among siblings.
const (
	summaryK1 = 1.2
	summaryB  = 0.75
)

// Field weights of a summary: a word in a title or among the keywords says
// more about a child than one in its excerpt.
const (
	weightTitle   = 3
	weightKeyword = 3
	weightTag     = 2
	weightExcerpt = 1
)

// Search returns the top q.K leaves by the Scorer's exact score, equal to
// an exhaustive search's (Result.Hits gives the order).
//
// It descends first: from the root, each level's siblings are ranked by a
// small BM25 over their summaries (title and keywords ×3, tags ×2,
// excerpt ×1), the best q.Beam branches are opened (their children's
// summaries come from the cache, or else from the branch's file; a file
// that cannot be read is skipped), and every leaf reached is scored
// exactly. Then the guarantee: with θ the k-th best score so far,
// a leaf not yet scored can only enter the top k if it contains a query
// term, and only if the bounds of the terms it could contain add up to θ
// or more. Terms are walked from the highest bound down; once the bounds of
// the terms not yet walked sum below θ, no unscored leaf can place — every
// leaf containing a walked term was scored — and the search stops. θ rises
// as better leaves are found, so the walk can stop inside a list too; with
// ScoredPostings, single postings are ruled out without being scored.
//
// A good descent makes θ high early and leaves the guarantee little to do;
// a poor one costs time, never results. On the package tests' synthetic
// corpus (topics scattered at random, so summaries say little) the descent
// seldom reaches the top hit and costs more leaf scores than the θ it
// brings saves (TestSearchEqualsExhaustive logs both); its value there is
// the path to each hit and the browsing, and Beam < 0 skips it.
func (t *Tree) Search(q Query) Result {
	var res Result
	if q.Scorer == nil {
		return res
	}
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	beam := q.Beam
	if beam == 0 {
		beam = DefaultBeam
	}
	terms := q.Terms
	if len(terms) == 0 {
		terms = q.Scorer.Terms()
	}
	s := &searcher{t: t, q: q, res: &res, top: topK{k: k}, scored: make(map[string]bool)}
	seen := make(map[string]bool)
	for _, term := range terms {
		if term != "" && !seen[term] {
			seen[term] = true
			s.terms = append(s.terms, term)
		}
	}
	if beam > 0 {
		s.descend(beam)
	}
	if !q.descentOnly {
		s.guarantee()
		res.Exhaustive = true
	}
	res.Hits = s.top.sorted()
	for i := range res.Hits {
		res.Hits[i].Path = t.Path(res.Hits[i].ID)
	}
	return res
}

// searcher is one Search in progress.
type searcher struct {
	t      *Tree
	q      Query
	terms  []string // descent terms, distinct
	res    *Result
	top    topK
	scored map[string]bool
}

// candidate is a sibling ranked during the descent.
type candidate struct {
	id    string
	score float64
}

// visibleGroup reports whether the caller may see group g.
func (s *searcher) visibleGroup(g string) bool {
	return s.q.VisibleGroup == nil || s.q.VisibleGroup(g)
}

// descend ranks the root, opens the best branches, ranks their children
// together, and so on down; it scores every leaf it meets whose summary
// contains a query term (one whose summary does not rarely places, and the
// guarantee finds it if it does).
func (s *searcher) descend(beam int) {
	s.res.NodesRead++ // the root
	cands := s.rootLevel()
	for len(cands) > 0 {
		var picked []candidate
		for _, c := range cands {
			switch {
			case c.score <= 0:
			case isBranchID(c.id):
				picked = append(picked, c)
			default:
				s.scoreLeaf(c.id, false)
			}
		}
		slices.SortFunc(picked, func(a, b candidate) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
		if len(picked) > beam {
			picked = picked[:beam]
		}
		var ids []string
		var bags []*bag
		for _, p := range picked {
			_, n := s.t.node(p.id)
			if n == nil {
				continue
			}
			s.res.NodesRead++
			s.res.branchesRead++
			bs, read, ok := s.t.childBags(p.id)
			if read {
				s.res.filesRead++
			}
			if !ok {
				continue // unreadable: the guarantee finds its leaves
			}
			for i, c := range n.children() {
				if !s.t.gone[c] {
					ids = append(ids, c)
					bags = append(bags, &bs[i])
				}
			}
		}
		cands = s.rankSiblings(ids, bags)
	}
}

// rootLevel ranks the root's items whose summary contains a query term,
// through the root's own small inverted index.
func (s *searcher) rootLevel() []candidate {
	ix := &s.t.rootIdx
	if ix.live == 0 {
		return nil
	}
	n := float64(ix.live)
	avg := max(ix.sumDL/n, 1) // a running sum: keep rounding away from a zero divisor
	scores := make(map[*rootEntry]float64)
	for _, term := range s.terms {
		ps := ix.post[term]
		df := 0
		for _, p := range ps {
			if p.e.inRoot {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := bm25IDF(n, float64(df))
		for _, p := range ps {
			if p.e.inRoot && s.visibleGroup(p.e.group) {
				scores[p.e] += bm25(idf, float64(p.w), float64(p.e.dl), avg)
			}
		}
	}
	out := make([]candidate, 0, len(scores))
	for e, sc := range scores {
		out = append(out, candidate{e.sum.ID, sc})
	}
	return out
}

// rankSiblings scores a level's siblings by BM25 over their summaries,
// computed over that sibling set alone.
func (s *searcher) rankSiblings(ids []string, bags []*bag) []candidate {
	if len(ids) == 0 {
		return nil
	}
	n := float64(len(ids))
	var total float64
	for _, b := range bags {
		total += float64(b.dl)
	}
	avg := max(total/n, 1)
	out := make([]candidate, len(ids))
	for i, id := range ids {
		out[i].id = id
	}
	for _, term := range s.terms {
		df := 0
		for _, b := range bags {
			if b.weight(term) > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := bm25IDF(n, float64(df))
		for i, b := range bags {
			if w := b.weight(term); w > 0 {
				out[i].score += bm25(idf, float64(w), float64(b.dl), avg)
			}
		}
	}
	return out
}

// bm25IDF is BM25's inverse document frequency of a term found in df of n
// documents.
func bm25IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// bm25 is one term's BM25 contribution to a summary of length dl.
func bm25(idf, tf, dl, avg float64) float64 {
	return idf * tf * (summaryK1 + 1) / (tf + summaryK1*(1-summaryB+summaryB*dl/avg))
}

// scoreLeaf scores a leaf once and offers it to the top k.
func (s *searcher) scoreLeaf(id string, guarantee bool) {
	if s.scored[id] {
		return
	}
	s.scored[id] = true
	if s.q.Visible != nil && !s.q.Visible(id) {
		return
	}
	s.res.LeavesScored++
	score, matched, ok := s.q.Scorer.Score(id)
	if !ok {
		return
	}
	if guarantee {
		s.res.Guaranteed++
	} else {
		s.res.Descended++
	}
	if matched != 0 {
		s.top.offer(Hit{ID: id, Score: score, Matched: matched, ViaGuarantee: guarantee})
	}
}

// guarantee scores every unscored leaf that could still enter the top k
// (MaxScore, term at a time): see Search. s.scored holds the leaves scored
// and, with ScoredPostings, those ruled out.
func (s *searcher) guarantee() {
	sc := s.q.Scorer
	n := len(sc.Terms())
	ub := make([]float64, n)
	order := make([]int, n)
	for i := range n {
		ub[i] = sc.UpperBound(i)
		if !(ub[i] >= 0) { // NaN or negative: trust nothing
			ub[i] = math.Inf(1)
		}
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(ub[b], ub[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	// rest[p] bounds any leaf whose query terms are all among order[p:].
	rest := make([]float64, n+1)
	for p := n - 1; p >= 0; p-- {
		rest[p] = rest[p+1] + ub[order[p]]
	}
	scoredPostings, _ := sc.(ScoredPostings)
	for p, i := range order {
		if s.cannotPlace(rest[p]) {
			return
		}
		s.res.NodesRead++
		bound, others, last := rest[p], rest[p+1], p == n-1
		if scoredPostings == nil {
			sc.Postings(i, func(id string) {
				if s.scored[id] || s.cannotPlace(bound) {
					return
				}
				s.scoreLeaf(id, true)
			})
			continue
		}
		scoredPostings.PostingsScored(i, func(id string, c float64) {
			if s.scored[id] || s.cannotPlace(bound) {
				return
			}
			// The leaf holds no term walked before (it would have been
			// scored or ruled out there), so it scores at most c plus
			// the bounds of the terms after this one. θ only rises: a
			// leaf ruled out now stays out, and is marked so the walks
			// of those later terms, where this term's share is no longer
			// counted, do not reconsider it.
			if s.cannotPlace(c + others) {
				if !last {
					s.scored[id] = true
				}
				return
			}
			s.scoreLeaf(id, true)
		})
	}
}

// cannotPlace reports whether a leaf scoring at most bound is sure to stay
// out of the top k. A leaf scoring exactly θ could still place (by id), so
// the test is strict, with a little slack for the rounding of the bounds'
// sum.
func (s *searcher) cannotPlace(bound float64) bool {
	if len(s.top.h) < s.top.k {
		return false
	}
	theta := s.top.h[0].Score
	return bound+1e-9*max(1, math.Abs(theta)) < theta
}

// topK keeps the best k hits; h is a min-heap with the worst hit first.
type topK struct {
	k int
	h []Hit
}

// better is the result order: score descending, then id ascending.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// offer keeps h if it is among the best k so far.
func (t *topK) offer(h Hit) {
	if len(t.h) < t.k {
		t.h = append(t.h, h)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(t.h[p], t.h[i]) {
				break
			}
			t.h[p], t.h[i] = t.h[i], t.h[p]
			i = p
		}
		return
	}
	if !better(h, t.h[0]) {
		return
	}
	t.h[0] = h
	for i := 0; ; {
		l, r, w := 2*i+1, 2*i+2, i
		if l < len(t.h) && better(t.h[w], t.h[l]) {
			w = l
		}
		if r < len(t.h) && better(t.h[w], t.h[r]) {
			w = r
		}
		if w == i {
			break
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// sorted returns the hits kept, best first.
func (t *topK) sorted() []Hit {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out
}

// bag is a summary's weighted terms and its weighted length. The distinct
// terms are sorted and packed into one string (term i ends at ends[i]),
// which spares a string header and an allocation a term: bags are what the
// search cache holds, and its bound is in bytes.
type bag struct {
	terms string
	ends  []uint32
	w     []float32
	dl    float32
}

// len returns the number of distinct terms.
func (b *bag) len() int { return len(b.ends) }

// term returns term i.
func (b *bag) term(i int) string {
	start := uint32(0)
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.terms[start:b.ends[i]]
}

// weight returns term's weight in the summary, 0 when absent.
func (b *bag) weight(term string) float32 {
	lo, hi := 0, len(b.ends)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b.term(m) < term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(b.ends) && b.term(lo) == term {
		return b.w[lo]
	}
	return 0
}

// summaryBag tokenizes a summary's fields with their weights. Keywords are
// terms already and count as they are.
func summaryBag(s ChildSummary) bag {
	m := make(map[string]float32)
	var dl float32
	add := func(w float32) func(string) {
		return func(t string) {
			m[t] += w
			dl += w
		}
	}
	tokenize.Each(s.Title, add(weightTitle))
	for _, k := range s.Keywords {
		add(weightKeyword)(strings.ToLower(k))
	}
	for _, tag := range s.Tags {
		tokenize.Each(tag, add(weightTag))
	}
	tokenize.Each(s.Excerpt, add(weightExcerpt))
	terms := make([]string, 0, len(m))
	size := 0
	for t := range m {
		terms = append(terms, t)
		size += len(t)
	}
	slices.Sort(terms)
	var packed strings.Builder
	packed.Grow(size)
	b := bag{ends: make([]uint32, len(terms)), w: make([]float32, len(terms)), dl: dl}
	for i, t := range terms {
		packed.WriteString(t)
		b.ends[i] = uint32(packed.Len())
		b.w[i] = m[t]
	}
	b.terms = packed.String()
	return b
}

// childBags returns the bags of branch id's children, from the cache or
// else from its file (read); ok is false when the file cannot be read.
func (t *Tree) childBags(id string) (bags []bag, read, ok bool) {
	if bs, ok := t.bag.get(id); ok {
		return bs, false, true
	}
	b, err := t.readBranch(id)
	if err != nil {
		return nil, true, false
	}
	bs := make([]bag, len(b.Children))
	for i, c := range b.Children {
		bs[i] = summaryBag(c)
	}
	t.bag.put(id, bs)
	return bs, true, true
}

// rootIndex is a small inverted index over the root's summaries, so the
// first level of a descent costs what its matches cost, not the root's
// size. Entries leaving the root stay in the postings, skipped, until
// they outnumber the live ones.
type rootIndex struct {
	post  map[string][]rootPost
	live  int
	dead  int
	sumDL float64
}

// rootPost is one root entry holding a term, with the term's weight.
type rootPost struct {
	e *rootEntry
	w float32
}

// add indexes a new root entry.
func (ix *rootIndex) add(e *rootEntry) {
	b := summaryBag(e.sum)
	e.dl = b.dl
	e.indexed = true
	for i := range b.len() {
		t := b.term(i)
		ix.post[t] = append(ix.post[t], rootPost{e, b.w[i]})
	}
	ix.live++
	ix.sumDL += float64(e.dl)
}

// remove forgets an entry that left the root (its inRoot is already
// false), compacting the postings once dead entries outnumber live ones.
func (ix *rootIndex) remove(e *rootEntry) {
	ix.live--
	ix.dead++
	ix.sumDL -= float64(e.dl)
	if ix.live == 0 {
		ix.sumDL = 0
	}
	if ix.dead <= ix.live+64 {
		return
	}
	for t, ps := range ix.post {
		ps = slices.DeleteFunc(ps, func(p rootPost) bool { return !p.e.inRoot })
		if len(ps) == 0 {
			delete(ix.post, t)
		} else {
			ix.post[t] = ps
		}
	}
	ix.dead = 0
}

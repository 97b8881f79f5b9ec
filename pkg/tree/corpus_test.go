package tree

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// A synthetic memory: a vocabulary of made-up words with Zipf-like
// frequencies, shared general words plus words of each domain, leaves
// arriving in runs ("files") that share a topic, across groups made of a
// domain and a scope.

var (
	domains = []string{"software.go", "software.java", "personal", "process.cooking",
		"medicine.clinical", "software.rust", "travel", "finance"}
	scopes = []string{"global", "global", "project:github.com/x/a", "project:github.com/x/b"}
)

const (
	generalWords = 3000
	domainWords  = 300
)

// corpusGen yields an endless, deterministic stream of leaves.
type corpusGen struct {
	r        *rand.Rand
	words    []string
	general  *zipf
	domain   *zipf
	n        int
	run      int // leaves left in the current file
	group    string
	dom      int
	topic    []string
	tagTopic string
	// words per leaf: minWords + up to spanWords-1 more (default 15, 30)
	minWords, spanWords int
}

func newCorpusGen(seed uint64) *corpusGen {
	r := rand.New(rand.NewPCG(seed, 7))
	g := &corpusGen{r: r}
	g.words = makeVocab(r, generalWords+len(domains)*domainWords)
	g.general = newZipf(generalWords, 1.05)
	g.domain = newZipf(domainWords, 0.9)
	return g
}

// makeVocab returns n distinct pronounceable words.
func makeVocab(r *rand.Rand, n int) []string {
	const cons, vows = "bdfgklmnprstvz", "aeiou"
	seen := make(map[string]bool)
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteByte(cons[r.IntN(len(cons))])
			b.WriteByte(vows[r.IntN(len(vows))])
		}
		if r.IntN(3) == 0 {
			b.WriteByte(cons[r.IntN(len(cons))])
		}
		w := b.String()
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// zipf samples ranks 0..n-1 with probability ∝ 1/(rank+1)^s.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) *zipf {
	z := &zipf{cdf: make([]float64, n)}
	var sum float64
	for i := range n {
		sum += 1 / math.Pow(float64(i+1), s)
		z.cdf[i] = sum
	}
	for i := range z.cdf {
		z.cdf[i] /= sum
	}
	return z
}

func (z *zipf) draw(r *rand.Rand) int {
	return min(sort.SearchFloat64s(z.cdf, r.Float64()), len(z.cdf)-1)
}

// testID is the i-th leaf id: 16 hex digits, well spread.
func testID(i int) string {
	return fmt.Sprintf("%016x", uint64(i+1)*0x9e3779b97f4a7c15)
}

func (g *corpusGen) word(d int) string {
	switch x := g.r.Float64(); {
	case x < 0.45:
		return g.words[g.general.draw(g.r)]
	case x < 0.8:
		return g.words[generalWords+d*domainWords+g.domain.draw(g.r)]
	default:
		return g.topic[g.r.IntN(len(g.topic))]
	}
}

// next returns the next leaf.
func (g *corpusGen) next() Item {
	if g.run == 0 {
		g.run = 1 + g.r.IntN(10)
		g.dom = g.r.IntN(len(domains))
		g.group = scopes[g.r.IntN(len(scopes))] + "|" + domains[g.dom]
		g.topic = nil
		for range 4 {
			g.topic = append(g.topic, g.words[generalWords+g.dom*domainWords+g.r.IntN(domainWords)])
		}
		g.topic = append(g.topic, g.words[200+g.r.IntN(generalWords-200)])
		g.tagTopic = g.topic[0]
	}
	g.run--
	var b strings.Builder
	lo, span := g.minWords, g.spanWords
	if lo == 0 {
		lo, span = 15, 30
	}
	nw := lo + g.r.IntN(span)
	for i := 0; i < nw; i++ {
		w := g.word(g.dom)
		if i > 0 {
			if i%(7+i%5) == 0 {
				b.WriteString(". ")
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				b.WriteByte(' ')
			}
		} else {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	it := Item{ID: testID(g.n), Group: g.group, Text: b.String(), Tags: []string{domains[g.dom]}}
	if g.r.IntN(3) == 0 {
		it.Tags = append(it.Tags, g.tagTopic)
	}
	g.n++
	return it
}

func genCorpus(n int, seed uint64) []Item {
	g := newCorpusGen(seed)
	out := make([]Item, n)
	for i := range out {
		out[i] = g.next()
	}
	return out
}

// query returns 1–6 query terms: mostly words of a random leaf (so that
// something matches), sometimes random vocabulary, sometimes a word found
// nowhere.
func (g *corpusGen) query(items []Item) []string {
	var words []string
	n := 1 + g.r.IntN(6)
	switch x := g.r.IntN(20); {
	case x < 13:
		ws := strings.Fields(strings.ReplaceAll(items[g.r.IntN(len(items))].Text, ".", ""))
		for range n {
			words = append(words, ws[g.r.IntN(len(ws))])
		}
	case x < 18:
		for range n {
			if g.r.IntN(2) == 0 {
				words = append(words, g.words[g.general.draw(g.r)])
			} else {
				words = append(words, g.words[g.r.IntN(len(g.words))])
			}
		}
	default:
		for range n - 1 {
			words = append(words, g.words[g.r.IntN(len(g.words))])
		}
		words = append(words, "qqxzzy")
	}
	return tokenize.Terms(strings.Join(words, " "))
}

// refIndex is the reference: plain exhaustive BM25 (k1 = 1.2, b = 0.4) over
// every leaf's text, written independently of the tree.
type refIndex struct {
	ids   []string
	byID  map[string]int
	group []string
	tf    []map[string]int32
	dl    []float64
	post  map[string][]refPosting
	avgdl float64
	dead  []bool
	maxc  map[string]float64 // the highest contribution of each term: the tight bound
	idfs  map[string]float64
	acc   []refScored // scratch for exhaustive
}

// refPosting is one document holding a term, and how often.
type refPosting struct {
	d, tf int32
}

// refScored is a document's score and matched terms.
type refScored struct {
	d int32
	s float64
	m uint64
}

const refK1, refB = 1.2, 0.4

func newRefIndex(items []Item) *refIndex {
	ix := &refIndex{byID: make(map[string]int), post: make(map[string][]refPosting), maxc: make(map[string]float64)}
	var total float64
	for i, it := range items {
		tf := make(map[string]int32)
		n := 0
		tokenize.Each(it.Text, func(t string) {
			tf[t]++
			n++
		})
		ix.ids = append(ix.ids, it.ID)
		ix.byID[it.ID] = i
		ix.group = append(ix.group, it.Group)
		ix.tf = append(ix.tf, tf)
		ix.dl = append(ix.dl, float64(n))
		ix.dead = append(ix.dead, false)
		total += float64(n)
		for t, n := range tf {
			ix.post[t] = append(ix.post[t], refPosting{int32(i), n})
		}
	}
	ix.avgdl = total / float64(len(items))
	ix.idfs = make(map[string]float64, len(ix.post))
	for t, ps := range ix.post {
		n, df := float64(len(ix.ids)), float64(len(ps))
		ix.idfs[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	for t, ps := range ix.post {
		for _, p := range ps {
			ix.maxc[t] = max(ix.maxc[t], ix.contrib(ix.idfs[t], p.tf, p.d))
		}
	}
	return ix
}

func (ix *refIndex) idf(t string) float64 { return ix.idfs[t] }

func (ix *refIndex) contrib(idf float64, tf int32, d int32) float64 {
	f := float64(tf)
	return idf * f * (refK1 + 1) / (f + refK1*(1-refB+refB*ix.dl[d]/ix.avgdl))
}

// score is the exact BM25 of document d, summed in query-term order.
func (ix *refIndex) score(terms []string, d int32) (float64, uint64) {
	var s float64
	var m uint64
	for i, t := range terms {
		if tf := ix.tf[d][t]; tf > 0 {
			s += ix.contrib(ix.idfs[t], tf, d)
			m |= 1 << i
		}
	}
	return s, m
}

// exhaustive is the reference top k: every visible document holding a
// query term, scored, sorted by score descending then id.
func (ix *refIndex) exhaustive(terms []string, vis func(int32) bool, k int) (hits []Hit, touched, union int) {
	type scored = refScored
	// Term at a time, in query-term order, so each sum is added up in the
	// same order as score's and comes out bit-identical.
	if ix.acc == nil {
		ix.acc = make([]scored, len(ix.ids))
	}
	var docs []int32
	for i, t := range terms {
		idf := ix.idfs[t]
		for _, p := range ix.post[t] {
			d := p.d
			if ix.dead[d] || !vis(d) {
				continue
			}
			touched++
			a := &ix.acc[d]
			if a.m == 0 {
				docs = append(docs, d)
				a.d = d
			}
			a.s += ix.contrib(idf, p.tf, d)
			a.m |= 1 << i
		}
	}
	all := make([]scored, len(docs))
	for i, d := range docs {
		all[i] = ix.acc[d]
		ix.acc[d] = scored{}
	}
	// Selection of the k best by score descending, then id.
	before := func(a, b scored) bool {
		if a.s != b.s {
			return a.s > b.s
		}
		return ix.ids[a.d] < ix.ids[b.d]
	}
	var best []scored
	for _, x := range all {
		if len(best) == k && !before(x, best[k-1]) {
			continue
		}
		i := len(best)
		if i < k {
			best = append(best, x)
		} else {
			i = k - 1
		}
		for ; i > 0 && before(x, best[i-1]); i-- {
			best[i] = best[i-1]
		}
		best[i] = x
	}
	for _, x := range best {
		hits = append(hits, Hit{ID: ix.ids[x.d], Score: x.s, Matched: x.m})
	}
	return hits, touched, len(docs)
}

// refScorer is a Scorer over the reference index.
type refScorer struct {
	ix    *refIndex
	terms []string
	vis   func(int32) bool
	loose bool // idf × (k1+1) instead of each term's highest contribution
}

func (s *refScorer) Terms() []string { return s.terms }

func (s *refScorer) UpperBound(i int) float64 {
	if s.loose {
		return s.ix.idf(s.terms[i]) * (refK1 + 1)
	}
	return s.ix.maxc[s.terms[i]]
}

func (s *refScorer) Postings(i int, fn func(string)) {
	for _, p := range s.ix.post[s.terms[i]] {
		if !s.ix.dead[p.d] && s.vis(p.d) {
			fn(s.ix.ids[p.d])
		}
	}
}

// refScorerC is a refScorer whose posting lists carry each leaf's
// contribution (ScoredPostings).
type refScorerC struct{ *refScorer }

func (s refScorerC) PostingsScored(i int, fn func(string, float64)) {
	t := s.terms[i]
	idf := s.ix.idfs[t]
	for _, p := range s.ix.post[t] {
		if !s.ix.dead[p.d] && s.vis(p.d) {
			fn(s.ix.ids[p.d], s.ix.contrib(idf, p.tf, p.d))
		}
	}
}

func (s *refScorer) Score(id string) (float64, uint64, bool) {
	d, ok := s.ix.byID[id]
	if !ok || s.ix.dead[d] || !s.vis(int32(d)) {
		return 0, 0, false
	}
	sc, m := s.ix.score(s.terms, int32(d))
	return sc, m, true
}

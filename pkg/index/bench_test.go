package index

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// benchDocs are memory-like texts: a few hundred bytes each, drawn from a
// vocabulary with a long tail (a Zipf law), plus a reference number unique
// to each, as real memories carry ticket numbers, versions and hosts. Most
// terms are then rare, which is what makes a posting list's fixed costs
// matter, and a few are in almost every document.
func benchDocs(n int) []string {
	r := rand.New(rand.NewPCG(3, 5))
	vocab := make([]string, 20000)
	for i := range vocab {
		var b strings.Builder
		for range 3 + r.IntN(7) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		vocab[i] = b.String()
	}
	z := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		for b.Len() < 200+r.IntN(300) {
			b.WriteString(vocab[z.Uint64()])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "ticket ENG-%d.", 10000+i)
		docs[i] = b.String()
	}
	return docs
}

var benchIndex = sync.OnceValues(func() (*Index, []string) {
	docs := benchDocs(50000)
	return linkedIndex(docs, 6), docs
})

// linkedIndex indexes docs and links them as the store does: each memory
// to the two saved before it in its conversation. Conversations interleave
// (here 300 of them, in four groups), so neighbours are some hundreds of
// documents apart, as in the store benchmark's.
func linkedIndex(docs []string, seed uint64) *Index {
	ix := New()
	r := rand.New(rand.NewPCG(seed, seed))
	last := map[int][]Doc{}
	for _, t := range docs {
		conv := r.IntN(300)
		d := ix.Add(t, Group(conv%4))
		prev := last[conv]
		for k, p := range prev {
			w := NeighbourWeight(k + 1)
			ix.Link(d, p, w, w)
		}
		last[conv] = append([]Doc{d}, prev[:min(len(prev), 1)]...)
	}
	return ix
}

// benchQueries are two or three words of stored documents, so they match.
func benchQueries(docs []string, n int) [][]string {
	r := rand.New(rand.NewPCG(9, 9))
	qs := make([][]string, n)
	for i := range qs {
		words := strings.Fields(docs[r.IntN(len(docs))])
		var q []string
		for range 2 + r.IntN(2) {
			q = append(q, words[r.IntN(len(words)-2)])
		}
		qs[i] = tokenize.Terms(strings.Join(q, " "))
	}
	return qs
}

// BenchmarkBuild is what indexing memory after memory costs, at open and on a save;
// it also reports the heap the index holds per posting.
func BenchmarkBuild(b *testing.B) {
	docs := benchDocs(20000)
	var postings int
	for _, t := range docs {
		postings += len(tokenize.Terms(t)) // informative terms: a lower bound
	}
	b.ResetTimer()
	var before, after runtime.MemStats
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		ix := New()
		for _, t := range docs {
			ix.Add(t, 0)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(docs)), "heapB/doc")
		runtime.KeepAlive(ix)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/doc")
}

// BenchmarkSearch is an exhaustive search over 50,000 linked documents.
func BenchmarkSearch(b *testing.B) {
	ix, docs := benchIndex()
	qs := benchQueries(docs, 256)
	vis := func(g Group) bool { return g < 2 }
	i := 0
	for b.Loop() {
		ix.Search(Query{Terms: qs[i%len(qs)], Visible: vis, Limit: 10})
		i++
	}
}

// BenchmarkScore is what the tree's descent pays per leaf it reaches.
func BenchmarkScore(b *testing.B) {
	ix, docs := benchIndex()
	qs := benchQueries(docs, 256)
	vis := func(g Group) bool { return g < 2 }
	scorers := make([]*Scorer, len(qs))
	for i, q := range qs {
		scorers[i] = ix.Scorer(q, vis)
	}
	r := rand.New(rand.NewPCG(1, 2))
	i := 0
	for b.Loop() {
		scorers[i%len(scorers)].Score(Doc(r.IntN(len(docs))))
		i++
	}
}

// BenchmarkPostings is the guarantee pass's walk of one term's list.
func BenchmarkPostings(b *testing.B) {
	ix, docs := benchIndex()
	qs := benchQueries(docs, 256)
	vis := func(g Group) bool { return g < 2 }
	i, n := 0, 0
	for b.Loop() {
		s := ix.Scorer(qs[i%len(qs)], vis)
		s.Postings(0, func(Doc, float64) { n++ })
		i++
	}
}

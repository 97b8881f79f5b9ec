package tree

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkConsolidate measures what a save costs the tree when the caller
// consolidates after every save, as the daemon does in the background: one
// Add and one Consolidate per op, on a tree of 1k, 10k and 100k leaves.
// "log" is the real catalog (appended, folded in once it outgrows the
// snapshot); "rewrite" rewrites catalog.json on every change, to show what
// the log saves. Most ops write root.json; one in about eight also writes a
// branch and a catalog line; every write is fsynced.
func BenchmarkConsolidate(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, mode := range []string{"log", "rewrite"} {
			b.Run(fmt.Sprintf("leaves=%dk/%s", n/1000, mode), func(b *testing.B) {
				g := newCorpusGen(5)
				items := make([]Item, n)
				for i := range items {
					items[i] = g.next()
				}
				tr := mustOpen(b, b.TempDir())
				start := time.Now()
				if err := tr.Rebuild(items); err != nil {
					b.Fatal(err)
				}
				items = nil
				b.Logf("rebuild of %d leaves: %v, %+v", n, time.Since(start), tr.Stats())
				tr.rewriteCatalog = mode == "rewrite"
				cpu, ops := cpuTime(), 0
				for b.Loop() {
					if err := tr.Add(g.next()); err != nil {
						b.Fatal(err)
					}
					if _, err := tr.Consolidate(false); err != nil {
						b.Fatal(err)
					}
					ops++
				}
				b.ReportMetric(float64(cpuTime()-cpu)/float64(ops), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkOpen100k measures loading a 100k-leaf tree (cold start).
func BenchmarkOpen100k(b *testing.B) {
	items := genCorpus(100_000, 6)
	dir := b.TempDir()
	tr := mustOpen(b, dir)
	if err := tr.Rebuild(items); err != nil {
		b.Fatal(err)
	}
	items, tr = nil, nil
	for b.Loop() {
		if _, err := Open(dir, testOpts()); err != nil {
			b.Fatal(err)
		}
	}
	// What the loaded tree holds in memory.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep, _ := Open(dir, testOpts())
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "heap-MB")
	runtime.KeepAlive(keep)
}

// BenchmarkSearch100k searches a 100k-leaf tree with the reference scorer
// and reports, per query, nodes read and leaves scored against the
// postings an exhaustive search touches.
func BenchmarkSearch100k(b *testing.B) {
	w := newWorld(b, 100_000, 11)
	var queries [][]string
	for len(queries) < 1000 {
		if q := w.gen.query(w.items); len(q) > 0 {
			queries = append(queries, q)
		}
	}
	for _, c := range []struct {
		name                     string
		loose, noDescent, scored bool
	}{
		{"tight", false, false, false},
		{"loose", true, false, false},
		{"tight-no-descent", false, true, false},
		{"tight-scored-postings", false, false, true},
		{"loose-scored-postings", true, false, true},
		{"tight-scored-postings-no-descent", false, true, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var nodes, leaves, touched, n int
			var took []time.Duration
			cpu := cpuTime()
			for b.Loop() {
				terms := queries[n%len(queries)]
				q, sc := w.query(terms, views[n%len(views)], 10, c.loose)
				if c.noDescent {
					q.Beam = -1
				}
				if c.scored {
					q.Scorer = refScorerC{sc}
				}
				start := time.Now()
				res := w.tr.Search(q)
				took = append(took, time.Since(start))
				nodes += res.NodesRead
				leaves += res.LeavesScored
				n++
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(n), "cpu-ns/op")
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
			for i := range min(n, len(queries)) {
				v := views[i%len(views)]
				_, t, _ := w.ix.exhaustive(queries[i], func(d int32) bool { return v.group(w.ix.group[d]) }, 10)
				touched += t
			}
			b.ReportMetric(float64(nodes)/float64(n), "nodes/op")
			b.ReportMetric(float64(leaves)/float64(n), "leaves/op")
			b.ReportMetric(float64(touched)/float64(min(n, len(queries))), "exhaustive-postings/op")
		})
	}
}

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

// BenchmarkOpen100k measures what a 100k-leaf tree costs the daemon's
// start: the tree is grown by Add and Consolidate from leaves of about 500
// bytes, then opened cold (open-ms, the median of the runs), and the
// store's catch-up after Open, Reconcile with every live leaf
// (reconcile-ms), is timed too. heap-MB is the live heap the opened tree
// holds (after a GC, against the heap before Open); heap-rec-MB the same
// after Reconcile.
func BenchmarkOpen100k(b *testing.B) {
	g := newCorpusGen(6)
	g.minWords, g.spanWords = 55, 40 // about 500 bytes a leaf
	items := make([]Item, 100_000)
	var textBytes int
	for i := range items {
		items[i] = g.next()
		textBytes += len(items[i].Text)
	}
	dir := b.TempDir()
	tr := mustOpen(b, dir)
	start := time.Now()
	addAll(b, tr, items)
	if _, err := tr.Consolidate(false); err != nil {
		b.Fatal(err)
	}
	b.Logf("grew %d leaves (%d bytes of text each on average) in %v: %+v",
		len(items), textBytes/len(items), time.Since(start), tr.Stats())
	tr = nil
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := Open(dir, testOpts()); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "open-ms")

	// What the opened tree holds in memory, and what Reconcile costs it.
	var before, opened, reconciled runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep, err := Open(dir, testOpts())
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&opened)
	var rec []time.Duration
	for range 3 {
		start := time.Now()
		if added, removed, err := keep.Reconcile(items); err != nil || added+removed != 0 {
			b.Fatalf("reconcile: +%d -%d %v", added, removed, err)
		}
		rec = append(rec, time.Since(start))
	}
	runtime.GC()
	runtime.ReadMemStats(&reconciled)
	slices.Sort(rec)
	b.ReportMetric(float64(rec[1].Microseconds())/1000, "reconcile-ms")
	b.ReportMetric(float64(int64(opened.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "heap-MB")
	b.ReportMetric(float64(int64(reconciled.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "heap-rec-MB")
	runtime.KeepAlive(keep)
	runtime.KeepAlive(items)
}

// BenchmarkSearch100k searches a 100k-leaf tree with the reference scorer
// and reports, per query, nodes read, leaves scored and branch files read
// (the branches the descent opened that were not cached) against the
// postings an exhaustive search touches.
func BenchmarkSearch100k(b *testing.B) {
	w := newWorld(b, 100_000, 11)
	queries := w.queries(1000)
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
			var nodes, leaves, files, touched, n int
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
				files += res.filesRead
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
			b.ReportMetric(float64(files)/float64(n), "files/op")
			b.ReportMetric(float64(touched)/float64(min(n, len(queries))), "exhaustive-postings/op")
		})
	}
}

package store_test

// Benchmarks of the engine alone, without gRPC: the same figures as
// scripts/bench measures through the daemon, minus the wire. They stay quick
// under `go test -bench . -benchtime 1x` (a CI smoke run).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

var (
	benchPeople = strings.Fields("Ana Luis Marta Javier Priya Chen Olga Tomas Ingrid Kofi Amara Yuki Diego Sofia Lars Mei Rafael Nadia Omar Elena")
	benchTechs  = strings.Fields("PostgreSQL SQLite Redis Kafka NATS gRPC Docker Kubernetes Terraform Nix Bazel Go Rust Python TypeScript React Vite pytest Prometheus Grafana ClickHouse DuckDB Caddy nginx Envoy Vault etcd MinIO Tokio Axum FastAPI Django Rails Elixir Kotlin Zig Gradle Poetry pnpm ruff")
	benchParts  = strings.Fields("billing auth search payments inventory shipping reporting analytics ingest export sync audit admin edge batch realtime")
	benchNouns  = strings.Fields("service gateway worker scheduler indexer pipeline dashboard frontend api cache queue cluster database migration webhook proxy")
	benchWhy    = strings.Fields("latency cost simplicity reliability throughput tooling observability security portability")
)

// benchText returns memory i of a deterministic, unique set of 200–500
// byte memories with varied vocabulary.
func benchText(i int) string {
	r := rand.New(rand.NewPCG(7, uint64(i)))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	var b strings.Builder
	for b.Len() < 200+r.IntN(250) {
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "We chose %s over %s for the %s %s because of %s. ", pick(benchTechs), pick(benchTechs), pick(benchParts), pick(benchNouns), pick(benchWhy))
		case 1:
			fmt.Fprintf(&b, "%s owns the %s %s and reviews changes to %s/%s.go. ", pick(benchPeople), pick(benchParts), pick(benchNouns), pick(benchParts), pick(benchNouns))
		case 2:
			fmt.Fprintf(&b, "Staging runs %s %d.%d on port %d behind %s. ", pick(benchTechs), 1+r.IntN(20), r.IntN(30), 1024+r.IntN(60000), pick(benchTechs))
		default:
			fmt.Fprintf(&b, "%s prefers %s for the %s %s. ", pick(benchPeople), pick(benchTechs), pick(benchParts), pick(benchNouns))
		}
	}
	fmt.Fprintf(&b, "See PR #%d.", 1000+i)
	return b.String()
}

func benchCaller(i int) store.Caller {
	return store.Caller{Agent: leaf.Agent{Name: "bench", Version: "1"}, Session: "b", Project: fmt.Sprintf("github.com/acme/svc-%d", i%5)}
}

func openBench(b *testing.B) *store.Store {
	b.Helper()
	s, err := store.Open(b.TempDir(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// fanOut runs fn for i in [0, n) on exactly g goroutines. testing.B's
// RunParallel would start SetParallelism(p)×GOMAXPROCS goroutines, which
// cannot be exactly 1 on a multi-core machine; this is the same work
// distribution (a shared counter) with an exact count.
func fanOut(g, n int, fn func(i int) time.Duration) []time.Duration {
	var next atomic.Int64
	lat := make([][]time.Duration, g)
	var wg sync.WaitGroup
	for k := range g {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				lat[k] = append(lat[k], fn(i))
			}
		})
	}
	wg.Wait()
	return slices.Concat(lat...)
}

func reportLatency(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[(len(ds)-1)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[(len(ds)*99+99)/100-1].Microseconds()), "p99-µs")
}

// BenchmarkSaveParallel: durable saves (log append + fsync, group commit)
// with 1, 4 and 16 concurrent callers on a fresh store.
func BenchmarkSaveParallel(b *testing.B) {
	for _, g := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			s := openBench(b)
			defer s.Close()
			texts := make([]string, b.N)
			for i := range texts {
				texts[i] = benchText(i)
			}
			ctx := context.Background()
			var failed atomic.Int64
			b.ResetTimer()
			start := time.Now()
			lat := fanOut(g, b.N, func(i int) time.Duration {
				t := time.Now()
				if _, err := s.Save(ctx, store.SaveInput{Caller: benchCaller(i), Content: texts[i]}); err != nil {
					failed.Add(1)
				}
				return time.Since(t)
			})
			elapsed := time.Since(start)
			b.StopTimer()
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d saves failed", n)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "saves/s")
			reportLatency(b, lat)
		})
	}
}

// loadStore saves n memories through many concurrent callers, so group
// commit makes the load fast.
func loadStore(b *testing.B, s *store.Store, n int) {
	b.Helper()
	var failed atomic.Int64
	fanOut(64, n, func(i int) time.Duration {
		if _, err := s.Save(context.Background(), store.SaveInput{Caller: benchCaller(i), Content: benchText(i)}); err != nil {
			failed.Add(1)
		}
		return 0
	})
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d saves failed while loading", n)
	}
	// The steady state: leaf files written, the summary tree caught up.
	s.Flush()
}

// BenchmarkSearch10k: one search at a time against 10,000 memories, from a
// caller in one of five projects (default scope: global + that project),
// queries made of words of stored memories.
func BenchmarkSearch10k(b *testing.B) {
	const n = 10_000
	s := openBench(b)
	b.Cleanup(func() { s.Close() })
	t := time.Now()
	loadStore(b, s, n)
	b.Logf("loaded %d memories in %v (%.0f saves/s)", n, time.Since(t).Round(time.Millisecond), n/time.Since(t).Seconds())

	r := rand.New(rand.NewPCG(11, 0))
	queries := make([]string, 512)
	for i := range queries {
		words := strings.Fields(strings.NewReplacer(".", " ", ",", " ", "/", " ").Replace(benchText(r.IntN(n))))
		var q []string
		for range 2 + r.IntN(4) {
			q = append(q, words[r.IntN(len(words))])
		}
		queries[i] = strings.Join(q, " ")
	}
	caller := benchCaller(0)
	for _, scope := range []struct {
		name    string
		scope   store.SearchScope
		descend bool
	}{
		{"scope=default", store.ScopeDefault, false}, {"scope=all", store.ScopeAll, false},
		// The same searches through the tree's descent and guarantee:
		// the same answers, at a cost this measures.
		{"scope=default/descend", store.ScopeDefault, true}, {"scope=all/descend", store.ScopeAll, true},
	} {
		b.Run(scope.name, func(b *testing.B) {
			search := s.Search // what the daemon runs
			if scope.descend {
				search = func(in store.SearchInput) (store.SearchResult, error) {
					return s.Evaluate(in, store.EvalOptions{Descend: true})
				}
			}
			var lat []time.Duration
			var scored, viaTree int
			b.ResetTimer()
			for i := range b.N {
				t := time.Now()
				res, err := search(store.SearchInput{Caller: caller, Query: queries[i%len(queries)], Scope: scope.scope})
				lat = append(lat, time.Since(t))
				if err != nil {
					b.Fatalf("search %q: %v", queries[i%len(queries)], err)
				}
				scored += res.Coverage.LeavesScored
				if res.Coverage.ViaTree {
					viaTree++
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(scored)/float64(b.N), "scored/op")
			b.ReportMetric(float64(viaTree)/float64(b.N), "via-tree/op")
			reportLatency(b, lat)
		})
	}
}

// BenchmarkSaveAtSize: one save at a time into a store already holding n
// memories — the design promises a save costs the same whatever n is.
func BenchmarkSaveAtSize(b *testing.B) {
	for _, n := range []int{1_000, 20_000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			s := openBench(b)
			defer s.Close()
			loadStore(b, s, n)
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				t := time.Now()
				if _, err := s.Save(ctx, store.SaveInput{Caller: benchCaller(i), Content: benchText(n + i)}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			b.StopTimer()
			reportLatency(b, lat)
		})
	}
}

//go:build unix

package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/corpus"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// BenchmarkSearchBenchStore searches a store of the bench's own memories
// (pkg/corpus) with the bench's queries, at the size in
// IHMT_PROFILE_N (default 10,000). IHMT_PROFILE_DIR keeps the store between
// runs, so a 100k store is loaded once and profiled many times.
func BenchmarkSearchBenchStore(b *testing.B) {
	const seed = 20260101
	n := 10_000
	if v := os.Getenv("IHMT_PROFILE_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	dir := os.Getenv("IHMT_PROFILE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	t := time.Now()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	have := s.Stats(benchCaller(0)).Memories
	b.Logf("opened %d leaves in %v", have, time.Since(t).Round(time.Millisecond))
	if have < n {
		loadGen(b, s, seed, have, n)
	}
	caller := benchCaller(0)
	caller.Agent.Name, caller.Project = "ihmt-bench", corpus.ProjectName(0)
	for _, sc := range []struct {
		name  string
		scope store.SearchScope
	}{{"scope=default", store.ScopeDefault}, {"scope=all", store.ScopeAll}} {
		b.Run(sc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(seed, uint64(n)))
			for range 20 {
				s.Search(store.SearchInput{Caller: caller, Query: corpus.Query(r, seed, n), Scope: sc.scope})
			}
			lat := make([]time.Duration, 0, b.N)
			var scored int
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				q := corpus.Query(r, seed, n)
				t := time.Now()
				res, err := s.Search(store.SearchInput{Caller: caller, Query: q, Scope: sc.scope})
				lat = append(lat, time.Since(t))
				if err != nil {
					b.Fatalf("search %q: %v", q, err)
				}
				scored += res.Coverage.LeavesScored
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(scored)/float64(b.N), "scored/op")
			reportLatency(b, lat)
		})
	}
}

func loadGen(b *testing.B, s *store.Store, seed uint64, from, to int) {
	b.Helper()
	t := time.Now()
	var failed atomic.Int64
	fanOut(64, to-from, func(k int) time.Duration {
		i := from + k
		in := store.SaveInput{Caller: benchCaller(0), Content: corpus.Memory(seed, i)}
		in.Caller.Agent.Name = "ihmt-bench"
		if p, global := corpus.ProjectOf(i); global {
			// Said from inside a project, but about the user (as the bench does).
			in.Caller.Project, in.Scope = corpus.ProjectName(i%corpus.Projects), store.ScopeGlobal
		} else {
			in.Caller.Project = p
		}
		if _, err := s.Save(context.Background(), in); err != nil {
			failed.Add(1)
		}
		return 0
	})
	if k := failed.Load(); k > 0 {
		b.Fatalf("%d saves failed while loading", k)
	}
	s.Flush()
	b.Logf("loaded %d memories in %v", to-from, time.Since(t).Round(time.Millisecond))
}

// cpuTime is the process's user and system CPU time: on a shared machine a
// steadier measure of a search's cost than its wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package timeline

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
)

// population returns n leaves of one fact each, shaped like a large
// store: most keys are small, a few collect thousands of statements (one
// key gets 5% of all), about one save in ten is backdated, and scopes are
// spread over a handful of projects.
func population(n int) ([]Source, [][]facts.Fact) {
	r := rand.New(rand.NewPCG(1, 2))
	base := date("2020-01-01")
	srcs := make([]Source, n)
	fss := make([][]facts.Fact, n)
	for i := range n {
		rec := base.Add(time.Duration(i) * 10 * time.Minute)
		valid := rec
		if r.IntN(10) == 0 {
			valid = rec.Add(-time.Duration(r.IntN(365*24)) * time.Hour)
		}
		scope := ""
		if r.IntN(3) > 0 {
			scope = fmt.Sprintf("github.com/acme/p%d", r.IntN(8))
		}
		var f facts.Fact
		switch k := r.IntN(100); {
		case k < 5:
			f = facts.Fact{Subject: "user", Attribute: "lives_in", Value: fmt.Sprintf("City %d", r.IntN(20))}
		case k < 95:
			f = facts.Fact{Subject: fmt.Sprintf("service %d", r.IntN(n/4+1)), Attribute: "port", Value: fmt.Sprint(r.IntN(3) + 8080)}
		default:
			f = facts.Fact{From: fmt.Sprint(r.IntN(3) + 8080), Value: fmt.Sprint(r.IntN(3) + 9000)}
		}
		f.Phrase = f.Subject + " is " + f.Value
		srcs[i] = Source{Leaf: fmt.Sprintf("%016x", i), Scope: scope, ValidFrom: valid, RecordedAt: rec}
		fss[i] = []facts.Fact{f}
	}
	return srcs, fss
}

// BenchmarkAdd100k reports the cost of one Add while building a
// timeline of 100k leaves.
func BenchmarkAdd100k(b *testing.B) {
	srcs, fss := population(100_000)
	b.ResetTimer()
	for b.Loop() {
		tl := New()
		for i := range srcs {
			tl.Add(srcs[i], fss[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(srcs)), "ns/add")
}

// BenchmarkStatus100k reports the cost of one Status on a timeline of
// 100k leaves, now and in a past view.
func BenchmarkStatus100k(b *testing.B) {
	srcs, fss := population(100_000)
	tl := New()
	for i := range srcs {
		tl.Add(srcs[i], fss[i])
	}
	for i := 0; i < len(srcs); i += 97 {
		if i+1 < len(srcs) {
			tl.Link(srcs[i].Leaf, srcs[i+1].Leaf, srcs[i+1].RecordedAt)
		}
	}
	views := []View{{}, {AsOf: date("2021-06-01"), KnownAt: date("2021-09-01")}}
	for _, v := range views {
		b.Run(fmt.Sprintf("asOf=%v", !v.AsOf.IsZero()), func(b *testing.B) {
			i := 0
			for b.Loop() {
				tl.Status(srcs[i%len(srcs)].Leaf, v)
				i += 7919
			}
		})
	}
}

func TestScaleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 100k-leaf timeline")
	}
	srcs, fss := population(100_000)
	tl := New()
	for i := range srcs {
		tl.Add(srcs[i], fss[i])
	}
	if tl.Leaves() != len(srcs) || tl.Facts() != len(srcs) {
		t.Fatalf("Leaves %d Facts %d, want %d", tl.Leaves(), tl.Facts(), len(srcs))
	}
	// Every timeline stays ordered by valid time.
	for _, s := range tl.series {
		for i := 1; i < len(s.entries); i++ {
			if tl.compare(s.entries[i-1], s.entries[i]) > 0 {
				t.Fatalf("%v out of order at %d", s.key, i)
			}
		}
	}
}

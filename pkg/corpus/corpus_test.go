package corpus

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMemories checks what the benchmarks rely on: memory i is the same
// text every time, of a bounded length, unique, and about 30% of them are
// global; and a question is made of some stored memory's words.
func TestMemories(t *testing.T) {
	const n = 5000
	seen := map[string]int{}
	global := 0
	for i := range n {
		m := Memory(7, i)
		if m != Memory(7, i) {
			t.Fatalf("memory %d differs between two calls", i)
		}
		if len(m) < MinText-50 || len(m) > MaxText+50 {
			t.Errorf("memory %d is %d bytes, want about %d–%d: %q", i, len(m), MinText, MaxText, m)
		}
		if j, dup := seen[m]; dup {
			t.Fatalf("memories %d and %d are the same text", j, i)
		}
		seen[m] = i
		if _, g := ProjectOf(i); g {
			global++
		}
	}
	if share := float64(global) / n; share < 0.25 || share > 0.35 {
		t.Errorf("%.2f of the memories are global, want about 0.30", share)
	}
	if Memory(7, 1) == Memory(8, 1) {
		t.Error("two seeds give the same memory")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		if q := Query(r, 7, n); strings.TrimSpace(q) == "" {
			t.Fatal("an empty question")
		}
	}
}

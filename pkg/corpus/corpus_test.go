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
	// Most questions are words of one stored memory (some match nothing).
	r := rand.New(rand.NewPCG(1, 2))
	fromMemory := 0
	for range 200 {
		q := Query(r, 7, n)
		if strings.TrimSpace(q) == "" {
			t.Fatal("an empty question")
		}
		if drawnFromMemory(q, n) {
			fromMemory++
		}
	}
	if fromMemory < 150 {
		t.Errorf("%d of 200 questions hold a stored memory's words, want most", fromMemory)
	}
}

// drawnFromMemory reports whether some memory [0, n) holds two or more of
// q's longer words.
func drawnFromMemory(q string, n int) bool {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return r == ' ' || r == '?' || r == ',' }) {
		if len(w) > 4 {
			words = append(words, w)
		}
	}
	for i := range n {
		m, held := strings.ToLower(Memory(7, i)), 0
		for _, w := range words {
			if strings.Contains(m, w) {
				held++
			}
		}
		if held >= min(2, len(words)) && held > 0 {
			return true
		}
	}
	return false
}

package scratch

import (
	"strings"
	"testing"
)

// FuzzCondense: any output condenses, counts its lines, and a long one
// is condensed to a bounded digest.
func FuzzCondense(f *testing.F) {
	f.Add("ok\n")
	f.Add(filler(100) + "--- FAIL: TestX\nFAIL\tpkg\t0.1s\n")
	f.Add("test result: FAILED. 1 passed; 2 failed;\n")
	f.Fuzz(func(t *testing.T, text string) {
		d := Condense("out", text)
		if want := len(strings.Split(strings.TrimRight(text, "\n"), "\n")); d.Lines != want {
			t.Fatalf("lines = %d, want %d", d.Lines, want)
		}
		// Head, tail, failures with context and the totals, each line cut.
		limit := (headLines+tailLines+maxFailLines+len(d.Totals)+10)*(maxLineRunes*4+16) + len(strings.Join(d.Totals, "\n"))
		if len(d.Text) > limit {
			t.Fatalf("digest of %d bytes is %d bytes, over %d", len(text), len(d.Text), limit)
		}
	})
}

package linediff

import "testing"

// FuzzUnified: whenever a diff is given, applying it to a gives b.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nx\nc\n")
	f.Add("", "x")
	f.Add("a\nb", "a\nb\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		d, ok := Unified("f", a, b)
		if !ok {
			return
		}
		if got := apply(t, a, d); got != b {
			t.Fatalf("apply(%q, diff) = %q, want %q\n%s", a, got, b, d)
		}
	})
}

package linediff

import (
	"fmt"
	"strings"
	"testing"
)

// apply applies a unified diff to a, as patch would: the check that the
// diff says exactly what changed.
func apply(t *testing.T, a, diff string) string {
	t.Helper()
	x := split(a)
	var out []string
	at := 0
	lines := strings.SplitAfter(diff, "\n")
	for k := 0; k < len(lines); k++ {
		l := lines[k]
		switch {
		case l == "" || k < 2: // the end, or the --- and +++ header
		case strings.HasPrefix(l, "@@"):
			var ai, an, bi, bn int
			if _, err := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &ai, &an, &bi, &bn); err != nil {
				t.Fatalf("bad hunk header %q", l)
			}
			from := ai - 1
			if an == 0 {
				from = ai
			}
			out = append(out, x[at:from]...)
			at = from
		case strings.HasPrefix(l, `\`):
			if lines[k-1][0] == '-' {
				continue
			}
			out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
		case l[0] == ' ':
			out = append(out, x[at])
			at++
		case l[0] == '-':
			if x[at] != l[1:] && x[at]+"\n" != l[1:] {
				t.Fatalf("deleting %q but the line is %q", l[1:], x[at])
			}
			at++
		case l[0] == '+':
			out = append(out, l[1:])
		}
	}
	out = append(out, x[at:]...)
	return strings.Join(out, "")
}

func TestUnified(t *testing.T) {
	long := ""
	for i := range 100 {
		long += fmt.Sprintf("line %d\n", i)
	}
	for _, c := range []struct{ name, a, b string }{
		{"equal", "a\nb\n", "a\nb\n"},
		{"one changed line", long, strings.Replace(long, "line 50\n", "line fifty\n", 1)},
		{"insert at start", long, "new\n" + long},
		{"delete at end", long, strings.TrimSuffix(long, "line 99\n")},
		{"two far hunks", long, strings.Replace(strings.Replace(long, "line 3\n", "x\n", 1), "line 90\n", "", 1)},
		{"from empty", "", "a\nb\n"},
		{"to empty", "a\nb\n", ""},
		{"no final newline", "a\nb", "a\nc"},
		{"add final newline", "a\nb", "a\nb\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, ok := Unified("f.go", c.a, c.b)
			if !ok {
				t.Fatal("gave up")
			}
			if (c.a == c.b) != (d == "") {
				t.Fatalf("equal=%v but diff %q", c.a == c.b, d)
			}
			if got := apply(t, c.a, d); got != c.b {
				t.Fatalf("applying the diff gives\n%q\nwant\n%q\ndiff:\n%s", got, c.b, d)
			}
			if c.name == "one changed line" && strings.Count(d, "\n") > 12 {
				t.Errorf("a one-line change took %d lines:\n%s", strings.Count(d, "\n"), d)
			}
		})
	}
}

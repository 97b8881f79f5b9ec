// Package linediff writes the unified diff between two texts, line by
// line, as `diff -u` does: hunks of changed lines with three lines of
// context, headed "@@ -a,b +c,d @@".
//
// It finds a shortest edit script with Myers' O(ND) algorithm, so a small
// change to a large file costs little; two texts that share nothing cost
// O(N·M) in the worst case, which is why Unified gives up past maxEdits and
// lets the caller send the file whole instead.
package linediff

import (
	"fmt"
	"strings"
)

// context is how many unchanged lines surround a change.
const context = 3

// maxEdits bounds the edit distance searched: past it a diff would be no
// shorter than the new text.
const maxEdits = 4000

// Unified returns the unified diff from a to b, named name in the headers,
// and false when the texts differ too much for a diff to be worth it.
// Equal texts give "" and true.
func Unified(name, a, b string) (string, bool) {
	x, y := split(a), split(b)
	ops, ok := edits(x, y)
	if !ok {
		return "", false
	}
	var out strings.Builder
	for _, h := range hunks(ops) {
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
		}
		writeHunk(&out, h, x, y)
	}
	return out.String(), true
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// op is one step of an edit script: keep x[i] (= y[j]), delete x[i], or
// insert y[j].
type op struct {
	kind byte // ' ', '-', '+'
	i, j int
}

// edits returns a shortest edit script from x to y.
func edits(x, y []string) ([]op, bool) {
	n, m := len(x), len(y)
	maxD := min(n+m, maxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				i = v[off+k+1]
			} else {
				i = v[off+k-1] + 1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, x, y, d, off), true
			}
		}
	}
	return nil, false
}

// backtrack walks the saved frontiers back from the end into the script:
// trace[d] is the frontier as it stood before step d.
func backtrack(trace [][]int, x, y []string, d, off int) []op {
	i, j := len(x), len(y)
	var rev []op
	for ; d >= 0; d-- {
		v := trace[d]
		k := i - j
		pk := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		}
		pi := v[off+pk]
		pj := pi - pk
		for i > pi && j > pj {
			i, j = i-1, j-1
			rev = append(rev, op{' ', i, j})
		}
		if d == 0 {
			break
		}
		if i == pi {
			rev = append(rev, op{'+', pi, pj})
		} else {
			rev = append(rev, op{'-', pi, pj})
		}
		i, j = pi, pj
	}
	out := make([]op, len(rev))
	for k, o := range rev {
		out[len(rev)-1-k] = o
	}
	return out
}

// hunks groups the script's changes with their context.
func hunks(ops []op) [][]op {
	var out [][]op
	start, end := -1, -1
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		lo, hi := max(k-context, 0), min(k+context+1, len(ops))
		if start >= 0 && lo <= end {
			end = hi
			continue
		}
		if start >= 0 {
			out = append(out, ops[start:end])
		}
		start, end = lo, hi
	}
	if start >= 0 {
		out = append(out, ops[start:end])
	}
	return out
}

func writeHunk(out *strings.Builder, h []op, x, y []string) {
	var a, b int
	for _, o := range h {
		if o.kind != '+' {
			a++
		}
		if o.kind != '-' {
			b++
		}
	}
	ai, bj := h[0].i+1, h[0].j+1
	if a == 0 {
		ai--
	}
	if b == 0 {
		bj--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", ai, a, bj, b)
	for _, o := range h {
		line := ""
		switch o.kind {
		case '+':
			line = y[o.j]
		default:
			line = x[o.i]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

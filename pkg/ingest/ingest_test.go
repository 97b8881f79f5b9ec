package ingest

import (
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	strictInvariant = true // a splitter that loses a byte panics instead of falling back
	os.Exit(m.Run())
}

// checkInvariant asserts what every split must hold: the blocks
// concatenate back to the input, none is empty, none is only white space
// (unless the whole input is), each carries the detection, and a block
// over the limit is flagged Oversized.
func checkInvariant(t testing.TB, text string, det Detection, blocks []Block, max int) {
	t.Helper()
	if max <= 0 {
		max = DefaultMaxBytes
	}
	var b strings.Builder
	for i, bl := range blocks {
		b.WriteString(bl.Text)
		if bl.Text == "" {
			t.Fatalf("block %d is empty", i)
		}
		if isBlank(bl.Text) && !isBlank(text) {
			t.Fatalf("block %d is only white space: %q", i, bl.Text)
		}
		if bl.Type != det.Type || bl.Domain != det.Domain {
			t.Fatalf("block %d: type/domain %s/%s, detection %s/%s", i, bl.Type, bl.Domain, det.Type, det.Domain)
		}
		if size := len(strings.TrimSpace(bl.Text)); (size > max) != bl.Oversized {
			t.Fatalf("block %d: %d bytes of content, max %d, Oversized=%v", i, size, max, bl.Oversized)
		}
	}
	if got := b.String(); got != text {
		t.Fatalf("blocks do not reproduce the input:\n got %q\nwant %q", clipForLog(got), clipForLog(text))
	}
	if text == "" && len(blocks) != 0 {
		t.Fatalf("empty input gave %d blocks", len(blocks))
	}
}

func clipForLog(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// blockHolding returns the index of the block that contains the whole of
// want, or -1: a logical block must never span two blocks.
func blockHolding(blocks []Block, want string) int {
	for i, b := range blocks {
		if strings.Contains(b.Text, want) {
			return i
		}
	}
	return -1
}

// span returns src from the first from to the end of the first to after it.
func span(t testing.TB, src, from, to string) string {
	t.Helper()
	i := strings.Index(src, from)
	if i < 0 {
		t.Fatalf("marker %q not in source", from)
	}
	j := strings.Index(src[i:], to)
	if j < 0 {
		t.Fatalf("marker %q not after %q", to, from)
	}
	return src[i : i+j+len(to)]
}

func TestSplitEmptyAndBlank(t *testing.T) {
	for _, typ := range []Type{TypeCode, TypeNarrative, TypeTemporal, TypeClinical, TypeProcess, TypeGeneric} {
		for _, text := range []string{"", "\n", "  \r\n\t\n", "\uFEFF", "x", "\uFEFFx\r\n"} {
			det, blocks := Split("", text, Options{Type: typ, Domain: "d"})
			checkInvariant(t, text, det, blocks, 0)
			if text != "" && len(blocks) != 1 {
				t.Errorf("%s %q: %d blocks, want 1", typ, text, len(blocks))
			}
		}
	}
}

func TestOptionsOverride(t *testing.T) {
	src := "package main\n\nfunc main() {}\n"
	tests := []struct {
		name string
		opts Options
		want Detection
	}{
		{"main.go", Options{}, Detection{TypeCode, "software.go", "go"}},
		{"", Options{}, Detection{TypeCode, "software.go", "go"}},
		{"notes.txt", Options{Domain: "software.go"}, Detection{TypeCode, "software.go", "go"}},
		{"main.go", Options{Type: TypeGeneric}, Detection{TypeGeneric, "general", ""}},
		{"main.go", Options{Type: TypeNarrative, Domain: "mine"}, Detection{TypeNarrative, "mine", ""}},
		{"main.go", Options{Domain: "work.backend"}, Detection{TypeCode, "work.backend", "go"}},
		{"x.txt", Options{Type: TypeCode}, Detection{TypeCode, "software.go", "go"}},
		{"x.txt", Options{Type: "bogus", Domain: "d"}, Detection{TypeGeneric, "d", ""}},
		{"x.txt", Options{Type: TypeCode, Domain: "software.rust"}, Detection{TypeCode, "software.rust", "rust"}},
		{"x.txt", Options{Type: TypeProcess, Domain: "software.go"}, Detection{TypeProcess, "software.go", ""}},
		{"x.txt", Options{Domain: "software.cobol"}, Detection{TypeCode, "software.cobol", "go"}},
	}
	for _, tt := range tests {
		det, blocks := Split(tt.name, src, tt.opts)
		if det != tt.want {
			t.Errorf("Split(%q, %+v) detected %+v, want %+v", tt.name, tt.opts, det, tt.want)
		}
		checkInvariant(t, src, det, blocks, tt.opts.MaxBytes)
	}
}

func TestPackingRespectsLimit(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("Paragraph number ")
		b.WriteString(strings.Repeat("x", i%37))
		b.WriteString(" ends here.\n\n")
	}
	text := b.String()
	for _, max := range []int{1, 50, 300, 4096, 1 << 20} {
		det, blocks := Split("", text, Options{Type: TypeGeneric, MaxBytes: max})
		checkInvariant(t, text, det, blocks, max)
		for i, bl := range blocks {
			if !bl.Oversized && len(strings.TrimSpace(bl.Text)) > max {
				t.Fatalf("max %d: block %d has %d bytes of content", max, i, len(bl.Text))
			}
			// Packing is greedy: a block and the next paragraph together
			// would have crossed the limit.
			if i+1 < len(blocks) && !bl.Oversized && !blocks[i+1].Oversized {
				next := blocks[i+1].Text
				if j := strings.Index(next, "\n\n"); j >= 0 && len(bl.Text)+j+2 <= max {
					t.Fatalf("max %d: block %d could have taken the next paragraph", max, i)
				}
			}
		}
		if max >= len(text) && len(blocks) != 1 {
			t.Fatalf("max %d: %d blocks, want everything in one", max, len(blocks))
		}
	}
}

package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigGo is about 1 MB of Go: the sample's declarations repeated under
// new names.
func bigGo(tb testing.TB) string {
	src, err := os.ReadFile(filepath.Join("testdata", "sample.go"))
	if err != nil {
		tb.Fatal(err)
	}
	body := string(src)
	body = body[strings.Index(body, "// Greeting"):]
	var b strings.Builder
	b.WriteString("package big\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)\n\n")
	for i := 0; b.Len() < 1<<20; i++ {
		r := strings.NewReplacer("Greeting", fmt.Sprint("Greeting", i), "Server", fmt.Sprint("Server", i),
			"helper", fmt.Sprint("helper", i), "Set[", fmt.Sprint("Set", i, "["), "var r ", fmt.Sprint("var r", i, " "),
			"\ta = 1", fmt.Sprint("\ta", i, " = 1"), "\tb = 2", fmt.Sprint("\tb", i, " = 2"),
			"\tA int", fmt.Sprint("\tA", i, " int"), "\tB string", fmt.Sprint("\tB", i, " string"))
		b.WriteString(r.Replace(body))
		b.WriteString("\n")
	}
	return b.String()
}

// bigJournal is about 1 MB of dated entries, a few per day, in the forms
// people write.
func bigJournal() string {
	var b strings.Builder
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	forms := []string{"2006-01-02", "02/01/2006", "2 January, 2006", "January 2nd 2006", "3:04 pm on 2 January, 2006"}
	for i := 0; b.Len() < 1<<20; i++ {
		d := day.AddDate(0, 0, i/3).Add(time.Duration(i%3) * 5 * time.Hour)
		fmt.Fprintf(&b, "%s I went for a walk with my sister and we talked about entry %d.\n", d.Format(forms[i%len(forms)]), i)
		if i%4 == 0 {
			b.WriteString("It rained in the afternoon, so I read a book and cooked dinner.\n\n")
		}
	}
	return b.String()
}

func BenchmarkSplitGo1MB(b *testing.B) {
	src := bigGo(b)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		_, blocks := Split("big.go", src, Options{})
		if len(blocks) < 100 {
			b.Fatalf("%d blocks", len(blocks))
		}
	}
}

func BenchmarkSplitJournal1MB(b *testing.B) {
	src := bigJournal()
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		det, blocks := Split("journal.txt", src, Options{})
		if det.Type != TypeTemporal || len(blocks) < 100 {
			b.Fatalf("%+v, %d blocks", det, len(blocks))
		}
	}
}

func BenchmarkDetect(b *testing.B) {
	src := bigJournal()
	b.SetBytes(64 << 10)
	for b.Loop() {
		Detect("", src)
	}
}

// TestBigInputs checks the benchmark inputs themselves: they split, hold
// the invariant, and every Go function of the big file is whole.
func TestBigInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("1 MB inputs")
	}
	src := bigGo(t)
	det, blocks := Split("big.go", src, Options{})
	checkInvariant(t, src, det, blocks, DefaultMaxBytes)
	if i := blockHolding(blocks, span(t, src, "// Run runs the server.", "\treturn nil\n}\n")); i < 0 {
		t.Error("a function was cut in the big file")
	}
	j := bigJournal()
	det, blocks = Split("", j, Options{})
	checkInvariant(t, j, det, blocks, DefaultMaxBytes)
	if det.Type != TypeTemporal || det.Domain != "personal" {
		t.Errorf("journal detected %+v", det)
	}
	for i, b := range blocks {
		if b.ValidFrom.IsZero() {
			t.Fatalf("block %d undated: %q", i, clip(b.Text, 80))
		}
		if i > 0 && sameDay(b.ValidFrom, blocks[i-1].ValidFrom) && len(b.Text)+len(blocks[i-1].Text) <= DefaultMaxBytes {
			t.Fatalf("blocks %d and %d are the same day and small: should be one", i-1, i)
		}
	}
}

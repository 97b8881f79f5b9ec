package screen

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readCorpus reads a corpus file of testdata: one case a line, with Go
// string escapes decoded; blank lines and lines starting with # skipped.
func readCorpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(`"` + strings.ReplaceAll(line, `"`, `\"`) + `"`)
		if err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		out = append(out, s)
	}
	return out
}

// corpusFigures runs check over a hostile and a benign corpus and returns
// how many hostile cases it caught and how many benign ones it flagged,
// logging each miss and each false alarm.
func corpusFigures(t *testing.T, hostile, benign []string, check func(string) bool) (caught, falseAlarms int) {
	t.Helper()
	for _, s := range hostile {
		if check(s) {
			caught++
		} else {
			t.Logf("missed: %q", s)
		}
	}
	for _, s := range benign {
		if check(s) {
			falseAlarms++
			t.Logf("false alarm: %q", s)
		}
	}
	return caught, falseAlarms
}

// TestInstructionCorpus runs the instruction screen over the corpora of
// issue 29 (testdata/corpus_instructions_*.txt) and holds its figures: the
// hostile side held, the benign side (the same words, brackets and
// spacing in ordinary notes) passed.
func TestInstructionCorpus(t *testing.T) {
	hostile := readCorpus(t, "corpus_instructions_hostile.txt")
	benign := readCorpus(t, "corpus_instructions_benign.txt")
	caught, falseAlarms := corpusFigures(t, hostile, benign, func(s string) bool { _, ok := Instructions(s); return ok })
	t.Logf("instructions: held %d of %d hostile, falsely held %d of %d benign", caught, len(hostile), falseAlarms, len(benign))
	// Before issue 29 the screen held 11 of 37 and falsely held 1 (a note
	// that names a chat-template token, still held: such tokens have no
	// business in a note).
	if caught < len(hostile) || falseAlarms > 1 {
		t.Errorf("held %d of %d hostile (want all), falsely held %d benign (want at most 1)", caught, len(hostile), falseAlarms)
	}
}

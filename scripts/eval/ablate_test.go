package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// runOf builds a run's results from "qid:kind:pass" triples.
func runOf(t *testing.T, specs ...string) []result {
	t.Helper()
	var out []result
	for _, s := range specs {
		f := strings.Split(s, ":")
		if len(f) != 3 {
			t.Fatalf("bad spec %q", s)
		}
		out = append(out, result{QID: f[0], Kind: f[1], Pass: f[2] == "1"})
	}
	return out
}

func TestCompareSet(t *testing.T) {
	on := runOf(t, "q1:current:1", "q2:current:1", "q3:paraphrase:0", "q4:negative:1", "q5:lookup:0")
	tests := []struct {
		name string
		off  []result
		want setDelta
	}{
		{"no change", on, setDelta{Set: "s", PassOn: 3, PassOff: 3, Gained: []changed{}, Lost: []changed{}, Kinds: []kindDelta{}}},
		{"loses two, gains one", runOf(t, "q1:current:0", "q2:current:1", "q3:paraphrase:1", "q4:negative:0", "q5:lookup:0"), setDelta{
			Set: "s", PassOn: 3, PassOff: 2, Delta: -1,
			Gained: []changed{{"q3", "paraphrase"}},
			Lost:   []changed{{"q1", "current"}, {"q4", "negative"}},
			Kinds:  []kindDelta{{"current", 0, 1}, {"paraphrase", 1, 0}, {"negative", 0, 1}},
		}},
		{"a gain and a loss of one kind net to zero", runOf(t, "q1:current:0", "q2:current:1", "q3:paraphrase:0", "q4:negative:1", "q5:lookup:1"), setDelta{
			Set: "s", PassOn: 3, PassOff: 3, Delta: 0,
			Gained: []changed{{"q5", "lookup"}},
			Lost:   []changed{{"q1", "current"}},
			Kinds:  []kindDelta{{"current", 0, 1}, {"lookup", 1, 0}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := compareSet("s", on, tt.off)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("compareSet =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
	// Runs of different sets cannot be compared.
	if _, err := compareSet("s", on, on[:4]); err == nil {
		t.Error("runs of different lengths compared")
	}
	if _, err := compareSet("s", on, runOf(t, "q1:current:1", "q9:current:1", "q3:paraphrase:0", "q4:negative:1", "q5:lookup:0")); err == nil || !strings.Contains(err.Error(), "q9") {
		t.Errorf("runs of different questions: %v", err)
	}
}

// fakeAblation is two sets and three signals: "recency" costs set a two
// current questions and set b one; "echo" changes nothing; "noise" gains
// set b a paraphrase and loses it a lookup.
func fakeAblation(t *testing.T) ([]string, []signal, [][]result, map[string][][]result) {
	names := []string{"a", "b"}
	sigs := []signal{{"recency", "newer memories first"}, {"echo", "does nothing"}, {"noise", "trades one for another"}}
	onA := runOf(t, "q1:current:1", "q2:current:1", "q3:lookup:1")
	onB := runOf(t, "q1:current:1", "q2:paraphrase:0", "q3:lookup:1", "q4:negative:0")
	off := map[string][][]result{
		"recency": {runOf(t, "q1:current:0", "q2:current:0", "q3:lookup:1"), runOf(t, "q1:current:0", "q2:paraphrase:0", "q3:lookup:1", "q4:negative:0")},
		"echo":    {onA, onB},
		"noise":   {onA, runOf(t, "q1:current:1", "q2:paraphrase:1", "q3:lookup:0", "q4:negative:0")},
	}
	return names, sigs, [][]result{onA, onB}, off
}

func TestAblate(t *testing.T) {
	names, sigs, on, off := fakeAblation(t)
	rows, err := ablate(names, sigs, on, off)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Signal != "recency" || rows[1].Signal != "echo" || rows[2].Signal != "noise" {
		t.Fatalf("rows in the daemon's order: %+v", rows)
	}
	rec := rows[0]
	if rec.Sets[0].Delta != -2 || rec.Sets[1].Delta != -1 || rec.Pooled.Delta != -3 || rec.Pooled.PassOn != 5 || rec.Pooled.PassOff != 2 {
		t.Errorf("recency %+v", rec)
	}
	if want := []kindDelta{{"current", 0, 3}}; !reflect.DeepEqual(rec.Pooled.Kinds, want) {
		t.Errorf("recency pooled kinds %+v, want %+v", rec.Pooled.Kinds, want)
	}
	if n := rows[2].Pooled; n.Delta != 0 || !reflect.DeepEqual(n.Kinds, []kindDelta{{"lookup", 0, 1}, {"paraphrase", 1, 0}}) {
		t.Errorf("noise pooled %+v: a gain and a loss, in the table's kind order", n)
	}
	if e := rows[1]; e.Pooled.Delta != 0 || len(e.Pooled.Kinds) != 0 || len(e.Sets[0].Lost)+len(e.Sets[1].Gained) != 0 {
		t.Errorf("echo changed something: %+v", e)
	}
	delete(off, "echo")
	if _, err := ablate(names, sigs, on, off); err == nil || !strings.Contains(err.Error(), "echo") {
		t.Errorf("a signal without runs: %v", err)
	}
}

// TestPrintAblation compares the table with a golden file: per signal, each
// set's and the pooled change, the gains and losses where both happened,
// and the questions behind every change; nothing for a signal that changed
// nothing.
func TestPrintAblation(t *testing.T) {
	names, sigs, on, off := fakeAblation(t)
	rows, err := ablate(names, sigs, on, off)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	printAblation(&b, names, on, rows)
	golden := filepath.Join("testdata", "ablation.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("printAblation:\n%s\nwant:\n%s", b.String(), want)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/corpus"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{2, 2, 9}, 2},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSpreads(t *testing.T) {
	fig := func(key string, v float64) Figure { return Figure{Key: key, Name: key, Unit: "ms", Value: v} }
	runs := [][]Figure{
		{fig("a", 3), fig("b", 10)},
		{fig("a", 1)}, // b missing from this run
		{fig("a", 2), fig("b", 20), fig("c", 7)},
	}
	got := spreads(runs)
	want := []Spread{
		{Figure: fig("a", 3), Median: 2, Min: 1, Max: 3, N: 3},
		{Figure: fig("b", 10), Median: 15, Min: 10, Max: 20, N: 2},
		{Figure: fig("c", 7), Median: 7, Min: 7, Max: 7, N: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("spreads gave %d figures, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("spread %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestSpreadString(t *testing.T) {
	for _, tc := range []struct {
		s    Spread
		want string
	}{
		{Spread{Figure: Figure{Unit: "ms"}, Median: 2.5, Min: 2.5, Max: 2.5, N: 1}, "2.50 ms"},
		{Spread{Figure: Figure{Unit: "ms"}, Median: 2.5, Min: 2.1, Max: 3.25, N: 3}, "2.50 ms [2.10–3.25 ms]"},
		{Spread{Figure: Figure{Unit: "ms"}, Median: 900, Min: 800, Max: 1500, N: 3}, "900.0 ms [800.0 ms–1.50 s]"},
		{Spread{Figure: Figure{Unit: "saves/s"}, Median: 1234, Min: 1000, Max: 2000, N: 2}, "1,234 [1,000–2,000]"},
		{Spread{Figure: Figure{Unit: "s"}, Median: 3.5, Min: 3, Max: 4, N: 3}, "3.50 s [3.00–4.00 s]"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestMet(t *testing.T) {
	for _, tc := range []struct {
		f    Figure
		v    float64
		want string
	}{
		{Figure{}, 5, ""},
		{Figure{Target: 3000, Higher: true}, 3000, "yes"},
		{Figure{Target: 3000, Higher: true}, 2999, "no"},
		{Figure{Target: 5}, 5, "yes"},
		{Figure{Target: 5}, 5.1, "no"},
	} {
		if got := tc.f.met(tc.v); got != tc.want {
			t.Errorf("%+v met(%v) = %q, want %q", tc.f, tc.v, got, tc.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		ratio  float64
		higher bool
		want   string
	}{
		{1, true, ""},
		{0.95, true, ""},
		{0.8, true, "worse"},
		{1.2, true, "better"},
		{1.2, false, "worse"}, // a latency 20% higher
		{0.8, false, "better"},
	} {
		if got := verdict(tc.ratio, tc.higher); got != tc.want {
			t.Errorf("verdict(%v, higher %v) = %q, want %q", tc.ratio, tc.higher, got, tc.want)
		}
	}
}

func TestRoundSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want int64
		name string
	}{
		{999, 999, "999"},
		{1_000, 1_000, "1k"},
		{10_510, 10_000, "10k"},
		{100_716, 100_000, "100k"},
		{1_000_300, 1_000_000, "1M"},
	} {
		if got := roundSize(tc.n); got != tc.want {
			t.Errorf("roundSize(%d) = %d, want %d", tc.n, got, tc.want)
		}
		if got := sizeName(tc.n); got != tc.name {
			t.Errorf("sizeName(%d) = %q, want %q", tc.n, got, tc.name)
		}
	}
}

// sampleResults is a run with every figure's phase filled in.
func sampleResults(saves16, openS float64) *Results {
	return &Results{
		Throughput:  []Throughput{{Clients: 1, PerSecond: 400}, {Clients: 16, PerSecond: saves16}},
		Preload:     []Preload{{From: 0, To: 1000, Seconds: 1, InFlight: 64, LeafLagMs: 1000}, {From: 1000, To: 10_000, Seconds: 9, InFlight: 64, LeafLagMs: 9000}},
		SaveLatency: []AtSize{{Leaves: 1_010, Latency: Lat{N: 1, P50: 2, P99: 3}}},
		Search:      []SearchAt{{Leaves: 10_200, Scope: "all", Latency: Lat{N: 2, P50: 1, P99: 6}, TargetP99Ms: 5}},
		Restart:     Restart{Leaves: 100_500, OpenSeconds: openS, RSSMiB: 250, Search: SearchAt{Leaves: 100_500, Scope: "default", Latency: Lat{N: 2, P50: 4, P99: 9}}},
		Shim:        ShimResults{SteadySave: Lat{P50: 3}},
	}
}

func TestFigures(t *testing.T) {
	fs := sampleResults(800, 4).figures()
	want := map[string]struct {
		v      float64
		target float64
		met    string
	}{
		"saves_per_s_1":                          {400, 0, ""},
		"saves_per_s_16":                         {800, 3000, "no"},
		"bulk_saves_per_s":                       {1000, 0, ""},
		"bulk_saves_settled_per_s":               {500, 0, ""},
		"save_p99_1000":                          {3, 0, ""},
		"save_p50_1000":                          {2, 0, ""},
		"search_all_10000_p99":                   {6, 5, "no"},
		"open_s_100000":                          {4, 3, "no"},
		"search_default_100000_(real_ihmtd)_p99": {9, 10, "yes"},
		"ihmtd_rss_mib_100000":                   {250, 0, ""},
		"tool_save_p50":                          {3, 2, "no"},
	}
	got := map[string]Figure{}
	for _, f := range fs {
		got[f.Key] = f
	}
	for k, w := range want {
		f, ok := got[k]
		if !ok {
			t.Errorf("no figure %q; have %v", k, keys(fs))
			continue
		}
		if f.Value != w.v || f.Target != w.target || f.met(f.Value) != w.met {
			t.Errorf("%s = %v (target %v, met %q), want %v (target %v, met %q)", k, f.Value, f.Target, f.met(f.Value), w.v, w.target, w.met)
		}
	}
	if _, ok := got["tool_search_p50"]; ok {
		t.Errorf("a phase that did not run gave a figure: tool_search_p50")
	}
}

func keys(fs []Figure) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Key)
	}
	return out
}

// TestRecordTable writes a record of three runs, reads it back and renders
// README's table from it: the medians, ranges and verdicts must survive.
func TestRecordTable(t *testing.T) {
	runs := []*Results{sampleResults(800, 4), sampleResults(700, 2.5), sampleResults(900, 3.5)}
	rec := &Record{Date: "2026-12-02T06:00:00Z", Machine: Machine{CPUs: 2, Model: "Test CPU", Kernel: "6.1"}, Commit: "abc123", Args: []string{"-runs", "3"}, Runs: runs}
	rec.Figures = spreads(runFigures(runs))
	file := filepath.Join(t.TempDir(), "r.json")
	if err := writeRecord(file, rec); err != nil {
		t.Fatal(err)
	}
	back, err := readRecord(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Runs) != 3 || back.Runs[1].Throughput[1].PerSecond != 700 {
		t.Fatalf("runs did not survive the round trip: %+v", back.Runs)
	}
	var out bytes.Buffer
	back.markdown(&out)
	table := out.String()
	for _, want := range []string{
		"3 run(s) of `scripts/bench.sh -runs 3` on 2026-12-02, commit abc123; 2 × Test CPU, Linux 6.1.",
		"| figure | median [range] | target | met? |",
		"| durable saves/s, 16 client(s) | 800 [700–900] | ≥ 3,000 | no |",
		"| open 100k store → SERVING (real ihmtd) | 3.50 s [2.50–4.00 s] | ≤ 3.00 s | no |",
		"| search at 100k, scope default (real ihmtd), p99 | 9.00 ms [9.00–9.00 ms] | ≤ 10.0 ms | yes |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// TestRecordTableWithBaseline: a comparison's record adds the baseline's
// median and the ratio, and says where this tree is worse.
func TestRecordTableWithBaseline(t *testing.T) {
	cur := [][]Figure{sampleResults(800, 4).figures()}
	base := [][]Figure{sampleResults(1000, 4).figures()}
	rec := &Record{Date: "2026-12-02", Comparison: &Comparison{Rev: "v0.9", Rounds: 1, Current: cur, Baseline: base}}
	rec.Figures = spreads(cur)
	var out bytes.Buffer
	rec.markdown(&out)
	for _, want := range []string{
		"| figure | median [range] | v0.9 (same run) | ratio | target | met? |",
		"| durable saves/s, 16 client(s) | 800 | 1,000 | 0.80 (worse) | ≥ 3,000 | no |",
		"| open 100k store → SERVING (real ihmtd) | 4.00 s | 4.00 s | 1.00 | ≤ 3.00 s | no |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRecordOf: a bulk record is what the store's import admits — its
// checksum and id agree with its text, scope and project, and its valid
// time is the date the text opens with.
func TestRecordOf(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sawGlobal, sawDated := false, false
	for i := range 200 {
		s, err := recordOf(7, i, base)
		if err != nil {
			t.Fatal(err)
		}
		var r bulkRecord
		if err := jsonUnmarshal(s, &r); err != nil {
			t.Fatal(err)
		}
		if r.Checksum != leaf.Checksum(r.Text) || r.ID != leaf.ID(r.Header, r.Text) || !leaf.IsID(r.ID) {
			t.Fatalf("record %d: checksum or id does not match: %s", i, s)
		}
		if r.Text != corpus.Memory(7, i) || !r.RecordedAt.Equal(base.Add(time.Duration(i)*time.Millisecond)) {
			t.Fatalf("record %d: text or record time off: %s", i, s)
		}
		_, global := corpus.ProjectOf(i)
		if global != (r.Scope == leaf.ScopeGlobal) || global != (r.Project == "") {
			t.Fatalf("record %d: scope %q project %q, global %v", i, r.Scope, r.Project, global)
		}
		sawGlobal = sawGlobal || global
		d := r.Text[:10]
		if _, err := time.Parse(time.DateOnly, d); err == nil && r.Text[10] == ':' {
			sawDated = true
			if r.ValidFrom.Format(time.DateOnly) != d {
				t.Fatalf("record %d opens with %s but is valid from %v", i, d, r.ValidFrom)
			}
		} else if !r.ValidFrom.Equal(r.RecordedAt) {
			t.Fatalf("record %d: undated text valid from %v, recorded %v", i, r.ValidFrom, r.RecordedAt)
		}
	}
	if !sawGlobal || !sawDated {
		t.Fatalf("200 records gave no global (%v) or no dated (%v) memory: the test checks nothing", sawGlobal, sawDated)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

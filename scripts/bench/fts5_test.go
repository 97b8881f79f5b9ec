package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/corpus"
)

// TestFTS5ReportDecodes reads the runner's golden report (its own test pins
// it to what the runner writes) with unknown fields refused: the two
// modules' types must agree field for field.
func TestFTS5ReportDecodes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "fts5", "testdata", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f FTS5Results
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("the runner's report does not decode here: %v", err)
	}
	if f.Throughput[0].PerSecond != 300 || f.Throughput[0].Latency.P99 != 9 || f.Reopen.FirstAnswerS != 0.12 || f.Reopen.Search.Empty != 30 || f.Disk.Total != 6 || f.SaveLatency[0].Memories != 1000 {
		t.Errorf("decoded %+v", f)
	}
	// The control: a field the bench does not know is refused.
	dec = json.NewDecoder(strings.NewReader(`{"driver":"x","renamed_field":1}`))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&FTS5Results{}); err == nil {
		t.Error("an unknown field decoded: the check above proves nothing")
	}
}

// TestQuestions: the same (seed, of) gives the same questions, so ihmtd's
// sample and FTS5's are one list; another count gives others.
func TestQuestions(t *testing.T) {
	w1, q1 := questions(7, 10_000, 50)
	w2, q2 := questions(7, 10_000, 50)
	_, q3 := questions(7, 10_001, 50)
	if len(w1) != searchWarmUps || len(q1) != 50 {
		t.Fatalf("%d warm-ups and %d questions, want %d and 50", len(w1), len(q1), searchWarmUps)
	}
	if !slices.Equal(w1, w2) || !slices.Equal(q1, q2) {
		t.Error("the same seed and count gave different questions")
	}
	if slices.Equal(q1, q3) {
		t.Error("another count gave the same questions")
	}
}

func sampleFTS5() *FTS5Results {
	lat := func(p50, p99 float64) Lat { return Lat{N: 300, P50: p50, P99: p99} }
	return &FTS5Results{
		Throughput: []FTS5Level{
			{Writers: 1, Conns: "own", PerSecond: 600},
			{Writers: 16, Conns: "own", PerSecond: 250},
			{Writers: 16, Conns: "shared", PerSecond: 700},
		},
		SaveLatency: []FTS5AtSize{{Memories: 1_000, Latency: lat(0.5, 4)}},
		Search:      []FTS5Search{{Memories: 10_000, Scope: "all", Latency: lat(20, 60)}},
		Reopen:      &FTS5Reopen{Memories: 100_510, FirstAnswerS: 0.1, RSSMiB: 20, Search: FTS5Search{Memories: 100_510, Scope: "default", Latency: lat(100, 250)}},
		Disk:        FTS5Disk{Total: 60 << 20},
	}
}

func TestFTS5Figures(t *testing.T) {
	r := sampleResults(800, 4)
	r.StoreBytes = 300 << 20
	r.FTS5 = sampleFTS5()
	got := map[string]Figure{}
	for _, f := range r.figures() {
		got[f.Key] = f
	}
	for _, tc := range []struct {
		key  string
		v    float64
		pair bool // ihmtd has the figure it stands beside
	}{
		{"fts5:saves_per_s_1", 600, true},
		{"fts5:saves_per_s_16", 250, true},
		{"fts5:saves_per_s_16_shared", 700, false},
		{"fts5:save_p50_1000", 0.5, true},
		{"fts5:save_p99_1000", 4, true},
		{"fts5:search_all_10000_p99", 60, true},
		{"fts5:open_s_100000", 0.1, true},
		{"fts5:search_default_100000_(real_ihmtd)_p99", 250, true},
		{"fts5:ihmtd_rss_mib_100000", 20, true},
		{"fts5:store_mib_1000", 60, true},
	} {
		f, ok := got[tc.key]
		if !ok {
			t.Errorf("no figure %s; have %v", tc.key, keys(r.figures()))
			continue
		}
		if f.Value != tc.v || f.Target != 0 || !strings.HasPrefix(f.Name, "SQLite FTS5: ") {
			t.Errorf("%s = %+v, want value %v, no target, a name that says FTS5", tc.key, f, tc.v)
		}
		if _, ok := got[strings.TrimPrefix(tc.key, fts5Key)]; ok != tc.pair {
			t.Errorf("%s: ihmtd's counterpart present = %v, want %v", tc.key, ok, tc.pair)
		}
	}
	if got["store_mib_1000"].Value != 300 {
		t.Errorf("ihmtd's store size figure %+v, want 300 MiB", got["store_mib_1000"])
	}
	// The control: no FTS5 run, no FTS5 figures.
	r.FTS5 = nil
	for _, f := range r.figures() {
		if strings.HasPrefix(f.Key, fts5Key) {
			t.Errorf("a run without FTS5 gave %s", f.Key)
		}
	}
}

func TestAhead(t *testing.T) {
	for _, tc := range []struct {
		ihmtd, fts5 float64
		higher      bool
		want        string
	}{
		{800, 250, true, "yes"}, // saves/s: more is better
		{250, 800, true, "no"},
		{2, 7, false, "yes"}, // latency: less is better
		{7, 2, false, "no"},
		{5, 5, false, "no"}, // a tie is not ahead
		{5, 5, true, "no"},
	} {
		if got := ahead(tc.ihmtd, tc.fts5, tc.higher); got != tc.want {
			t.Errorf("ahead(%v, %v, higher %v) = %s, want %s", tc.ihmtd, tc.fts5, tc.higher, got, tc.want)
		}
	}
}

func TestSideBySide(t *testing.T) {
	fig := func(key string, v float64) Spread {
		return Spread{Figure: Figure{Key: key, Name: key, Unit: "ms"}, Median: v, Min: v, Max: v, N: 1}
	}
	rows, any := sideBySide([]Spread{fig("a", 1), fig("b", 2), fig("fts5:a", 3), fig("fts5:x", 4)})
	var got []string
	for _, r := range rows {
		s := r.Key
		if r.fts5 != nil {
			s += "|" + r.fts5.Key + "|" + strings.Join(r.cells(), "|")
		}
		got = append(got, s)
	}
	want := []string{"a|fts5:a|3.00 ms|yes", "b", "fts5:x"}
	if !any || !slices.Equal(got, want) {
		t.Errorf("rows %q (FTS5 present %v), want %q", got, any, want)
	}
	if _, any := sideBySide([]Spread{fig("a", 1)}); any {
		t.Error("no FTS5 figure, yet FTS5 present")
	}
}

// TestRecordTableWithFTS5: README's table carries FTS5's median beside
// ihmtd's, and whether ihmtd is ahead.
func TestRecordTableWithFTS5(t *testing.T) {
	var runs []*Results
	for _, s := range []float64{800, 700, 900} {
		r := sampleResults(s, 4)
		r.FTS5 = sampleFTS5()
		r.FTS5.Throughput[1].PerSecond = s / 2
		runs = append(runs, r)
	}
	rec := &Record{Date: "2026-12-07", Runs: runs, Figures: spreads(runFigures(runs))}
	var out bytes.Buffer
	rec.markdown(&out)
	for _, want := range []string{
		"| figure | median [range] | SQLite FTS5, same run | ihmtd ahead? | target | met? |\n|---|---|---|---|---|---|\n",
		"| durable saves/s, 16 client(s) | 800 [700–900] | 400 [350–450] | yes | ≥ 3,000 | no |",
		"| search at 100k, scope default (real ihmtd), p99 | 9.00 ms [9.00–9.00 ms] | 250.0 ms [250.0–250.0 ms] | yes | ≤ 10.0 ms | yes |",
		"| SQLite FTS5: durable saves/s, 16 writers sharing one connection | 700 [700–700] |  |  |  |  |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "| SQLite FTS5: durable saves/s, 16 writer(s), each") {
		t.Errorf("a paired FTS5 figure has a row of its own:\n%s", out.String())
	}
}

// TestFTS5Plan: the runner is asked what ihmtd was: the ladder's memories
// in the bench's order with their projects, the same levels, and each
// sample's questions drawn from the count ihmtd's were (capped).
func TestFTS5Plan(t *testing.T) {
	cfg := config{seed: 11, levels: []int{1, 16}, levelDur: 500 * time.Millisecond, sizes: []int{100, 500}, searchAt: 500, latencySaves: 20, searches: 400}
	b := &bench{cfg: cfg}
	res := &Results{
		Search:  []SearchAt{{Leaves: 530, Scope: "default", QueriesOf: 527}, {Leaves: 530, Scope: "all", QueriesOf: 527}},
		Restart: Restart{Search: SearchAt{Leaves: 600, RealDaemon: true, QueriesOf: 600}},
	}
	dir := t.TempDir()
	p, err := b.fts5Plan(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Levels, []int{1, 16}) || !slices.Equal(p.SharedLevels, []int{16}) || p.LevelMs != 500 || p.Limit != 5 || p.Project != corpus.ProjectName(0) {
		t.Errorf("plan %+v", p)
	}
	if len(p.Rungs) != 2 || p.Rungs[0].Search != nil || p.Rungs[1].Search == nil || p.Rungs[1].LatencySaves != 20 || p.Rungs[1].WarmSaves != warmSaves {
		t.Fatalf("rungs %+v: want 100 without searches, 500 with", p.Rungs)
	}
	warm, timed := questions(11, 527, 400)
	if !slices.Equal(p.Rungs[1].Search.Warm, warm) || !slices.Equal(p.Rungs[1].Search.Timed, timed[:fts5Searches]) {
		t.Error("the rung's questions are not ihmtd's (drawn from 527, the first 300)")
	}
	if _, timed = questions(11, 600, 400); !slices.Equal(p.Reopen.Timed, timed[:fts5Searches]) {
		t.Error("the reopen's questions are not the restarted ihmtd's")
	}
	lines := readLines(t, p.Corpus)
	if len(lines) != fts5Need(p) || len(lines) != 500+warmSaves+20 {
		t.Fatalf("corpus has %d memories, the plan saves %d", len(lines), fts5Need(p))
	}
	for _, i := range []int{0, 1, 2, 99, len(lines) - 1} {
		proj, global := corpus.ProjectOf(i)
		if global {
			proj = ""
		}
		if lines[i] != (fts5Memory{Project: proj, Text: corpus.Memory(11, i)}) {
			t.Errorf("memory %d = %+v, not the bench's", i, lines[i])
		}
	}
	if texts := readLines(t, p.Throughput); len(texts) < 2000 || texts[0].Text != corpus.Memory(12, 0) {
		t.Errorf("%d throughput texts, the first %q: want the throughput phase's (seed+1)", len(texts), texts[0].Text)
	}
}

func readLines(t *testing.T, file string) []fts5Memory {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fts5Memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m fts5Memory
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

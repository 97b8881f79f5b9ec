package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the reopen process too: the runner
// starts os.Executable() with -reopen, which under go test is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-reopen" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestMatchExpr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"? - …", ""},
		{"PostgreSQL", `"PostgreSQL"`},
		{"where is billing gateway?", `"where" OR "is" OR "billing" OR "gateway?"`},
		{"eu-west-1 Redis redis REDIS", `"eu-west-1" OR "Redis"`},                    // repeats once, whatever the case
		{`say "NEAR(a b)" AND x*`, `"say" OR """NEAR(a" OR "b)""" OR "AND" OR "x*"`}, // operators are text
		{"Ingrid ENG-1042.", `"Ingrid" OR "ENG-1042."`},
	} {
		if got := matchExpr(tc.in); got != tc.want {
			t.Errorf("matchExpr(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseCorpus(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Memory
		err      string
	}{
		{"two", `{"project":"p","text":"a b"}` + "\n" + `{"project":"","text":"c"}` + "\n", []Memory{{"p", "a b"}, {"", "c"}}, ""},
		{"no final newline", `{"text":"a"}`, []Memory{{"", "a"}}, ""},
		{"empty file", "", nil, ""},
		{"not JSON", `{"text":"a"}` + "\nnope\n", nil, "line 2"},
		{"no text", `{"project":"p"}`, nil, "line 1: a memory without text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseCorpus(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPlanCheck(t *testing.T) {
	good := func() Plan {
		return Plan{Corpus: "c", Throughput: "t", Limit: 5, Levels: []int{1}, LevelMs: 100,
			Rungs: []Rung{{Size: 10, WarmSaves: 1, LatencySaves: 2}, {Size: 20, LatencySaves: 3}}}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Plan)
		err   string
		need  int
		batch int
	}{
		{"good", func(*Plan) {}, "", 23, 1000},
		{"batch kept", func(p *Plan) { p.Batch = 7 }, "", 23, 7},
		{"no corpus", func(p *Plan) { p.Corpus = "" }, "no corpus file", 0, 0},
		{"no limit", func(p *Plan) { p.Limit = 0 }, "limit 0", 0, 0},
		{"levels without texts", func(p *Plan) { p.Throughput = "" }, "throughput corpus", 0, 0},
		{"shrinking ladder", func(p *Plan) { p.Rungs[1].Size = 12 }, "rung 1: size 12 is below the store already loaded (13)", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good()
			tc.edit(&p)
			err := p.check()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.need() != tc.need || p.Batch != tc.batch {
				t.Errorf("need %d, batch %d; want %d, %d", p.need(), p.Batch, tc.need, tc.batch)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		in   []time.Duration
		want Lat
	}{
		{nil, Lat{}},
		{[]time.Duration{2 * time.Millisecond}, Lat{N: 1, P50: 2, P90: 2, P99: 2, Max: 2, Mean: 2}},
		{ds, Lat{N: 100, P50: 50, P90: 90, P99: 99, Max: 100, Mean: 50.5}},
	} {
		if got := summarize(tc.in); got != tc.want {
			t.Errorf("summarize(%d values) = %+v, want %+v", len(tc.in), got, tc.want)
		}
	}
}

func TestReadChild(t *testing.T) {
	report := `{"search":{"memories":0,"scope":"default","latency":{"n":3,"p50_ms":1.5}},"rss_mib":20,"max_rss_mib":24}`
	for _, tc := range []struct {
		name, out string
		first     bool // the first answer was seen
		err       string
		p50, rss  float64
	}{
		{"answered, then the report", answered + "\n" + report + "\n", true, "", 1.5, 20},
		{"report without a final newline", answered + "\n" + report, true, "", 1.5, 20},
		{"failed before answering", `{"error":"no database to reopen"}` + "\n", false, "before its first answer", 0, 0},
		{"nothing at all", "", false, "before its first answer", 0, 0},
		{"answered, then failed", answered + "\n" + `{"error":"disk I/O error"}` + "\n", true, "disk I/O error", 0, 0},
		{"answered, then garbage", answered + "\nsegfault\n", true, "reopen report", 0, 0},
		{"answered, then nothing", answered + "\n", true, "gave no report", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := false
			c, err := readChild(bufio.NewReader(strings.NewReader(tc.out)), func() { seen = true })
			if seen != tc.first {
				t.Errorf("first answer seen = %v, want %v", seen, tc.first)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Search.Latency.P50 != tc.p50 || c.RSSMiB != tc.rss {
				t.Errorf("report %+v, want p50 %v and RSS %v", c, tc.p50, tc.rss)
			}
		})
	}
}

func TestStatusField(t *testing.T) {
	status := "Name:\tfts5bench\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\nThreads:\t5\n"
	for _, tc := range []struct {
		field string
		want  uint64
		ok    bool
	}{
		{"VmRSS", 1024 << 10, true},
		{"VmHWM", 2048 << 10, true},
		{"VmSwap", 0, false},
		{"Name", 0, false}, // not a number
	} {
		got, ok := statusField(strings.NewReader(status), tc.field)
		if got != tc.want || ok != tc.ok {
			t.Errorf("statusField(%s) = %d, %v; want %d, %v", tc.field, got, ok, tc.want, tc.ok)
		}
	}
}

// tinyCorpus writes n memories that each carry a word of their own
// (marker<i>) and a few shared ones; memory i is in project p<i%3>, and
// every third is global.
func tinyCorpus(t *testing.T, file string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		m := Memory{Project: fmt.Sprintf("p%d", i%3), Text: fmt.Sprintf("Memory marker%d: the billing gateway retries %d times; decided with Ingrid.", i, i%7)}
		if i%3 == 0 {
			m.Project = ""
		}
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRealRun measures a tiny plan for real: SQLite files on disk, writers
// on their own and on a shared connection, the ladder, and the reopen in a
// process of its own.
func TestRealRun(t *testing.T) {
	dir := t.TempDir()
	corpus, texts := filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "texts.jsonl")
	tinyCorpus(t, corpus, 300)
	tinyCorpus(t, texts, 50) // few: the levels run out and reuse them
	questions := &Searches{Warm: []string{"billing gateway"}, Timed: []string{"what about marker7", "marker250 Ingrid?", "zorvakquil snorlin"}}
	plan := Plan{
		Corpus: corpus, Throughput: texts, Project: "p1", Limit: 5,
		Levels: []int{1, 2}, SharedLevels: []int{2}, LevelMs: 150, Batch: 64,
		Rungs: []Rung{
			{Size: 100, WarmSaves: 2, LatencySaves: 10},
			{Size: 250, WarmSaves: 2, LatencySaves: 20, Search: questions},
		},
		Reopen: questions,
	}
	planFile := filepath.Join(dir, "plan.json")
	b, _ := json.Marshal(plan)
	if err := os.WriteFile(planFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	os.Mkdir(db, 0o700)
	rep, err := measure(context.Background(), planFile, db)
	if err != nil {
		t.Fatalf("measure: %v (report %+v)", err, rep)
	}

	if len(rep.Throughput) != 3 {
		t.Fatalf("throughput levels %+v, want 1 and 2 own, 2 shared", rep.Throughput)
	}
	for _, lv := range rep.Throughput {
		if lv.Saves == 0 || lv.Errors > 0 || lv.Latency.N != lv.Saves {
			t.Errorf("level %+v: want saves, no errors", lv)
		}
	}
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "ran out") {
		t.Errorf("notes %q: 50 texts cannot last 450 ms of saves, the reuse must be noted", rep.Notes)
	}
	if len(rep.Preload) != 2 || rep.Preload[1].From != 112 || rep.Preload[1].To != 250 {
		t.Errorf("preload %+v: want 0 → 100, then 112 → 250", rep.Preload)
	}
	if len(rep.SaveLat) != 2 || rep.SaveLat[1].Latency.N != 20 {
		t.Errorf("save latency %+v: want two rungs, 20 timed saves at the second", rep.SaveLat)
	}
	// Two of three questions name a stored memory; the nonsense one finds
	// nothing (the control that results are not simply always there).
	if len(rep.Search) != 2 {
		t.Fatalf("search samples %+v, want scopes default and all", rep.Search)
	}
	for _, s := range rep.Search {
		if s.Latency.N != 3 || s.Errors > 0 || s.Empty != 1 || s.MeanHits == 0 {
			t.Errorf("search %+v: want 3 timed, no errors, 1 without results", s)
		}
	}
	ro := rep.Reopen
	if ro == nil || ro.Error != "" || ro.FirstAnswerS <= 0 || ro.RSSMiB <= 0 || ro.MaxRSSMiB < ro.RSSMiB || ro.Search.Latency.N != 3 || ro.Memories != 272 {
		t.Errorf("reopen %+v: want a timed open, an RSS, 3 searches over 272 memories", ro)
	}
	if rep.Disk.Total <= 0 || rep.Disk.Total != rep.Disk.DB+rep.Disk.WAL+rep.Disk.SHM {
		t.Errorf("disk %+v", rep.Disk)
	}
	if !strings.Contains(rep.Driver, "SQLite 3.") {
		t.Errorf("driver %q names no SQLite version", rep.Driver)
	}
}

// TestScopes checks the default scope against the whole store on the same
// question: a memory of another project is found in scope all only.
func TestScopes(t *testing.T) {
	ctx := context.Background()
	db, err := openDB(ctx, filepath.Join(t.TempDir(), "s.db"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range []Memory{{"", "global kestrel note"}, {"p1", "p1 kestrel note"}, {"p2", "p2 kestrel note"}, {"p2", "osprey only in p2"}} {
		if err := save(ctx, db, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		query string
		scope Scope
		want  int
	}{
		{"kestrel", ScopeAll, 3},
		{"kestrel", ScopeDefault, 2}, // the global one and p1's
		{"osprey", ScopeAll, 1},
		{"osprey", ScopeDefault, 0},
		{"where is the osprey?", ScopeAll, 1},
		{"???", ScopeAll, 0},
	} {
		got, err := search(ctx, db, tc.query, tc.scope, "p1", 5)
		if err != nil || got != tc.want {
			t.Errorf("search(%q, %s) = %d, %v; want %d", tc.query, tc.scope, got, err, tc.want)
		}
	}
}

// TestDurabilitySettings checks that every connection runs with what the
// report claims: WAL, synchronous=FULL, the busy timeout, and that a save
// is on disk for another connection once it returns.
func TestDurabilitySettings(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d.db")
	db, err := openDB(ctx, path, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		pragma, want string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"busy_timeout", "30000"},
	} {
		var got string
		if err := db.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil || got != tc.want {
			t.Errorf("PRAGMA %s = %q, %v; want %q", tc.pragma, got, err, tc.want)
		}
	}
	if err := save(ctx, db, Memory{Text: "kestrel"}); err != nil {
		t.Fatal(err)
	}
	other, err := openDB(ctx, path, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if n, err := search(ctx, other, "kestrel", ScopeAll, "", 5); n != 1 || err != nil {
		t.Errorf("another connection found %d, %v after the save returned; want 1", n, err)
	}
	if d := diskOf(path); d.WAL == 0 {
		t.Errorf("disk %+v: a WAL database with a connection open has a -wal file", d)
	}
}

// sampleReport fills every field of a report once.
func sampleReport() *Report {
	lat := Lat{N: 300, P50: 1.5, P90: 3, P99: 9, Max: 12, Mean: 2}
	s := SearchAt{Memories: 100_000, Scope: ScopeDefault, Latency: lat, MeanHits: 4.5, Empty: 30, Errors: 1, FirstErr: "search: busy"}
	return &Report{
		Driver: driverName, Settings: "WAL",
		Throughput: []Level{{Writers: 16, Conns: "own", Saves: 900, Seconds: 3, PerSecond: 300, Latency: lat, Before: 10, Errors: 2, FirstErr: "commit: busy"}},
		Preload:    []Load{{From: 0, To: 1000, Batch: 1000, Seconds: 0.1, PerSecond: 10_000}},
		SaveLat:    []AtSize{{Memories: 1000, Latency: lat}},
		Search:     []SearchAt{s},
		Reopen:     &Reopen{Memories: 100_510, FirstAnswerS: 0.12, Search: s, RSSMiB: 20, MaxRSSMiB: 21, Error: "none"},
		Disk:       Disk{DB: 3, WAL: 2, SHM: 1, Total: 6},
		Notes:      []string{"a note"}, Seconds: 80, Error: "an error",
	}
}

// TestReportGolden pins the report's JSON to testdata/report.json, which
// scripts/bench's own test decodes into its mirror of these types with
// unknown fields refused: a field renamed on one side fails a test.
// Run with FTS5_UPDATE_GOLDEN=1 to rewrite it after a deliberate change.
func TestReportGolden(t *testing.T) {
	got, err := json.MarshalIndent(sampleReport(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "report.json")
	if os.Getenv("FTS5_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(want)) != string(got) {
		t.Errorf("the report's JSON changed; scripts/bench reads it (fts5.go): update both, then FTS5_UPDATE_GOLDEN=1\ngot:\n%s", got)
	}
}

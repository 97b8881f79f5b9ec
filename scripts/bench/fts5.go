package main

// The anchor people would pick instead of IHMT: SQLite FTS5, fed the same
// memories and asked the same questions. The runner lives in its own
// module (scripts/fts5) so the SQLite driver stays out of IHMT's go.mod;
// this file builds it, writes its plan and reads its figures. It runs after
// ihmtd's phases, so its searches are the very ones ihmtd answered (each
// sample's questions are drawn from the count ihmtd's were, see questions).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/corpus"
	"github.com/ihmt-dev/ihmt/pkg/recall"
)

// FTS5Results are the runner's figures (scripts/fts5's Report), and how
// long its build took here.
type FTS5Results struct {
	Driver       string       `json:"driver"`
	Settings     string       `json:"settings"`
	Throughput   []FTS5Level  `json:"throughput"`
	Preload      []FTS5Load   `json:"preload"`
	SaveLatency  []FTS5AtSize `json:"save_latency"`
	Search       []FTS5Search `json:"search"`
	Reopen       *FTS5Reopen  `json:"reopen,omitempty"`
	Disk         FTS5Disk     `json:"disk"`
	Notes        []string     `json:"notes,omitempty"`
	Seconds      float64      `json:"total_seconds"`
	Error        string       `json:"error,omitempty"`
	BuildSeconds float64      `json:"build_seconds"`
}

// FTS5Level is a level of concurrent saves: writers each on a connection
// of their own ("own"), or sharing one ("shared").
type FTS5Level struct {
	Writers   int     `json:"writers"`
	Conns     string  `json:"connections"`
	Saves     int     `json:"saves"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"saves_per_second"`
	Latency   Lat     `json:"latency"`
	Before    int     `json:"memories_before"`
	Errors    int     `json:"errors"`
	FirstErr  string  `json:"first_error,omitempty"`
}

// FTS5Load is a stage of the bulk load, Batch memories a transaction.
type FTS5Load struct {
	From      int     `json:"from"`
	To        int     `json:"to"`
	Batch     int     `json:"batch"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"memories_per_second"`
}

type FTS5AtSize struct {
	Memories int `json:"memories"`
	Latency  Lat `json:"latency"`
}

type FTS5Search struct {
	Memories int     `json:"memories"`
	Scope    string  `json:"scope"`
	Latency  Lat     `json:"latency"`
	MeanHits float64 `json:"mean_results"`
	Empty    int     `json:"searches_without_results"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
}

// FTS5Reopen is a fresh process opening the loaded database.
type FTS5Reopen struct {
	Memories     int        `json:"memories"`
	FirstAnswerS float64    `json:"open_to_first_answer_seconds"`
	Search       FTS5Search `json:"search"`
	RSSMiB       float64    `json:"rss_mib"`
	MaxRSSMiB    float64    `json:"max_rss_mib"`
	Error        string     `json:"error,omitempty"`
}

type FTS5Disk struct {
	DB    int64 `json:"db"`
	WAL   int64 `json:"wal"`
	SHM   int64 `json:"shm"`
	Total int64 `json:"total"`
}

// fts5Plan is the runner's Plan (scripts/fts5/plan.go).
type fts5Plan struct {
	Corpus       string         `json:"corpus"`
	Throughput   string         `json:"throughput_corpus"`
	Project      string         `json:"project"`
	Limit        int            `json:"limit"`
	Levels       []int          `json:"levels"`
	SharedLevels []int          `json:"shared_levels"`
	LevelMs      int            `json:"level_ms"`
	Batch        int            `json:"bulk_batch"`
	Rungs        []fts5Rung     `json:"rungs"`
	Reopen       *fts5Questions `json:"reopen,omitempty"`
}

type fts5Rung struct {
	Size         int            `json:"size"`
	WarmSaves    int            `json:"warm_saves"`
	LatencySaves int            `json:"latency_saves"`
	Search       *fts5Questions `json:"search,omitempty"`
}

type fts5Questions struct {
	Warm  []string `json:"warm"`
	Timed []string `json:"timed"`
}

// A line of a corpus file.
type fts5Memory struct {
	Project string `json:"project"`
	Text    string `json:"text"`
}

const (
	searchWarmUps = 20    // untimed searches before each sample, both sides
	warmSaves     = 10    // untimed saves before each save-latency sample
	fts5Batch     = 1_000 // memories a transaction in the FTS5 bulk load
	// fts5TextRate bounds the throughput texts written for the runner:
	// saves a second it could reach on this machine's kind, and more.
	fts5TextRate = 5_000
	// fts5Searches caps FTS5's timed searches a sample: the first of the
	// questions ihmtd answered, as many as keep a full run's FTS5 pass to
	// minutes (its searches at 100k take about 0.1 s each here, so ihmtd's
	// 2,000 a sample would add ten minutes a run). A p99 over 300 is the
	// third slowest. A -quick run asks fts5QuickSearches, to keep CI's
	// smoke run short.
	fts5Searches      = 300
	fts5QuickSearches = 100
)

// questions are a search sample's queries: the warm-ups, then n timed,
// drawn from memories [0, of). ihmtd's samples and FTS5's both come from
// here, so the same (seed, of) gives both the same questions.
func questions(seed uint64, of, n int) (warm, timed []string) {
	r := rand.New(rand.NewPCG(seed, uint64(of)))
	for range searchWarmUps {
		warm = append(warm, corpus.Query(r, seed, of))
	}
	for range n {
		timed = append(timed, corpus.Query(r, seed, of))
	}
	return warm, timed
}

// fts5Phase builds the runner, plans it after the run so far and reads its
// figures into res.FTS5.
func (b *bench) fts5Phase(ctx context.Context, res *Results) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	dir := filepath.Join(b.tmp, "fts5")
	if err := os.MkdirAll(filepath.Join(dir, "db"), 0o700); err != nil {
		return err
	}
	f := &FTS5Results{}
	res.FTS5 = f
	progress("SQLite FTS5: building the runner (scripts/fts5)")
	t := time.Now()
	exe := filepath.Join(b.bin, "fts5bench")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", exe, ".")
	cmd.Dir = filepath.Join(root, "scripts", "fts5")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build scripts/fts5: %v\n%s", err, msg)
	}
	f.BuildSeconds = time.Since(t).Seconds()
	plan, err := b.fts5Plan(dir, res)
	if err != nil {
		return err
	}
	planFile := filepath.Join(dir, "plan.json")
	pb, _ := json.Marshal(plan)
	if err := os.WriteFile(planFile, pb, 0o600); err != nil {
		return err
	}
	progress("SQLite FTS5: the same corpus and questions (%d memories)", fts5Need(plan))
	run := exec.CommandContext(ctx, exe, "-plan", planFile, "-dir", filepath.Join(dir, "db"))
	run.Stderr = os.Stderr
	out, err := run.Output()
	build := f.BuildSeconds
	if jerr := json.Unmarshal(bytes.TrimSpace(out), f); jerr != nil && err == nil {
		err = fmt.Errorf("read its report: %w", jerr)
	}
	f.BuildSeconds = build
	if err != nil {
		if f.Error == "" {
			f.Error = err.Error()
		}
		return fmt.Errorf("SQLite FTS5 runner: %s", f.Error)
	}
	return nil
}

// fts5Plan writes the corpus files and plans the runner's phases as the
// bench ran ihmtd's: the same levels for as long, the ladder's sizes with
// the same saves timed, and each search sample's questions drawn as
// ihmtd's were.
func (b *bench) fts5Plan(dir string, res *Results) (*fts5Plan, error) {
	cfg := b.cfg
	p := &fts5Plan{
		Corpus: filepath.Join(dir, "ladder.jsonl"), Throughput: filepath.Join(dir, "throughput.jsonl"),
		Project: corpus.ProjectName(0), Limit: recall.DefaultLimit,
		Levels: cfg.levels, SharedLevels: []int{cfg.levels[len(cfg.levels)-1]}, LevelMs: int(cfg.levelDur / time.Millisecond), Batch: fts5Batch,
	}
	limit := fts5Searches
	if cfg.quick {
		limit = fts5QuickSearches
	}
	next := 0
	for _, size := range cfg.sizes {
		rung := fts5Rung{Size: size, WarmSaves: warmSaves, LatencySaves: cfg.latencySaves}
		next = max(next, size) + warmSaves + cfg.latencySaves
		if size >= cfg.searchAt {
			warm, timed := questions(cfg.seed, askedOf(res.Search, size, next), cfg.searches)
			rung.Search = &fts5Questions{warm, timed[:min(len(timed), limit)]}
		}
		p.Rungs = append(p.Rungs, rung)
	}
	of := res.Restart.Search.QueriesOf
	if of == 0 {
		of = next
	}
	warm, timed := questions(cfg.seed, of, cfg.searches)
	p.Reopen = &fts5Questions{warm, timed[:min(len(timed), limit)]}
	if err := writeCorpus(p.Corpus, cfg.seed, next); err != nil {
		return nil, err
	}
	texts := max(2_000, int(cfg.levelDur.Seconds()*fts5TextRate)*(len(p.Levels)+len(p.SharedLevels)))
	return p, writeCorpus(p.Throughput, cfg.seed+1, texts)
}

// askedOf is the count ihmtd's questions at the rung of size were drawn
// from, or stored (the memories the ladder has saved by then) when ihmtd
// did not search there. ihmtd searched that rung holding between size and
// stored memories (the shim's saves come after its searches).
func askedOf(ss []SearchAt, size, stored int) int {
	for _, s := range ss {
		if s.Leaves >= int64(size) && s.Leaves <= int64(stored) && s.QueriesOf > 0 && !s.RealDaemon {
			return s.QueriesOf
		}
	}
	return stored
}

func fts5Need(p *fts5Plan) int {
	n := 0
	for _, r := range p.Rungs {
		n = max(n, r.Size) + r.WarmSaves + r.LatencySaves
	}
	return n
}

// writeCorpus writes memories [0, n) of seed as the bench saves them: the
// text and the project (none for a global memory).
func writeCorpus(file string, seed uint64, n int) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for i := range n {
		proj, global := corpus.ProjectOf(i)
		if global {
			proj = ""
		}
		if err := enc.Encode(fts5Memory{Project: proj, Text: corpus.Memory(seed, i)}); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", file, err)
	}
	return f.Close()
}

// fts5Key marks a figure as SQLite FTS5's: "fts5:" and the key of ihmtd's
// figure it stands beside (or a key of its own when ihmtd has none).
const fts5Key = "fts5:"

// figures are FTS5's headline numbers, each keyed after the ihmtd figure
// it is measured like, so tables set the two side by side.
func (f *FTS5Results) figures() []Figure {
	if f == nil {
		return nil
	}
	var fs []Figure
	add := func(fig Figure, name string) {
		if fig.Value > 0 {
			fig.Key, fig.Name, fig.Target = fts5Key+fig.Key, "SQLite FTS5: "+name, 0
			fs = append(fs, fig)
		}
	}
	for _, lv := range f.Throughput {
		key, name := fmt.Sprintf("saves_per_s_%d", lv.Writers), fmt.Sprintf("durable saves/s, %d writer(s), each its own connection", lv.Writers)
		if lv.Conns == "shared" {
			key, name = key+"_shared", fmt.Sprintf("durable saves/s, %d writers sharing one connection", lv.Writers)
		}
		add(Figure{Key: key, Unit: "saves/s", Value: lv.PerSecond, Higher: true}, name)
	}
	for _, at := range f.SaveLatency {
		add(Figure{Key: fmt.Sprintf("save_p50_%d", roundSize(int64(at.Memories))), Unit: "ms", Value: at.Latency.P50}, "save p50 at "+sizeName(int64(at.Memories)))
	}
	if n := len(f.SaveLatency); n > 0 {
		at := f.SaveLatency[n-1]
		add(Figure{Key: fmt.Sprintf("save_p99_%d", roundSize(int64(at.Memories))), Unit: "ms", Value: at.Latency.P99}, "save p99 at "+sizeName(int64(at.Memories)))
	}
	for _, s := range f.Search {
		for _, fig := range searchFigures(s.asIHMT(), "") {
			add(fig, fig.Name)
		}
	}
	if ro := f.Reopen; ro != nil && ro.Error == "" && ro.FirstAnswerS > 0 {
		n := int64(ro.Memories)
		add(Figure{Key: fmt.Sprintf("open_s_%d", roundSize(n)), Unit: "s", Value: ro.FirstAnswerS}, "open "+sizeName(n)+" database → first answer (a fresh process)")
		for _, fig := range searchFigures(ro.Search.asIHMT(), " (real ihmtd)") {
			add(fig, strings.Replace(fig.Name, "(real ihmtd)", "(a fresh process)", 1))
		}
		add(Figure{Key: fmt.Sprintf("ihmtd_rss_mib_%d", roundSize(n)), Unit: "MiB", Value: ro.RSSMiB}, "RSS at "+sizeName(n)+" after the searches (a fresh process)")
	}
	if f.Disk.Total > 0 && len(f.SaveLatency) > 0 {
		n := int64(f.SaveLatency[len(f.SaveLatency)-1].Memories)
		add(Figure{Key: fmt.Sprintf("store_mib_%d", roundSize(n)), Unit: "MiB", Value: mib(uint64(f.Disk.Total))}, "database on disk at "+sizeName(n)+" (db + wal + shm)")
	}
	return fs
}

// asIHMT is a sample in the bench's own shape, for searchFigures.
func (s FTS5Search) asIHMT() SearchAt {
	return SearchAt{Leaves: int64(s.Memories), Scope: s.Scope, Latency: s.Latency}
}

// sideBySide pairs each ihmtd figure with FTS5's measured like it; an FTS5
// figure ihmtd has no counterpart for is a row of its own.
type pairRow struct {
	Spread
	fts5 *Spread
}

func sideBySide(ss []Spread) (rows []pairRow, any bool) {
	have := map[string]bool{}
	for _, s := range ss {
		if !strings.HasPrefix(s.Key, fts5Key) {
			have[s.Key] = true
		}
	}
	fts := map[string]Spread{}
	for _, s := range ss {
		if k, ok := strings.CutPrefix(s.Key, fts5Key); ok && have[k] {
			fts[k] = s
		}
	}
	for _, s := range ss {
		if k, ok := strings.CutPrefix(s.Key, fts5Key); ok {
			any = true
			if have[k] {
				continue // shown beside ihmtd's
			}
		}
		row := pairRow{Spread: s}
		if f, ok := fts[s.Key]; ok {
			row.fts5 = &f
		}
		rows = append(rows, row)
	}
	return rows, any
}

// cells are FTS5's median [range] and whether ihmtd's median is ahead.
func (r pairRow) cells() []string {
	if r.fts5 == nil {
		return []string{"", ""}
	}
	return []string{r.fts5.String(), ahead(r.Median, r.fts5.Median, r.Higher)}
}

// ahead says whether ihmtd's figure beats FTS5's: "yes" or "no".
func ahead(ihmtd, fts5 float64, higher bool) string {
	if ihmtd > fts5 == higher && ihmtd != fts5 {
		return "yes"
	}
	return "no"
}

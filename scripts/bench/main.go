// Command bench measures IHMT end to end on this machine and prints the
// figures: durable saves per second through the daemon (real gRPC over a
// real Unix socket) with 1, 4 and 16 clients, save latency as the store
// grows from 1,000 to 100,000 leaves, search latency, the MCP shim's start
// and tool-call round trip, memory, and how long a large store takes to open.
//
//	go run ./scripts/bench          # full run, the whole ladder
//	go run ./scripts/bench -quick   # CI smoke run: small sizes, every phase
//	go run ./scripts/bench -json    # machine-readable figures on stdout
//
// Figures are printed, never asserted: the targets are shown beside them.
// The daemon runs in this process (daemon.Run in a goroutine), so memory
// figures are the bench process's; a real ihmtd is also started on the
// loaded store to measure its open time and resident size.
//
// Numbers that hold: -runs K measures K times and gives each headline
// figure's median and [min–max]; -record FILE keeps all runs with the date,
// the machine and the commit, and -table FILE prints README's "Honest
// numbers" table from such a record. -baseline REV builds a git revision
// beside this tree and measures both as real ihmtd processes on fresh
// stores, in turns (A B, B A, …), so a change's effect is a ratio from one
// run on one machine. -scale N bulk-loads N leaves into a real ihmtd
// through Import (exported records in batches; -bulk save for saves) and
// times saves, searches, its resident size and the open there.
//
// The anchor people would pick instead: after ihmtd's phases, a run (and
// each of -runs) stores the same memories in SQLite FTS5 and asks it the
// same questions (scripts/fts5, a module of its own built into the temp
// dir and run as a child process; see fts5.go), and every figure both
// measure is shown beside ihmtd's. -fts5=false skips it; -baseline and
// -scale do not run it.
//
//	go run ./scripts/bench -runs 3 -record r.json && go run ./scripts/bench -table r.json
//	go run ./scripts/bench -baseline HEAD~3 -runs 3
//	go run ./scripts/bench -scale 1000000
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/daemon"
	"github.com/ihmt-dev/ihmt/pkg/corpus"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

type config struct {
	quick, json, keep bool
	fts5              bool // the same corpus and questions through SQLite FTS5 (scripts/fts5)
	cpuprofile        string
	seed              uint64
	runs              int    // measurements in one invocation (-runs); comparison rounds with -baseline
	record, table     string // -record FILE, -table FILE
	baseline          string // a git revision to compare with (-baseline)
	compareAt         int    // the bulk-loaded size a comparison measures at
	scale             int    // -scale N: the scale run's size, 0 for none
	bulk              string // how the scale run loads: import or save

	levels        []int         // concurrent clients for the throughput phase
	levelDur      time.Duration // per level
	sizes         []int         // store sizes for the save-latency ladder
	searchAt      int           // the size the search target is stated for
	latencySaves  int           // sequential saves timed at each size
	searches      int           // sequential searches timed at each size
	preloadConns  int
	preloadPerCon int
	shimSpawns    int
	shimCalls     int
	coldStarts    int
}

func main() {
	var cfg config
	flag.BoolVar(&cfg.quick, "quick", false, "small sizes for a CI smoke run (< 30 s)")
	flag.BoolVar(&cfg.json, "json", false, "print the figures as JSON on stdout instead of tables")
	flag.BoolVar(&cfg.fts5, "fts5", true, "also store and search the same corpus with SQLite FTS5 (scripts/fts5) and report it beside ihmtd (not with -baseline or -scale)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary stores and binaries (their paths go to stderr)")
	flag.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile of the 16-client save phase (daemon and clients) to this file")
	flag.Uint64Var(&cfg.seed, "seed", 20260101, "seed of the generated memories and queries")
	flag.IntVar(&cfg.runs, "runs", 1, "measure this many times and print each figure's median and [min–max] (with -baseline: rounds of each build)")
	flag.StringVar(&cfg.record, "record", "", "write every run's figures, the date, the machine and the commit to this JSON file")
	flag.StringVar(&cfg.table, "table", "", "print README's \"Honest numbers\" table from a -record file, and measure nothing")
	flag.StringVar(&cfg.baseline, "baseline", "", "compare with this git revision (tag, commit, HEAD~3): both builds as real ihmtd, in turns")
	flag.IntVar(&cfg.scale, "scale", 0, "bulk-load this many leaves into a real ihmtd and time saves, searches, RSS and the open there")
	flag.StringVar(&cfg.bulk, "bulk", "import", "how -scale loads: import (exported records in batches) or save")
	flag.Parse()
	cfg.defaults()
	if err := cfg.check(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := dispatch(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// defaults sets the sizes of a full run or of a -quick one.
func (cfg *config) defaults() {
	cfg.levels = []int{1, 4, 16}
	cfg.preloadConns, cfg.preloadPerCon = 16, 4
	if cfg.quick {
		cfg.levelDur = 500 * time.Millisecond
		cfg.sizes = []int{1_000, 5_000}
		cfg.searchAt, cfg.compareAt = 5_000, 2_000
		cfg.latencySaves, cfg.searches = 100, 300
		cfg.shimSpawns, cfg.shimCalls, cfg.coldStarts = 5, 40, 1
		return
	}
	cfg.levelDur = 3 * time.Second
	cfg.sizes = []int{1_000, 10_000, 100_000}
	cfg.searchAt, cfg.compareAt = 10_000, 20_000
	cfg.latencySaves, cfg.searches = 500, 2000
	cfg.shimSpawns, cfg.shimCalls, cfg.coldStarts = 30, 200, 3
	if cfg.scale > 0 {
		cfg.latencySaves = 300
	}
}

func (cfg config) check() error {
	switch {
	case cfg.runs < 1:
		return errors.New("-runs takes a whole number from 1")
	case cfg.bulk != "import" && cfg.bulk != "save":
		return fmt.Errorf("-bulk is import or save, not %q", cfg.bulk)
	case cfg.scale < 0:
		return errors.New("-scale takes a number of leaves")
	case cfg.scale > 0 && cfg.baseline != "":
		return errors.New("-scale and -baseline are separate runs")
	}
	return nil
}

// dispatch runs what the flags ask for: a table from a record, a scale
// run, a comparison, or runs of the full (or -quick) measurement.
func dispatch(ctx context.Context, cfg config) error {
	if cfg.table != "" {
		rec, err := readRecord(cfg.table)
		if err != nil {
			return err
		}
		rec.markdown(os.Stdout)
		return nil
	}
	var rec *Record
	var err error
	switch {
	case cfg.scale > 0:
		rec, err = collect(ctx, cfg, runScale)
	case cfg.baseline != "":
		rec, err = runCompare(ctx, cfg)
	default:
		rec, err = collect(ctx, cfg, run)
	}
	if rec != nil {
		rec.output(cfg)
	}
	return err
}

// collect makes cfg.runs measurements with measure.
func collect(ctx context.Context, cfg config, measure func(context.Context, config) (*Results, error)) (*Record, error) {
	rec := newRecord(ctx)
	defer func() { rec.Figures = spreads(runFigures(rec.Runs)) }()
	for k := range cfg.runs {
		if cfg.runs > 1 {
			progress("run %d of %d", k+1, cfg.runs)
		}
		res, err := measure(ctx, cfg)
		if res != nil {
			rec.Runs = append(rec.Runs, res)
		}
		if err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// output prints a record: one run's full report as before, or with more
// runs, a comparison or a scale run, the figures; -json prints it whole,
// and -record writes it.
func (r *Record) output(cfg config) {
	if len(r.Runs) == 0 && (r.Comparison == nil || len(r.Comparison.Current) == 0) {
		return // nothing was measured
	}
	if cfg.record != "" {
		if err := writeRecord(cfg.record, r); err != nil {
			progress("%v", err)
		} else {
			progress("record written to %s", cfg.record)
		}
	}
	switch {
	case cfg.json && len(r.Runs) == 1 && r.Comparison == nil && cfg.scale == 0:
		writeJSON(os.Stdout, r.Runs[0])
	case cfg.json:
		writeJSON(os.Stdout, r)
	case r.Comparison != nil:
		r.Comparison.print(os.Stdout)
	case len(r.Runs) == 1 && cfg.scale == 0:
		r.Runs[0].print(os.Stdout, cfg)
	default:
		printFigures(os.Stdout, r.Figures, len(r.Runs))
		for _, res := range r.Runs[:min(1, len(r.Runs))] {
			for _, n := range res.Notes {
				fmt.Fprintf(os.Stdout, "- %s\n", n)
			}
		}
	}
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// Results are every figure of one run.
type Results struct {
	Mode         string       `json:"mode"`
	Env          Env          `json:"env"`
	Fsync        Lat          `json:"fsync_600B_baseline"`
	Create       Lat          `json:"create_rename_baseline"`
	BuildSeconds float64      `json:"build_seconds"`
	Throughput   []Throughput `json:"throughput"`
	LeafCatchUp  float64      `json:"leaf_files_catch_up_ms_after_throughput"`
	Preload      []Preload    `json:"preload"`
	SaveLatency  []AtSize     `json:"save_latency"`
	SaveRatios   []Ratio      `json:"save_p50_ratios"`
	Search       []SearchAt   `json:"search"`
	Memory       []Mem        `json:"memory"`
	StoreBytes   int64        `json:"store_bytes_at_max"`
	Shim         ShimResults  `json:"shim"`
	Restart      Restart      `json:"restart"`
	FTS5         *FTS5Results `json:"sqlite_fts5,omitempty"`
	Notes        []string     `json:"notes"`
	TotalSeconds float64      `json:"total_seconds"`
}

// Env describes the machine.
type Env struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPUs       int    `json:"cpus"`
	GoVersion  string `json:"go_version"`
	TempDir    string `json:"temp_dir"`
	TextBytes  [2]int `json:"text_bytes_min_max"`
	TextSample string `json:"text_sample"`
	// LoadStart and LoadEnd are /proc/loadavg at the start and the end: on
	// a shared machine, other processes' work shows in every figure.
	LoadStart string `json:"loadavg_start"`
	LoadEnd   string `json:"loadavg_end"`
}

// Throughput is one level of the concurrent-save phase.
type Throughput struct {
	Clients     int     `json:"clients"`
	Saves       int     `json:"saves"`
	Seconds     float64 `json:"seconds"`
	PerSecond   float64 `json:"saves_per_second"`
	Latency     Lat     `json:"latency"`
	StoreBefore int64   `json:"store_leaves_before"`
	Errors      int     `json:"errors"`
}

// Preload is one bulk-load stage.
type Preload struct {
	From      int64   `json:"from"`
	To        int64   `json:"to"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"saves_per_second"`
	InFlight  int     `json:"in_flight"`
	// Via is "import" for a stage loaded through Import (InFlight counts
	// its calls), "" for saves.
	Via    string `json:"via,omitempty"`
	Errors int    `json:"errors"`
	// LeafLagMs is how long after the last acknowledgement the leaf files
	// were all on disk (the log makes a save durable; files follow).
	LeafLagMs float64 `json:"leaf_files_lag_ms"`
}

// AtSize is a latency sample taken at a store size.
type AtSize struct {
	Leaves  int64 `json:"leaves"`
	Latency Lat   `json:"latency"`
}

// Ratio compares p50 save latency at a size with the smallest size.
type Ratio struct {
	Leaves int64   `json:"leaves"`
	VsBase int64   `json:"vs_leaves"`
	Ratio  float64 `json:"p50_ratio"`
}

// SearchAt is the search latency at one store size.
type SearchAt struct {
	Leaves      int64          `json:"leaves"`
	Scope       string         `json:"scope"`
	Latency     Lat            `json:"latency"`
	MeanScored  float64        `json:"mean_leaves_scored"`
	MeanVisible float64        `json:"mean_leaves_visible"`
	MeanNodes   float64        `json:"mean_nodes_read"`
	ViaTree     float64        `json:"share_via_tree"` // searches that descended the tree
	Verdicts    map[string]int `json:"verdicts"`
	ResponseKiB float64        `json:"mean_response_kib"`
	TargetP99Ms float64        `json:"target_p99_ms,omitempty"`
	Errors      int            `json:"errors"`
	RealDaemon  bool           `json:"real_ihmtd_process"`
	// QueriesOf is the count the questions were drawn from (see
	// questions): the FTS5 runner is asked the same ones.
	QueriesOf    int    `json:"queries_drawn_from"`
	FirstMessage string `json:"first_error,omitempty"`
}

// idleWait is how long the restart phase leaves the daemon idle before
// reading its resident size again: the daemon's idle time and check
// interval (memoryIdle and memoryCheck in daemon/memory.go), and a little
// more.
const idleWait = 12 * time.Second

// Restart is a real ihmtd opening the loaded store.
type Restart struct {
	Leaves      int64   `json:"leaves"`
	OpenSeconds float64 `json:"open_to_serving_seconds"`
	RSSMiB      float64 `json:"ihmtd_rss_mib"`
	MaxRSSMiB   float64 `json:"ihmtd_max_rss_mib"`
	// IdleRSSMiB is the resident size once the daemon has been idle long
	// enough to hand back what the searches left (see daemon/memory.go).
	IdleRSSMiB  float64  `json:"ihmtd_idle_rss_mib"`
	Search      SearchAt `json:"search"`
	StopSeconds float64  `json:"sigterm_to_exit_seconds"`
	// A shim's first call with no daemon running on this store: it starts
	// ihmtd and waits (client.Options.StartTimeout) for it to serve.
	ColdCallMs    float64 `json:"cold_shim_first_call_ms"`
	ColdServingMs float64 `json:"cold_autostarted_serving_after_ms"`
	ColdError     string  `json:"cold_shim_first_call_error,omitempty"`
	Error         string  `json:"error,omitempty"`
}

type bench struct {
	cfg  config
	tmp  string
	sock string // socket directory (short, under os.TempDir)
	bin  string // built binaries
	log  *slog.Logger
}

func run(ctx context.Context, cfg config) (*Results, error) {
	start := time.Now()
	res := &Results{Mode: "full"}
	if cfg.quick {
		res.Mode = "quick"
	}
	defer func() {
		res.TotalSeconds = time.Since(start).Seconds()
		res.Env.LoadEnd = loadavg()
	}()

	b, cleanup, err := newBench(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()

	res.Env = Env{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), TempDir: os.TempDir(), LoadStart: loadavg()}
	res.Env.TextBytes = [2]int{1 << 30, 0}
	for i := range 2000 {
		n := len(corpus.Memory(cfg.seed, i))
		res.Env.TextBytes[0], res.Env.TextBytes[1] = min(res.Env.TextBytes[0], n), max(res.Env.TextBytes[1], n)
	}
	res.Env.TextSample = corpus.Memory(cfg.seed, 7)
	if res.Fsync, err = fsyncBaseline(b.tmp, 200); err != nil {
		return res, fmt.Errorf("fsync baseline: %w", err)
	}
	if res.Create, err = createBaseline(b.tmp, 300); err != nil {
		return res, fmt.Errorf("create baseline: %w", err)
	}

	progress("building ihmt-mcp and ihmtd")
	t := time.Now()
	if err := b.build(ctx); err != nil {
		return res, err
	}
	res.BuildSeconds = time.Since(t).Seconds()

	if err := b.throughputPhase(ctx, res); err != nil {
		return res, err
	}
	if err := b.ladderPhase(ctx, res); err != nil {
		return res, err
	}
	b.coldStartPhase(ctx, res)
	if cfg.fts5 && ctx.Err() == nil {
		if err := b.fts5Phase(ctx, res); err != nil {
			return res, err
		}
	}
	return res, ctx.Err()
}

// newBench makes the temporary directories of one invocation; cleanup
// removes them unless -keep.
func newBench(cfg config) (*bench, func(), error) {
	b := &bench{cfg: cfg, log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	var err error
	if b.tmp, err = os.MkdirTemp("", "ihmt-bench-"); err != nil {
		return nil, nil, err
	}
	if b.sock, err = os.MkdirTemp("", "ihmtb"); err != nil {
		os.RemoveAll(b.tmp)
		return nil, nil, err
	}
	if cfg.keep {
		progress("keeping %s and %s", b.tmp, b.sock)
		return b, func() {}, nil
	}
	return b, func() { os.RemoveAll(b.tmp); os.RemoveAll(b.sock) }, nil
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// build compiles the shim and the daemon into the temp dir, side by side,
// which is where the shim looks for an ihmtd to auto-start.
func (b *bench) build(ctx context.Context) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	b.bin = filepath.Join(b.tmp, "bin")
	return buildAt(ctx, root, b.bin)
}

// buildAt compiles ihmt-mcp and ihmtd from the source tree at src into out.
func buildAt(ctx context.Context, src, out string) error {
	for _, pkg := range []string{"./shim/cmd/ihmt-mcp", "./daemon/cmd/ihmtd"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", out+"/", pkg)
		cmd.Dir = src
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s in %s: %v\n%s", pkg, src, err, msg)
		}
	}
	return nil
}

func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from inside the ihmt module (scripts/bench.sh does)")
	}
	return filepath.Dir(mod), nil
}

// An in-process daemon: daemon.Run in a goroutine.
type inproc struct {
	p      paths.Paths
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned err
	err    error
}

func (b *bench) startDaemon(ctx context.Context, name string) (*inproc, error) {
	p := paths.Paths{Data: filepath.Join(b.tmp, name), Socket: filepath.Join(b.sock, name+".sock")}
	dctx, cancel := context.WithCancel(ctx)
	d := &inproc{p: p, cancel: cancel, done: make(chan struct{})}
	go func() {
		d.err = daemon.Run(dctx, daemon.Config{Paths: p, Logger: b.log})
		close(d.done)
	}()
	if err := waitServing(ctx, p.Socket, d.done, func() error { return d.err }, 30*time.Second); err != nil {
		cancel()
		return nil, err
	}
	return d, nil
}

func (d *inproc) stop() error {
	d.cancel()
	<-d.done
	return d.err
}

// waitServing polls the health service until the daemon serves. exited is
// closed when the daemon has stopped, with exitErr saying why.
func waitServing(ctx context.Context, socket string, exited <-chan struct{}, exitErr func() error, timeout time.Duration) error {
	c, err := client.New(client.Options{Socket: socket})
	if err != nil {
		return err
	}
	defer c.Close()
	deadline := time.Now().Add(timeout)
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.Ping(pctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("daemon at %s not serving after %v: %w", socket, timeout, err)
		}
		select {
		case <-exited:
			return fmt.Errorf("daemon exited before serving: %v", exitErr())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func newClients(socket string, n int) ([]*client.Client, error) {
	cs := make([]*client.Client, n)
	for i := range cs {
		c, err := client.New(client.Options{Socket: socket, Caller: &ihmtv1.Caller{AgentName: "ihmt-bench", AgentVersion: "1", SessionId: fmt.Sprintf("bench-%d", i)}})
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	return cs, nil
}

func closeAll(cs []*client.Client) {
	for _, c := range cs {
		c.Close()
	}
}

// saveReq builds the request for memory i (outside any timing).
func saveReq(seed uint64, i int, session string) *ihmtv1.SaveRequest {
	proj, global := corpus.ProjectOf(i)
	req := &ihmtv1.SaveRequest{
		Caller:  &ihmtv1.Caller{AgentName: "ihmt-bench", AgentVersion: "1", SessionId: session, Project: proj},
		Content: corpus.Memory(seed, i),
	}
	if global {
		// Said from inside a project, but about the user.
		req.Caller.Project = corpus.ProjectName(i % corpus.Projects)
		req.Scope = ihmtv1.Scope_SCOPE_GLOBAL
	}
	return req
}

// saver hands out memory numbers to any number of goroutines and counts
// what the daemon answered.
type saver struct {
	seed   uint64
	next   atomic.Int64
	saved  atomic.Int64
	dups   atomic.Int64
	errs   atomic.Int64
	errMu  sync.Mutex
	errMsg string
}

func (s *saver) save(ctx context.Context, c *client.Client, session string) (time.Duration, error) {
	req := saveReq(s.seed, int(s.next.Add(1)-1), session)
	t := time.Now()
	resp, err := c.Save(ctx, req)
	d := time.Since(t)
	switch {
	case err != nil:
		s.errs.Add(1)
		s.errMu.Lock()
		if s.errMsg == "" {
			s.errMsg = err.Error()
		}
		s.errMu.Unlock()
	case resp.GetStatus() == ihmtv1.SaveStatus_SAVE_STATUS_SAVED:
		s.saved.Add(1)
	default:
		s.dups.Add(1)
	}
	return d, err
}

func (s *saver) firstErr() string {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.errMsg
}

// notes are the report's notes on a phase's saves: its first error, and
// how many saves were answered duplicate (hint says what that means).
func (s *saver) notes(phase, hint string) []string {
	var out []string
	if e := s.firstErr(); e != "" {
		out = append(out, phase+" phase error: "+e)
	}
	if n := s.dups.Load(); n > 0 {
		out = append(out, fmt.Sprintf("%s phase: %d saves answered duplicate%s", phase, n, hint))
	}
	return out
}

func storeLeaves(ctx context.Context, socket string) int64 {
	c, err := client.New(client.Options{Socket: socket})
	if err != nil {
		return -1
	}
	defer c.Close()
	st, err := c.Stats(ctx)
	if err != nil {
		return -1
	}
	return st.GetMemories()
}

// throughputPhase: a fresh store, each client its own connection with one
// save in flight at a time (as an agent's shim does), for a fixed time.
func (b *bench) throughputPhase(ctx context.Context, res *Results) error {
	d, err := b.startDaemon(ctx, "throughput")
	if err != nil {
		return err
	}
	defer d.stop()
	if err := b.throughputLevels(ctx, d.p.Socket, b.cfg.levels, res); err != nil {
		return err
	}
	res.LeafCatchUp = b.leafLag(ctx, d.p, 60*time.Second)
	return nil
}

// throughputLevels runs the levels in turn on one store, with texts of
// their own (the ladder's are numbered from 0 with the bench's seed).
func (b *bench) throughputLevels(ctx context.Context, socket string, levels []int, res *Results) error {
	sv := &saver{seed: b.cfg.seed + 1}
	for _, n := range levels {
		progress("throughput: %d concurrent client(s) for %v", n, b.cfg.levelDur)
		tp, err := b.throughputLevel(ctx, socket, sv, n)
		if err != nil {
			return err
		}
		res.Throughput = append(res.Throughput, tp)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	res.Notes = append(res.Notes, sv.notes("throughput", " (the generator should make every text unique)")...)
	return nil
}

// throughputLevel saves for the level's time through n clients, each its
// own connection with one save in flight; the 16-client level is the one
// -cpuprofile profiles.
func (b *bench) throughputLevel(ctx context.Context, socket string, sv *saver, n int) (Throughput, error) {
	cs, err := newClients(socket, n)
	if err != nil {
		return Throughput{}, err
	}
	// Warm up: dial every connection.
	for i, c := range cs {
		sv.save(ctx, c, fmt.Sprintf("warm-%d", i))
	}
	before := storeLeaves(ctx, socket)
	errsBefore := sv.errs.Load()
	var prof *os.File
	if n == 16 && b.cfg.cpuprofile != "" {
		if prof, err = os.Create(b.cfg.cpuprofile); err != nil {
			return Throughput{}, err
		}
		pprof.StartCPUProfile(prof)
	}
	lat := make([][]time.Duration, n)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(b.cfg.levelDur)
	for k := range n {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				dur, err := sv.save(ctx, cs[k], fmt.Sprintf("tp-%d", k))
				if err == nil {
					lat[k] = append(lat[k], dur)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
		progress("CPU profile of the 16-client phase written to %s", b.cfg.cpuprofile)
	}
	closeAll(cs)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return Throughput{
		Clients: n, Saves: len(all), Seconds: elapsed.Seconds(), PerSecond: float64(len(all)) / elapsed.Seconds(),
		Latency: summarize(all), StoreBefore: before, Errors: int(sv.errs.Load() - errsBefore),
	}, nil
}

// leafLag waits until every memory has its leaf file and says how long that
// took from now (the last acknowledgement was just before).
func (b *bench) leafLag(ctx context.Context, p paths.Paths, timeout time.Duration) float64 {
	want := storeLeaves(ctx, p.Socket)
	start := time.Now()
	for {
		t := time.Now()
		if countLeafFiles(p.Data) >= want {
			return ms(time.Since(start))
		}
		if time.Since(start) > timeout || ctx.Err() != nil {
			return -1
		}
		// Walking a large store's files takes a while (seconds at 1M); walk
		// no more than a quarter of the time, so the walk does not slow the
		// writer it is waiting for on two cores.
		time.Sleep(max(20*time.Millisecond, 3*time.Since(t)))
	}
}

// preload saves memories until the store holds to leaves, through many
// connections with several saves in flight on each, so group commit batches
// them. It reports its own rate: the bulk-load figure.
func (b *bench) preload(ctx context.Context, p paths.Paths, sv *saver, to int64, res *Results) error {
	from := storeLeaves(ctx, p.Socket)
	if from >= to {
		return nil
	}
	cs, err := newClients(p.Socket, b.cfg.preloadConns)
	if err != nil {
		return err
	}
	defer closeAll(cs)
	inFlight := b.cfg.preloadConns * b.cfg.preloadPerCon
	progress("preload: %s → %s leaves, %d saves in flight over %d connections", thousands(from), thousands(to), inFlight, len(cs))
	var remaining atomic.Int64
	remaining.Store(to - from)
	errsBefore := sv.errs.Load()
	savedBefore := sv.saved.Load()
	start := time.Now()
	stopTicker := b.ticker(func() {
		n := sv.saved.Load() - savedBefore
		progress("preload: %s / %s leaves, %s saves/s", thousands(from+n), thousands(to), thousands(int64(float64(n)/time.Since(start).Seconds())))
	})
	var wg sync.WaitGroup
	for k := range inFlight {
		c := cs[k%len(cs)]
		wg.Go(func() {
			for remaining.Add(-1) >= 0 && ctx.Err() == nil {
				if _, err := sv.save(ctx, c, fmt.Sprintf("preload-%d", k)); err != nil && sv.errs.Load()-errsBefore > 100 {
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopTicker()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	pl := Preload{From: from, To: to, Seconds: elapsed.Seconds(), PerSecond: float64(to-from) / elapsed.Seconds(), InFlight: inFlight, Errors: int(sv.errs.Load() - errsBefore)}
	if pl.Errors > 100 {
		return fmt.Errorf("preload: %d errors, first: %s", pl.Errors, sv.firstErr())
	}
	pl.LeafLagMs = b.leafLag(ctx, p, 120*time.Second)
	progress("preload: %s leaves in %.1f s (%s saves/s); leaf files caught up %s later", thousands(to), pl.Seconds, thousands(int64(pl.PerSecond)), fmtMs(pl.LeafLagMs))
	res.Preload = append(res.Preload, pl)
	return nil
}

// saveLatency: one client, one save at a time.
func (b *bench) saveLatency(ctx context.Context, p paths.Paths, sv *saver) (AtSize, error) {
	cs, err := newClients(p.Socket, 1)
	if err != nil {
		return AtSize{}, err
	}
	defer closeAll(cs)
	for range 10 { // warm-up: dial, first-use costs
		sv.save(ctx, cs[0], "latency")
	}
	at := AtSize{Leaves: storeLeaves(ctx, p.Socket)}
	var ds []time.Duration
	for range b.cfg.latencySaves {
		d, err := sv.save(ctx, cs[0], "latency")
		if err != nil {
			continue
		}
		ds = append(ds, d)
	}
	at.Latency = summarize(ds)
	return at, ctx.Err()
}

// searchLatency: one client, one search at a time, from a caller in project
// svc-0 (so the default scope sees the global memories and that project's).
func (b *bench) searchLatency(ctx context.Context, socket string, n int, scope ihmtv1.SearchScope, storeN int) (SearchAt, error) {
	cs, err := newClients(socket, 1)
	if err != nil {
		return SearchAt{}, err
	}
	defer closeAll(cs)
	c := cs[0]
	caller := &ihmtv1.Caller{AgentName: "ihmt-bench", AgentVersion: "1", SessionId: "search", Project: corpus.ProjectName(0)}
	warm, queries := questions(b.cfg.seed, storeN, n)
	at := SearchAt{Leaves: storeLeaves(ctx, socket), Scope: "default", Verdicts: map[string]int{}, QueriesOf: storeN}
	if scope == ihmtv1.SearchScope_SEARCH_SCOPE_ALL {
		at.Scope = "all"
	}
	// The steady state: the tree has taken in every save (it consolidates
	// in the background; a search that finds it busy uses the index).
	if _, err := c.Consolidate(ctx, &ihmtv1.ConsolidateRequest{Caller: caller}); err != nil {
		return SearchAt{}, fmt.Errorf("consolidate before searching: %w", err)
	}
	for _, q := range warm {
		c.Search(ctx, &ihmtv1.SearchRequest{Caller: caller, Query: q, Scope: scope})
	}
	var ds []time.Duration
	var scored, visible, nodes, viaTree, bytes float64
	for _, q := range queries {
		t := time.Now()
		resp, err := c.Search(ctx, &ihmtv1.SearchRequest{Caller: caller, Query: q, Scope: scope})
		d := time.Since(t)
		if err != nil {
			at.Errors++
			if at.FirstMessage == "" {
				at.FirstMessage = fmt.Sprintf("%q: %v", q, err)
			}
			continue
		}
		ds = append(ds, d)
		scored += float64(resp.GetCoverage().GetLeavesScored())
		visible += float64(resp.GetCoverage().GetLeavesVisible())
		nodes += float64(resp.GetCoverage().GetNodesRead())
		if resp.GetCoverage().GetViaTree() {
			viaTree++
		}
		bytes += float64(protoSize(resp))
		at.Verdicts[strings.ToLower(strings.TrimPrefix(resp.GetStatus().String(), "SEARCH_STATUS_"))]++
	}
	at.Latency = summarize(ds)
	if k := float64(len(ds)); k > 0 {
		at.MeanScored, at.MeanVisible, at.ResponseKiB = scored/k, visible/k, bytes/k/1024
		at.MeanNodes, at.ViaTree = nodes/k, viaTree/k
	}
	return at, ctx.Err()
}

// ladderPhase grows one store through the sizes, timing saves at each, and
// searches, memory and the shim at the sizes the targets name.
func (b *bench) ladderPhase(ctx context.Context, res *Results) error {
	d, err := b.startDaemon(ctx, "ladder")
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			d.stop()
		}
	}()
	// The ladder's memories are numbered from 0, so queries can regenerate
	// any stored text from its number.
	sv := &saver{seed: b.cfg.seed}
	for _, size := range b.cfg.sizes {
		if err := b.loadAndTime(ctx, d.p, sv, size, res, size >= b.cfg.searchAt); err != nil {
			return err
		}
		stored := int(sv.next.Load())
		if size >= b.cfg.searchAt {
			res.Memory = append(res.Memory, memSample(storeLeaves(ctx, d.p.Socket)))
		}
		if size == b.cfg.searchAt {
			b.shimPhase(ctx, b.bin, d.p, res, stored)
		}
	}
	res.Notes = append(res.Notes, sv.notes("ladder", "")...)
	base := res.SaveLatency[0]
	for _, at := range res.SaveLatency[1:] {
		res.SaveRatios = append(res.SaveRatios, Ratio{Leaves: at.Leaves, VsBase: base.Leaves, Ratio: at.Latency.P50 / base.Latency.P50})
	}
	leaves := storeLeaves(ctx, d.p.Socket)
	stopped = true
	if err := d.stop(); err != nil {
		return fmt.Errorf("stop daemon: %w", err)
	}
	res.StoreBytes = dirSize(d.p.Data)
	b.restartPhase(ctx, d.p, leaves, res)

	// A session starting after a reboot: the shim's first call auto-starts
	// ihmtd on the loaded store and must wait for it to open.
	progress("cold start on the loaded store: ihmt-mcp's first call auto-starts ihmtd on %s leaves", thousands(leaves))
	c := b.coldStart(ctx, d.p.Data, filepath.Join(b.sock, "cold-loaded", "s.sock"))
	res.Restart.ColdCallMs, res.Restart.ColdServingMs = ms(c.call), ms(c.serving)
	if c.err != nil {
		res.Restart.ColdError = c.err.Error()
	}
	return nil
}

// searchesAt times searches at one size of the ladder, in the default scope
// and in scope all; the target is set at the size it names.
func (b *bench) searchesAt(ctx context.Context, socket string, size, stored int, res *Results) error {
	for _, scope := range []ihmtv1.SearchScope{ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED, ihmtv1.SearchScope_SEARCH_SCOPE_ALL} {
		progress("search latency at %s leaves, scope %s: %d sequential searches", thousands(int64(size)), map[bool]string{true: "all", false: "default"}[scope == ihmtv1.SearchScope_SEARCH_SCOPE_ALL], b.cfg.searches)
		s, err := b.searchLatency(ctx, socket, b.cfg.searches, scope, stored)
		if err != nil {
			return err
		}
		if size == b.cfg.searchAt {
			s.TargetP99Ms = 5
		}
		res.Search = append(res.Search, s)
	}
	return nil
}

// shimPhase spawns ihmt-mcp against the ladder daemon: spawn→initialize and
// the first tool call, N times; then the steady round trip in one shim.
func (b *bench) shimPhase(ctx context.Context, bin string, p paths.Paths, res *Results, stored int) {
	s := &res.Shim
	s.Spawns = b.cfg.shimSpawns
	s.StoreLeaves = storeLeaves(ctx, p.Socket)
	sh := shimSession{
		bin:  filepath.Join(bin, "ihmt-mcp"),
		env:  shimEnv(p.Socket, p.Data, corpus.ProjectName(0)),
		seed: b.cfg.seed + 2, // texts of their own, so no save is a duplicate
	}
	progress("ihmt-mcp: %d spawns (initialize, first save_memory), then %d steady calls of each tool", b.cfg.shimSpawns, b.cfg.shimCalls)
	// One untimed spawn first, so the binary is in the page cache.
	if m, err := startShim(sh.bin, sh.env); err == nil {
		m.initialize()
		m.close()
	}
	if !sh.spawns(ctx, s, b.cfg.shimSpawns) {
		return
	}
	sh.steady(s, b.cfg, stored)
}

// shimSession is how the shim phase starts ihmt-mcp, and the texts its
// saves send.
type shimSession struct {
	bin  string
	env  []string
	seed uint64
	next int // the last memory saved
}

func (sh *shimSession) saveArgs() map[string]any {
	sh.next++
	return map[string]any{"content": corpus.Memory(sh.seed, sh.next)}
}

// spawns times n fresh shims: spawn → initialize, the first save (the lazy
// dial) and stdin closed → exit. It reports false when ctx ended first.
func (sh *shimSession) spawns(ctx context.Context, s *ShimResults, n int) bool {
	var inits, firsts, exits []time.Duration
	for range n {
		if ctx.Err() != nil {
			return false
		}
		t := time.Now()
		m, err := startShim(sh.bin, sh.env)
		if err != nil {
			s.fail(err)
			continue
		}
		if err := m.initialize(); err != nil {
			s.fail(err)
			m.close()
			continue
		}
		inits = append(inits, time.Since(t))
		m.notify("notifications/initialized")
		args := sh.saveArgs()
		t = time.Now()
		if _, err := m.tool("save_memory", args); err != nil {
			s.fail(err)
		} else {
			firsts = append(firsts, time.Since(t))
		}
		t = time.Now()
		if err := m.close(); err != nil {
			s.fail(fmt.Errorf("shim exit: %w", err))
		} else {
			exits = append(exits, time.Since(t))
		}
	}
	s.SpawnToInit, s.FirstCall, s.Exit = summarize(inits), summarize(firsts), summarize(exits)
	return true
}

// steady times the round trips of one shim, once dialled: saves, then
// searches (with the sizes of their answers), and its resident size.
func (sh *shimSession) steady(s *ShimResults, cfg config, stored int) {
	m, err := startShim(sh.bin, sh.env)
	if err != nil {
		s.fail(err)
		return
	}
	defer m.close()
	if err := m.initialize(); err != nil {
		s.fail(err)
		return
	}
	m.notify("notifications/initialized")
	if _, err := m.tool("save_memory", sh.saveArgs()); err != nil { // the lazy dial
		s.fail(err)
		return
	}
	r := rand.New(rand.NewPCG(cfg.seed, 99))
	var saves, searches []time.Duration
	for range cfg.shimCalls {
		args := sh.saveArgs()
		t := time.Now()
		if _, err := m.tool("save_memory", args); err != nil {
			s.fail(err)
		} else {
			saves = append(saves, time.Since(t))
		}
	}
	var textSizes, structSizes []time.Duration // sizes, kept as counts
	for range cfg.shimCalls {
		args := map[string]any{"query": corpus.Query(r, cfg.seed, stored)}
		t := time.Now()
		if _, err := m.tool("search_memory", args); err != nil {
			s.fail(err)
		} else {
			searches = append(searches, time.Since(t))
			textSizes = append(textSizes, time.Duration(m.lastText)*time.Millisecond)
			structSizes = append(structSizes, time.Duration(m.lastStructured)*time.Millisecond)
		}
	}
	s.SteadySave, s.SteadySearch = summarize(saves), summarize(searches)
	s.AnswerText, s.AnswerStructured = summarize(textSizes), summarize(structSizes)
	if v, ok := procStatus(m.cmd.Process.Pid, "VmRSS"); ok {
		s.ShimRSSMiB = mib(v)
	}
	if v, ok := procStatus(m.cmd.Process.Pid, "VmHWM"); ok {
		s.ShimMaxRSSMiB = mib(v)
	}
}

// restartPhase starts the built ihmtd on the loaded store: how long until
// it serves (it reads every leaf file and the log), its resident size, and
// search latency through a real separate daemon process.
func (b *bench) restartPhase(ctx context.Context, p paths.Paths, leaves int64, res *Results) {
	r := &res.Restart
	r.Leaves = leaves
	progress("restart: a real ihmtd opens the %s-leaf store", thousands(leaves))
	d, err := startReal(ctx, b.bin, p)
	if err != nil {
		r.Error = err.Error()
		return
	}
	defer d.kill()
	r.OpenSeconds = d.open.Seconds()
	s, err := b.searchLatency(ctx, p.Socket, b.cfg.searches, ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED, int(leaves))
	if err != nil {
		r.Error = err.Error()
		return
	}
	s.RealDaemon = true
	r.Search = s
	r.RSSMiB, r.MaxRSSMiB = d.rss()
	progress("restart: RSS %.1f MiB after the searches; waiting %v for the daemon to go idle", r.RSSMiB, idleWait)
	select {
	case <-time.After(idleWait):
	case <-ctx.Done():
		return
	}
	r.IdleRSSMiB, _ = d.rss()
	stopped, err := d.stop()
	r.StopSeconds = stopped.Seconds()
	if err != nil {
		r.Error = err.Error()
	}
}

// coldStartPhase: no daemon running; the shim's first tool call starts
// ihmtd (found beside the shim binary) and waits for it.
func (b *bench) coldStartPhase(ctx context.Context, res *Results) {
	s := &res.Shim
	var ds []time.Duration
	progress("cold start: %d × ihmt-mcp with no daemon running (first call auto-starts ihmtd on an empty store)", b.cfg.coldStarts)
	for k := range b.cfg.coldStarts {
		if ctx.Err() != nil {
			return
		}
		home := filepath.Join(b.tmp, fmt.Sprintf("cold-%d", k))
		sock := filepath.Join(b.sock, fmt.Sprintf("cold-%d", k), "s.sock")
		c := b.coldStart(ctx, home, sock)
		s.ColdDaemonRSS = max(s.ColdDaemonRSS, c.rssMiB)
		if c.err != nil {
			s.ColdStartError = c.err.Error()
			continue
		}
		ds = append(ds, c.call)
	}
	s.ColdStart = summarize(ds)
}

type cold struct {
	call    time.Duration // the first tool call's round trip, or time to its failure
	serving time.Duration // from the call until the auto-started daemon served
	rssMiB  float64       // the auto-started daemon's resident size
	err     error
}

// coldStart runs one shim with no daemon at sock: its first save_memory
// starts ihmtd on the store at home. It then stops that daemon.
func (b *bench) coldStart(ctx context.Context, home, sock string) cold {
	var c cold
	m, err := startShim(filepath.Join(b.bin, "ihmt-mcp"), shimEnv(sock, home, corpus.ProjectName(0)))
	if err != nil {
		c.err = err
		return c
	}
	defer m.close()
	if c.err = m.initialize(); c.err != nil {
		return c
	}
	m.notify("notifications/initialized")
	t := time.Now()
	_, c.err = m.tool("save_memory", map[string]any{"content": "2026-01-05: The bench started this daemon from a cold shim, at " + time.Now().Format(time.RFC3339Nano) + "."})
	c.call = time.Since(t)
	// Stop the daemon the shim started, whether or not the call worked;
	// it may still be opening its store.
	if err := waitServing(ctx, sock, nil, nil, 5*time.Minute); err != nil {
		if c.err == nil {
			c.err = err
		}
		return c
	}
	c.serving = time.Since(t)
	cl, err := client.New(client.Options{Socket: sock})
	if err != nil {
		c.err = err
		return c
	}
	defer cl.Close()
	if st, err := cl.Stats(ctx); err == nil {
		pid := int(st.GetPid())
		if v, ok := procStatus(pid, "VmRSS"); ok {
			c.rssMiB = mib(v)
		}
		cl.Shutdown(ctx)
		for range 1000 { // up to 10 s for it to exit
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return c
}

// Command codebench measures the project tools as a model meets them:
// real ihmtd, real ihmt-mcp over stdio, the go-sdk MCP client. It prints
// the figures, never asserts them:
//
//   - for 10 typical questions about a codebase nobody here wrote (gRPC-Go
//     and golang.org/x/net, copied from the module cache: ~2,000 files) and
//     10 about this repository: the tokens find_code returns against the
//     tokens of reading the files that hold the answers, and whether the
//     right symbol came first;
//   - project_map's tokens against the whole tree's;
//   - read_file of a file read before, unchanged and slightly changed,
//     against the whole file;
//   - the cold index time, and the sync time of every later call.
//
// Tokens are estimated as the tools estimate them: 4 characters a token,
// of the text the model reads.
//
//	go run ./scripts/codebench           # from the repository root
//	go run ./scripts/codebench -json     # the figures as JSON
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// question is a typical question and where its answer is. The questions
// live in questions.json, not in Go, so that they are not code the index
// could find in this repository.
type question struct {
	Query  string `json:"query"`
	Symbol string `json:"symbol"`
	File   string `json:"file"`
}

//go:embed questions.json
var questionsJSON []byte

// foreign is the codebase nobody here wrote: modules already in the
// module cache (go.mod requires them), copied so nothing writes there.
var foreign = []string{"google.golang.org/grpc@v1.85.0", "golang.org/x/net@v0.60.0"}

func main() {
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	flag.Parse()
	if err := run(*asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "codebench:", err)
		os.Exit(1)
	}
}

type report struct {
	Corpora []corpus `json:"corpora"`
}

type corpus struct {
	Name            string    `json:"name"`
	Files           int       `json:"files"`
	ColdIndexMs     float64   `json:"cold_index_ms"`
	FirstFindMs     float64   `json:"first_find_ms"` // builds the in-memory index
	FindMsMedian    float64   `json:"find_ms_median"`
	SyncMsMedian    float64   `json:"sync_ms_median"`
	TreeTokens      int64     `json:"tree_tokens"`
	MapTokens       int64     `json:"map_tokens"`
	MapSymbolTokens int64     `json:"map_symbols_tokens"`
	Questions       []outcome `json:"questions"`
	FindTokens      int64     `json:"find_tokens_total"`
	ReadTokens      int64     `json:"read_tokens_total"`
	FirstRight      int       `json:"right_symbol_first"`
	Reads           *reads    `json:"read_file,omitempty"`
}

type outcome struct {
	Query      string `json:"query"`
	Want       string `json:"want"`
	Got        string `json:"got"`
	Status     string `json:"status"`
	Right      bool   `json:"right_first"`
	FindTokens int64  `json:"find_tokens"`
	ReadTokens int64  `json:"read_tokens"`
	// Candidates of an ambiguous answer, for a clue: whether the right
	// symbol is among them.
	Candidates []string `json:"candidates,omitempty"`
	InTie      bool     `json:"right_among_candidates,omitempty"`
}

type reads struct {
	File                          string `json:"file"`
	Whole, Unchanged, SmallChange int64
}

func run(asJSON bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	work, err := os.MkdirTemp("", "ihmt-codebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fmt.Fprintln(os.Stderr, "codebench: building the binaries…")
	bins, err := testenv.Build(filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	foreignRoot := filepath.Join(work, "foreign")
	if err := copyModules(foreignRoot); err != nil {
		return err
	}
	own, err := os.Getwd()
	if err != nil {
		return err
	}
	var qs struct{ Foreign, Own []question }
	if err := json.Unmarshal(questionsJSON, &qs); err != nil {
		return fmt.Errorf("questions.json: %w", err)
	}
	var rep report
	for _, c := range []struct {
		name, root string
		qs         []question
		reads      string
	}{
		{"grpc-go v1.85.0 + x/net v0.60.0 (module cache)", foreignRoot, qs.Foreign, "grpc/internal/backoff/backoff.go"},
		{"this repository", own, qs.Own, ""},
	} {
		// A fresh daemon and store per corpus: the first call indexes cold.
		r, err := measure(ctx, bins, filepath.Join(work, "run-"+fmt.Sprint(len(rep.Corpora))), c.name, c.root, c.qs, c.reads)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		rep.Corpora = append(rep.Corpora, r)
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	for _, c := range rep.Corpora {
		printCorpus(c)
	}
	return nil
}

// copyModules copies the foreign modules, writable, into root: one
// directory each (grpc, net).
func copyModules(root string) error {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	cache := strings.TrimSpace(string(out))
	for _, m := range foreign {
		src := filepath.Join(cache, filepath.FromSlash(m))
		name := filepath.Base(strings.SplitN(m, "@", 2)[0])
		dst := filepath.Join(root, name)
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("%s is not in the module cache (go mod download %s): %w", m, m, err)
		}
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			t := filepath.Join(dst, rel)
			if d.IsDir() {
				return os.MkdirAll(t, 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(t, data, 0o644)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func measure(ctx context.Context, bins testenv.Binaries, dir, name, root string, qs []question, readFile string) (corpus, error) {
	c := corpus{Name: name}
	sock := filepath.Join(dir, "s", "ihmtd.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return c, err
	}
	env := append(os.Environ(), "IHMT_HOME="+filepath.Join(dir, "store"), "IHMT_SOCKET="+sock)
	d := exec.Command(bins.Daemon, "-log-level", "warn")
	d.Env, d.Stderr = env, os.Stderr
	if err := d.Start(); err != nil {
		return c, err
	}
	defer func() { d.Process.Signal(os.Interrupt); d.Wait() }()
	shim := exec.Command(bins.Shim)
	shim.Dir, shim.Env, shim.Stderr = root, env, os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "codebench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: shim}, nil)
	if err != nil {
		return c, err
	}
	defer cs.Close()

	start := time.Now()
	files, err := call(ctx, cs, "project_map", map[string]any{})
	if err != nil {
		return c, err
	}
	c.ColdIndexMs = ms(time.Since(start))
	c.MapTokens = tokens(files.text)
	c.TreeTokens = int64(files.structured["total_tokens"].(float64))
	c.Files = len(files.structured["files"].([]any))
	syms, err := call(ctx, cs, "project_map", map[string]any{"detail": "symbols"})
	if err != nil {
		return c, err
	}
	c.MapSymbolTokens = tokens(syms.text)

	var syncs []float64
	var finds []float64
	for _, q := range qs {
		t0 := time.Now()
		o, err := ask(ctx, cs, root, q)
		if err != nil {
			return c, err
		}
		finds = append(finds, ms(time.Since(t0)))
		c.Questions = append(c.Questions, o)
		c.FindTokens += o.FindTokens
		c.ReadTokens += o.ReadTokens
		if o.Right {
			c.FirstRight++
		}
	}
	// Per call: a project_map of one directory with nothing changed — the
	// sync of the whole tree and the round trip — ten times.
	for range 10 {
		t0 := time.Now()
		if _, err := call(ctx, cs, "project_map", map[string]any{"subpath": filepath.Dir(qs[0].File)}); err != nil {
			return c, err
		}
		syncs = append(syncs, ms(time.Since(t0)))
	}
	sort.Float64s(syncs)
	c.SyncMsMedian = syncs[len(syncs)/2]
	c.FirstFindMs = finds[0]
	finds = finds[1:]
	sort.Float64s(finds)
	c.FindMsMedian = finds[len(finds)/2]
	if readFile != "" {
		r, err := measureReads(ctx, cs, root, readFile)
		if err != nil {
			return c, err
		}
		c.Reads = r
	}
	return c, nil
}

// ask asks find_code one question and sees where its answer came.
func ask(ctx context.Context, cs *mcp.ClientSession, root string, q question) (outcome, error) {
	r, err := call(ctx, cs, "find_code", map[string]any{"query": q.Query})
	if err != nil {
		return outcome{}, err
	}
	o := outcome{Query: q.Query, Want: q.File + " " + q.Symbol, Status: r.structured["status"].(string), FindTokens: tokens(r.text)}
	is := func(h map[string]any) bool {
		return strings.HasPrefix(h["place"].(string), q.File+":") && h["name"].(string) == q.Symbol
	}
	if hits, _ := r.structured["hits"].([]any); len(hits) > 0 {
		h := hits[0].(map[string]any)
		o.Got, o.Right = h["place"].(string)+" "+h["name"].(string), is(h)
	}
	cands, _ := r.structured["candidates"].([]any)
	for _, x := range cands {
		h := x.(map[string]any)
		o.Candidates = append(o.Candidates, h["place"].(string)+" "+h["name"].(string))
		o.InTie = o.InTie || is(h)
	}
	fi, err := os.Stat(filepath.Join(root, q.File))
	if err != nil {
		return outcome{}, fmt.Errorf("question %q: %w", q.Query, err)
	}
	o.ReadTokens = (fi.Size() + 3) / 4
	return o, nil
}

func measureReads(ctx context.Context, cs *mcp.ClientSession, root, file string) (*reads, error) {
	r := &reads{File: file}
	first, err := call(ctx, cs, "read_file", map[string]any{"path": file})
	if err != nil {
		return nil, err
	}
	r.Whole = tokens(first.text)
	again, err := call(ctx, cs, "read_file", map[string]any{"path": file})
	if err != nil {
		return nil, err
	}
	r.Unchanged = tokens(again.text)
	p := filepath.Join(root, file)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	// A slight change: one line edited in the middle.
	lines := strings.SplitAfter(string(data), "\n")
	lines[len(lines)/2] = "\t// codebench: one line changed\n"
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
		return nil, err
	}
	changed, err := call(ctx, cs, "read_file", map[string]any{"path": file})
	if err != nil {
		return nil, err
	}
	r.SmallChange = tokens(changed.text)
	return r, nil
}

type result struct {
	text       string
	structured map[string]any
}

func call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (result, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if res.IsError {
		return result{}, fmt.Errorf("%s: %s", tool, b.String())
	}
	data, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	json.Unmarshal(data, &m)
	return result{text: b.String(), structured: m}, nil
}

func tokens(s string) int64 { return int64(len(s)+3) / 4 }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printCorpus(c corpus) {
	fmt.Printf("\n== %s: %d files\n", c.Name, c.Files)
	fmt.Printf("cold index (first project_map): %.0f ms; a call whose sync finds nothing changed (median of 10): %.1f ms\n", c.ColdIndexMs, c.SyncMsMedian)
	fmt.Printf("find_code: the first call (builds the in-memory index) %.0f ms, later calls (median) %.1f ms\n", c.FirstFindMs, c.FindMsMedian)
	fmt.Printf("project_map: %d tokens (files), %d tokens (symbols) vs %d tokens for the whole tree\n", c.MapTokens, c.MapSymbolTokens, c.TreeTokens)
	fmt.Printf("%-62s %-9s %6s %6s  %s\n", "question", "status", "find", "read", "first hit")
	for _, q := range c.Questions {
		mark := "✓"
		switch {
		case q.InTie:
			mark = fmt.Sprintf("(asks for a clue; the right one is among %d candidates)", len(q.Candidates))
		case !q.Right:
			mark = "✗ want " + q.Want
			if len(q.Candidates) > 0 {
				mark += "; candidates: " + strings.Join(q.Candidates[:min(3, len(q.Candidates))], ", ")
			}
		}
		fmt.Printf("%-62s %-9s %6d %6d  %s %s\n", q.Query, q.Status, q.FindTokens, q.ReadTokens, q.Got, mark)
	}
	fmt.Printf("find_code: %d tokens for %d questions vs %d reading the files that hold the answers; right symbol first: %d/%d\n",
		c.FindTokens, len(c.Questions), c.ReadTokens, c.FirstRight, len(c.Questions))
	if r := c.Reads; r != nil {
		fmt.Printf("read_file %s: %d tokens whole; again unchanged: %d; after a one-line change: %d\n", r.File, r.Whole, r.Unchanged, r.SmallChange)
	}
}

// Command locomo measures IHMT's retrieval on LoCoMo (Maharana et al., ACL
// 2024): every dialog turn of a conversation is saved as one memory
// ("YYYY-MM-DD Speaker: text", the session's date) into a throw-away store,
// every question of categories 1–4 is asked, and recall@1/5/10 is printed
// per category (a hit: any evidence turn among the top k memories).
//
//	go run ./scripts/locomo                    # all 10 conversations
//	go run ./scripts/locomo -conversations 2   # a quick look
//	go run ./scripts/locomo -json              # figures for scripts
//	go run ./scripts/locomo -exhaustive-only   # pkg/index alone, no store
//	go run ./scripts/locomo -mcp               # also end to end, through ihmt-mcp
//
// Three systems are measured side by side: the whole store pipeline (Save,
// then Search with its verdicts); plain exhaustive BM25 straight over
// pkg/index, the baseline the store's ranking must equal (ratio 1.00); and
// the same index with each memory linked to its neighbours (index.Link:
// the memories saved just before it in the same session on the same day,
// weighted by index.NeighbourLink), which is what the store gets once it
// makes those links. With -mcp a fourth system saves and asks through real
// ihmt-mcp processes and a real ihmtd, and is scored on what the MCP tool
// gives the agent (see mcp.go).
//
// The data set is CC BY-NC 4.0: it is read from the shared data folder
// (-data) and nothing of it is written into the repository.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// ks are the cut-offs recall is reported at; the largest is the search limit.
var ks = []int{1, 5, 10}

type config struct {
	data           string
	conversations  int
	json           bool
	exhaustiveOnly bool
	mcp            bool
}

func main() {
	var cfg config
	flag.StringVar(&cfg.data, "data", defaultDataPath(), "path of locomo10.json (CC BY-NC 4.0; never copied into the repository)")
	flag.IntVar(&cfg.conversations, "conversations", 0, "use only the first N conversations (0: all)")
	flag.BoolVar(&cfg.json, "json", false, "print the figures as JSON on stdout instead of tables")
	flag.BoolVar(&cfg.exhaustiveOnly, "exhaustive-only", false, "measure exhaustive BM25 over pkg/index only (no store)")
	flag.BoolVar(&cfg.mcp, "mcp", false, "also measure end to end: save through real ihmt-mcp shims and ask through the MCP tool search_memory, scoring what the agent receives")
	flag.Parse()
	if err := run(context.Background(), cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "locomo:", err)
		os.Exit(1)
	}
}

// ranking is one search's answer: for each ranked memory, best first, the
// dialog ids it holds (one, unless two turns had the same text and date).
type ranking [][]string

// system is one way of answering: built per conversation, then asked.
type system struct {
	name  string
	build func(ctx context.Context, c conversation) (asker, error)
}

type asker interface {
	ask(q string) (ranking, error)
	close() error
}

// tally accumulates recall for one system.
type tally struct {
	hits    map[int][]int // category → hits at each k
	asked   map[int]int
	errors  int
	verdict map[string]int
	// short counts searches that returned fewer memories than exhaustive
	// BM25 found (capped by a verdict), so recall@k could not be reached.
	short    int
	build    time.Duration
	search   time.Duration
	searches int
}

func newTally() *tally {
	return &tally{hits: map[int][]int{}, asked: map[int]int{}, verdict: map[string]int{}}
}

func (t *tally) add(q question, r ranking) {
	if t.hits[q.Category] == nil {
		t.hits[q.Category] = make([]int, len(ks))
	}
	t.asked[q.Category]++
	ev := make(map[string]bool, len(q.Evidence))
	for _, e := range q.Evidence {
		ev[e] = true
	}
	first := -1
	for i, ids := range r {
		for _, id := range ids {
			if ev[id] {
				first = i
				break
			}
		}
		if first >= 0 {
			break
		}
	}
	for i, k := range ks {
		if first >= 0 && first < k {
			t.hits[q.Category][i]++
		}
	}
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	convs, err := load(cfg.data)
	if err != nil {
		return err
	}
	if cfg.conversations > 0 && cfg.conversations < len(convs) {
		convs = convs[:cfg.conversations]
	}
	// The plain index comes last: it is asked first, and the others' result
	// sizes are compared with its own.
	systems := []system{
		{name: "index + neighbour links", build: buildLinked},
		{name: "exhaustive BM25 (pkg/index)", build: buildExhaustive},
	}
	if !cfg.exhaustiveOnly {
		systems = append([]system{{name: "store pipeline (pkg/store)", build: buildStore}}, systems...)
	}
	if cfg.mcp && !cfg.exhaustiveOnly {
		bins, cleanup, err := buildBinaries()
		if err != nil {
			return err
		}
		defer cleanup()
		systems = append([]system{{name: "through ihmt-mcp (agent receives)", build: buildMCP(bins)}}, systems...)
	}
	tallies := make([]*tally, len(systems))
	for i := range tallies {
		tallies[i] = newTally()
	}
	start := time.Now()
	turns, skipped := 0, 0
	for ci, c := range convs {
		fmt.Fprintf(stderr, "conversation %d/%d (%s): %d turns, %d questions\n", ci+1, len(convs), c.ID, len(c.Turns), len(c.Questions))
		turns += len(c.Turns)
		skipped += c.NoEvidence
		var reference []int // exhaustive result sizes, to tell capped lists
		for si := len(systems) - 1; si >= 0; si-- {
			if err := askAll(ctx, systems[si], tallies[si], c, &reference, si == len(systems)-1); err != nil {
				return err
			}
		}
	}
	rep := report{K: ks, Conversations: len(convs), Turns: turns, SkippedNoEvidence: skipped, Seconds: time.Since(start).Seconds()}
	for i, sys := range systems {
		rep.Systems = append(rep.Systems, tallies[i].result(sys.name))
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.print(stdout)
	return nil
}

// askAll builds sys for one conversation and asks it every question,
// tallying into t. The reference system (the plain index, asked first)
// appends its result sizes to reference; a store list shorter than the
// reference's was capped by a verdict.
func askAll(ctx context.Context, sys system, t *tally, c conversation, reference *[]int, isReference bool) error {
	t0 := time.Now()
	a, err := sys.build(ctx, c)
	if err != nil {
		return fmt.Errorf("%s, %s: %w", c.ID, sys.name, err)
	}
	t.build += time.Since(t0)
	for qi, q := range c.Questions {
		t1 := time.Now()
		r, err := a.ask(q.Text)
		t.search += time.Since(t1)
		t.searches++
		if err != nil {
			t.errors++
		}
		if isReference {
			*reference = append(*reference, len(r))
		}
		if sa, ok := a.(interface{ verdict() string }); ok {
			t.verdict[sa.verdict()]++
			if len(r) < (*reference)[qi] {
				t.short++
			}
		}
		t.add(q, r)
	}
	return a.close()
}

// buildExhaustive indexes every turn in a bare pkg/index and searches it
// with the same query terms the store uses: the exhaustive baseline.
func buildExhaustive(_ context.Context, c conversation) (asker, error) {
	ix := index.New()
	var ids []string
	for _, t := range c.Turns {
		ix.Add(t.Memory(), 0)
		ids = append(ids, t.DiaID)
	}
	return &indexAsker{ix: ix, ids: ids}, nil
}

// buildLinked is buildExhaustive plus the links a store can make from what
// it knows of each save: every memory is linked to the ones saved just
// before it in the same session (here one session, as the store benchmark
// saves them) on the same day. Nothing of the data set's own structure —
// its session numbers, dialog ids or speakers — is used.
func buildLinked(_ context.Context, c conversation) (asker, error) {
	ix := index.New()
	var ids []string
	for i, t := range c.Turns {
		d := ix.Add(t.Memory(), 0)
		ids = append(ids, t.DiaID)
		for k := 1; index.NeighbourWeight(k) > 0 && i-k >= 0; k++ {
			if !c.Turns[i-k].Date.Equal(t.Date) {
				break
			}
			toNew, toPrev := index.NeighbourLink(k, index.Asks(c.Turns[i-k].Memory()), index.Asks(t.Memory()))
			ix.Link(d, d-index.Doc(k), toNew, toPrev)
		}
	}
	return &indexAsker{ix: ix, ids: ids}, nil
}

type indexAsker struct {
	ix  *index.Index
	ids []string // by index.Doc
}

func (a *indexAsker) ask(q string) (ranking, error) {
	hits, _ := a.ix.Search(index.Query{Terms: tokenize.Terms(q), Visible: func(index.Group) bool { return true }, Limit: ks[len(ks)-1]})
	r := make(ranking, len(hits))
	for i, h := range hits {
		r[i] = []string{a.ids[h.Doc]}
	}
	return r, nil
}

func (a *indexAsker) close() error { return nil }

type report struct {
	K                 []int          `json:"k"` // the cut-offs of every recall list
	Conversations     int            `json:"conversations"`
	Turns             int            `json:"turns"`
	SkippedNoEvidence int            `json:"skipped_no_evidence"`
	Seconds           float64        `json:"seconds"`
	Systems           []systemResult `json:"systems"`
}

type systemResult struct {
	Name       string         `json:"name"`
	Categories []recall       `json:"categories"`
	Overall    recall         `json:"overall"`
	Errors     int            `json:"errors,omitempty"`
	Verdicts   map[string]int `json:"verdicts,omitempty"`
	Short      int            `json:"short_lists,omitempty"`
	BuildSec   float64        `json:"build_seconds"`
	SearchUS   float64        `json:"search_mean_us"`
}

type recall struct {
	Category string    `json:"category"`
	Code     int       `json:"code,omitempty"`
	Asked    int       `json:"asked"`
	At       []float64 `json:"recall"` // at ks
}

func (t *tally) result(name string) systemResult {
	sr := systemResult{Name: name, Errors: t.errors, Short: t.short, BuildSec: t.build.Seconds()}
	if len(t.verdict) > 0 {
		sr.Verdicts = t.verdict
	}
	if t.searches > 0 {
		sr.SearchUS = float64(t.search.Microseconds()) / float64(t.searches)
	}
	total := make([]int, len(ks))
	asked := 0
	for _, c := range categoryOrder {
		n := t.asked[c]
		rc := recall{Category: categoryName(c), Code: c, Asked: n, At: make([]float64, len(ks))}
		for i := range ks {
			if n > 0 {
				rc.At[i] = float64(t.hits[c][i]) / float64(n)
				total[i] += t.hits[c][i]
			}
		}
		asked += n
		sr.Categories = append(sr.Categories, rc)
	}
	sr.Overall = recall{Category: "overall", Asked: asked, At: make([]float64, len(ks))}
	for i := range ks {
		if asked > 0 {
			sr.Overall.At[i] = float64(total[i]) / float64(asked)
		}
	}
	return sr
}

func (r report) print(w io.Writer) {
	fmt.Fprintf(w, "LoCoMo retrieval: %d conversations, %d turns saved, categories 1-4 (%d questions without a valid evidence id skipped)\n\n",
		r.Conversations, r.Turns, r.SkippedNoEvidence)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "system\tcategory\tquestions\t"
	for _, k := range ks {
		head += fmt.Sprintf("@%d\t", k)
	}
	fmt.Fprintln(tw, head)
	for _, s := range r.Systems {
		for _, c := range append(s.Categories, s.Overall) {
			line := s.Name + "\t" + c.Category + "\t" + fmt.Sprint(c.Asked) + "\t"
			for _, v := range c.At {
				line += fmt.Sprintf("%.3f\t", v)
			}
			fmt.Fprintln(tw, line)
		}
		fmt.Fprintln(tw, "\t\t\t\t\t\t")
	}
	tw.Flush()
	// The last two systems are the references; each one before them is
	// compared with both.
	if n := len(r.Systems); n >= 3 {
		for _, sys := range r.Systems[:n-2] {
			for _, ref := range r.Systems[n-2:] {
				a, b := sys.Overall.At, ref.Overall.At
				var parts []string
				for i, k := range ks {
					if b[i] > 0 {
						parts = append(parts, fmt.Sprintf("@%d %.2f", k, a[i]/b[i]))
					}
				}
				fmt.Fprintf(w, "%s / %s: %s\n", sys.Name, ref.Name, strings.Join(parts, ", "))
			}
		}
	}
	for _, s := range r.Systems {
		fmt.Fprintf(w, "%s: build %.1fs, search mean %.0f µs", s.Name, s.BuildSec, s.SearchUS)
		if len(s.Verdicts) > 0 {
			fmt.Fprintf(w, ", verdicts %v", s.Verdicts)
		}
		if s.Short > 0 {
			fmt.Fprintf(w, ", %d searches returned fewer memories than exhaustive BM25 found", s.Short)
		}
		if s.Errors > 0 {
			fmt.Fprintf(w, ", %d search errors", s.Errors)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "total %.1fs\n", r.Seconds)
}

// Command eval scores IHMT on question sets the way an agent meets them:
// every memory is saved, and every question asked, through real ihmt-mcp
// processes (the go-sdk MCP client over stdio) talking to a real ihmtd on a
// throw-away store, one store per set.
//
//	go run ./scripts/eval                      # the five sets (below): per set, then pooled
//	go run ./scripts/eval SET.jsonl -v         # other sets; -v lists every miss
//	go run ./scripts/eval -json                # the figures for scripts
//	go run ./scripts/eval -keep /tmp/ev        # save into /tmp/ev; a second run re-asks only
//	go run ./scripts/eval -disable NAME        # with a retrieval signal off (repeatable)
//	go run ./scripts/eval -ablate              # every signal alone off: what each set gains or loses
//
// Run from the repository's root (as CI does). With no set named, it runs
// the dev set and the two training sets from ../shared (the data sets beside
// the repository, never copied into it: ../shared/data/devset/devset.jsonl,
// ../shared/data/trainsets/setA/setA.jsonl and setB/setB.jsonl), then the two
// sets written blind here (testdata/proxy.jsonl and blind2.jsonl); a set
// file that is missing stops the run before anything starts.
//
// A set is JSON lines in the schema of testdata/README.md: memories, then
// questions. Memories are saved in file order, one shim per (project,
// agent): the MCP client's name is the memory's agent, the project comes
// from IHMT_PROJECT, the date is passed as save_memory's date, and a memory
// of project "" is saved with scope global. Each question is asked through
// a shim of its own project (scope all when the project is ""), with limit
// 5 and as_of when given; the ids the answer ranks are its results, else
// its candidates. Scoring, per kind:
//
//   - current, historical, lookup, paraphrase pass when the status is found
//     and the first ranked id is expected;
//   - ambiguous passes when the status is ambiguous and the ranked ids cover
//     two of the question's groups;
//   - negative passes on not_found;
//   - scope passes when no forbidden id is ranked at all.
//
// top-1 and top-5 count an expected id first / among the five, over the
// questions that expect one; wrong-above counts answers where a forbidden id
// ranks above every expected id (near misses a not_found names count too,
// as they are what the agent is shown). The pooled table counts every set's
// questions together, so a large set weighs more than a small one.
//
// Signals: ihmtd names its query-time retrieval signals with `ihmtd
// -signals` (one a line: the name, a tab, why it exists) and leaves off
// those IHMT_SIGNALS_OFF lists (comma-separated) at start. -disable runs
// every set with the named ones off; -ablate runs every set with all on,
// then once per signal with it alone off, and prints the questions each set
// gains and loses by it (see ablate.go). Each (set, signals off) pair is
// saved afresh on a daemon started with them off, so a switch that also
// touches what a save infers is measured as a user would meet it.
//
// Runs go two at a time (-jobs), each with its own ihmtd: on two shared
// cores a bare run takes about 50 s, a third of it building the programs,
// and -ablate with n signals about n+1 times the sets' part of that.
//
// -keep DIR keeps each store in DIR/SET (DIR/SET.off-NAME+NAME with signals
// off) and, when it already holds that set's saves, reuses them and only
// asks: quick for a change to search. A change to what happens at save time
// needs fresh saves: remove DIR first.
//
// -ingest-repo checks that ingested documents and code do not pollute the
// memory (see ingest.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

type config struct {
	sets       []string // paths, in the order the tables list them
	verbose    bool
	json       bool
	keep       string
	workers    int
	jobs       int
	disable    []string
	ablate     bool
	ingestRepo bool
	repo       string
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

// names is a repeatable flag's values.
type names []string

func (n *names) String() string { return strings.Join(*n, ",") }

func (n *names) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name != "" {
			*n = append(*n, name)
		}
	}
	return nil
}

// parseFlags reads the flags and the sets' paths, in any order (flag alone
// stops at the first argument that is not a flag). No path: the default
// sets.
func parseFlags(args []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./scripts/eval [SET.jsonl ...] [-v] [-json] [-keep DIR] [-disable NAME]... [-ablate] [-ingest-repo]")
		fs.PrintDefaults()
	}
	fs.BoolVar(&cfg.verbose, "v", false, "list every miss: query, status, ranked ids with an excerpt, expect, forbid")
	fs.BoolVar(&cfg.json, "json", false, "print the figures (and the misses) as JSON")
	fs.StringVar(&cfg.keep, "keep", "", "keep each set's store under `DIR`; when it already holds that set's saves, reuse them and only ask")
	fs.IntVar(&cfg.workers, "workers", 4, "questions in flight at once in a set (saves are always one at a time, in order)")
	fs.IntVar(&cfg.jobs, "jobs", 2, "sets (or, with -ablate, set and signal runs) in flight at once, each with its own ihmtd")
	fs.Var((*names)(&cfg.disable), "disable", "switch the retrieval signal `NAME` off (repeatable, or comma-separated; `ihmtd -signals` lists them)")
	fs.BoolVar(&cfg.ablate, "ablate", false, "also run every set once per signal with it alone off, and print what each set gains or loses")
	fs.BoolVar(&cfg.ingestRepo, "ingest-repo", false, "instead: ingest this repository's README and Go sources into a store of personal memories, and report facts from code and the personal answers before and after")
	fs.StringVar(&cfg.repo, "repo", ".", "the repository -ingest-repo ingests")
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return cfg, err
		}
		args = fs.Args()
		if len(args) > 0 {
			cfg.sets = append(cfg.sets, args[0])
			args = args[1:]
		}
	}
	switch {
	case cfg.workers < 1:
		return cfg, fmt.Errorf("-workers %d: need at least 1", cfg.workers)
	case cfg.jobs < 1:
		return cfg, fmt.Errorf("-jobs %d: need at least 1", cfg.jobs)
	case cfg.ablate && len(cfg.disable) > 0:
		return cfg, fmt.Errorf("-ablate switches each signal off alone against all on: it takes no -disable")
	case cfg.ingestRepo && (len(cfg.sets) > 0 || cfg.ablate || len(cfg.disable) > 0):
		return cfg, fmt.Errorf("-ingest-repo uses its own set and every signal: it takes no set, -disable or -ablate")
	}
	return cfg, nil
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	start := time.Now()
	if !cfg.ingestRepo {
		if err := resolveSets(&cfg); err != nil {
			return err
		}
	}
	binDir, err := os.MkdirTemp("", "ihmt-eval-bin")
	if err != nil {
		return err
	}
	defer os.RemoveAll(binDir)
	bins, err := testenv.Build(binDir)
	if err != nil {
		return err
	}
	if cfg.ingestRepo {
		return runIngest(ctx, cfg, bins, stdout, stderr)
	}
	return runSets(ctx, cfg, bins, start, stdout, stderr)
}

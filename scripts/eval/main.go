// Command eval scores IHMT on a question set the way an agent meets it:
// every memory is saved, and every question asked, through real ihmt-mcp
// processes (the go-sdk MCP client over stdio) talking to a real ihmtd on a
// throw-away store.
//
//	go run ./scripts/eval                      # the dev set (testdata/devset.jsonl)
//	go run ./scripts/eval SET.jsonl -v         # another set; -v lists every miss
//	go run ./scripts/eval scripts/eval/testdata/proxy.jsonl  # the set written blind (testdata/README.md)
//	go run ./scripts/eval -json                # the figures for scripts
//	go run ./scripts/eval -keep /tmp/ev        # save into /tmp/ev; a second run re-asks only
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
// as they are what the agent is shown).
//
// -keep DIR keeps the store in DIR and, when DIR already holds this set's
// saves, reuses them and only asks: quick for a change to search. A change
// to what happens at save time needs fresh saves: remove DIR first.
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
	"path/filepath"
	"runtime"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

type config struct {
	set        string
	verbose    bool
	json       bool
	keep       string
	workers    int
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

// parseFlags reads the flags and the set's path, in any order (flag alone
// stops at the first argument that is not a flag).
func parseFlags(args []string) (config, error) {
	cfg := config{set: defaultSet()}
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./scripts/eval [SET.jsonl] [-v] [-json] [-keep DIR] [-ingest-repo]")
		fs.PrintDefaults()
	}
	fs.BoolVar(&cfg.verbose, "v", false, "list every miss: query, status, ranked ids with an excerpt, expect, forbid")
	fs.BoolVar(&cfg.json, "json", false, "print the figures (and the misses) as JSON")
	fs.StringVar(&cfg.keep, "keep", "", "keep the store in `DIR`; when DIR already holds this set's saves, reuse them and only ask")
	fs.IntVar(&cfg.workers, "workers", 4, "questions in flight at once (saves are always one at a time, in order)")
	fs.BoolVar(&cfg.ingestRepo, "ingest-repo", false, "instead: ingest this repository's README and Go sources into a store of personal memories, and report facts from code and the personal answers before and after")
	fs.StringVar(&cfg.repo, "repo", ".", "the repository -ingest-repo ingests")
	var sets []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return cfg, err
		}
		args = fs.Args()
		if len(args) > 0 {
			sets = append(sets, args[0])
			args = args[1:]
		}
	}
	switch {
	case len(sets) > 1:
		return cfg, fmt.Errorf("one set at a time, got %v", sets)
	case len(sets) == 1:
		cfg.set = sets[0]
	}
	if cfg.workers < 1 {
		return cfg, fmt.Errorf("-workers %d: need at least 1", cfg.workers)
	}
	return cfg, nil
}

// defaultSet is the dev set beside this source file, found from the
// working directory (the module root, as `go run ./scripts/eval` runs) or
// from the source's own path.
func defaultSet() string {
	rel := filepath.Join("scripts", "eval", "testdata", "devset.jsonl")
	if _, err := os.Stat(rel); err == nil {
		return rel
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		return filepath.Join(filepath.Dir(file), "testdata", "devset.jsonl")
	}
	return rel
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	start := time.Now()
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
	set, err := loadSet(cfg.set)
	if err != nil {
		return err
	}
	rep, err := runSet(ctx, cfg, bins, set, stderr)
	if err != nil {
		return err
	}
	rep.Set, rep.TotalSec = cfg.set, time.Since(start).Seconds()
	if cfg.json {
		return rep.printJSON(stdout)
	}
	rep.print(stdout, cfg.verbose)
	return nil
}

// Command fts5bench is the other side of scripts/bench: the memories and
// questions the bench sends to ihmtd, stored and searched the way a memory
// tool built on SQLite FTS5 would — a table of memories with an FTS5 index
// over the text, bm25 ranking (ORDER BY rank LIMIT k), WAL with
// synchronous=FULL and one transaction a save — through modernc.org/sqlite,
// a pure-Go driver.
//
// It lives in a module of its own so that the SQLite driver stays out of
// IHMT's go.mod: scripts/bench builds it into its temporary directory,
// writes a plan (the corpus files, each phase's shape and the exact
// queries), runs it and reads its figures, JSON on stdout:
//
//	fts5bench -plan plan.json -dir DIR > report.json
//
// Progress goes to stderr. The open-to-first-answer figure and the
// resident size come from this program started again on the loaded
// database (-reopen), so they are a fresh process's, as ihmtd's are.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	planFile := flag.String("plan", "", "the bench's plan (JSON): corpus files, phases, queries")
	dir := flag.String("dir", "", "an empty directory for the databases")
	reopenDB := flag.String("reopen", "", "open this database, answer the first question, then time the rest (the runner starts this itself)")
	queries := flag.String("queries", "", "with -reopen: the questions (JSON: warm, timed)")
	project := flag.String("project", "", "with -reopen: the caller's project (scope default)")
	limit := flag.Int("limit", 5, "with -reopen: results a search returns")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *reopenDB != "" {
		if err := childMain(ctx, *reopenDB, *queries, *project, *limit); err != nil {
			// The parent reads stdout: the error goes there as the report.
			json.NewEncoder(os.Stdout).Encode(childReport{Error: err.Error()})
			fmt.Fprintln(os.Stderr, "fts5bench -reopen:", err)
			os.Exit(1)
		}
		return
	}
	if *planFile == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, "fts5bench: -plan and -dir are required (scripts/bench runs this; see its -fts5 flag)")
		os.Exit(2)
	}
	rep, err := measure(ctx, *planFile, *dir)
	json.NewEncoder(os.Stdout).Encode(rep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fts5bench:", err)
		os.Exit(1)
	}
}

// measure runs the plan in dir; the report carries what was measured
// before any error, and the error.
func measure(ctx context.Context, planFile, dir string) (*Report, error) {
	start := time.Now()
	rep := &Report{Driver: driverName, Settings: settings}
	defer func() { rep.Seconds = time.Since(start).Seconds() }()
	plan, err := readPlan(planFile)
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	exe, err := os.Executable()
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	r := &runner{plan: plan, dir: dir, exe: exe, rep: rep}
	if err := r.run(ctx); err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	return rep, nil
}

// What the report says the figures were measured with.
const (
	driverName = "modernc.org/sqlite v1.62.0 (pure Go)"
	settings   = "WAL, synchronous=FULL, one transaction a save (BEGIN IMMEDIATE), busy_timeout 30 s, default page cache; " +
		"external-content FTS5 table (unicode61) kept by a trigger; search: the question's words quoted and OR-ed, ORDER BY rank (bm25) LIMIT k"
)

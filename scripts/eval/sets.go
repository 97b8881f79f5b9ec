package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// multiReport is a whole run: every set's figures, the pooled figures,
// and with -ablate each signal's effect.
type multiReport struct {
	SignalsOff []string      `json:"signals_off"`
	Sets       []report      `json:"sets"`
	Pooled     report        `json:"pooled"`
	Signals    []signal      `json:"signals,omitempty"`
	Ablation   []ablationRow `json:"ablation,omitempty"`
	TotalSec   float64       `json:"total_seconds"`
}

// runSets runs every set with the -disable'd signals off and, with
// -ablate, once more per signal with it alone off; then prints each set's
// table, the pooled one, and the ablation.
func runSets(ctx context.Context, cfg config, bins testenv.Binaries, start time.Time, stdout, stderr io.Writer) error {
	names := setNames(cfg.sets)
	sets := make([]*evalSet, len(cfg.sets))
	for i, p := range cfg.sets {
		s, err := loadSet(p)
		if err != nil {
			return err
		}
		sets[i] = s
	}
	var sigs []signal
	var off []string
	if cfg.ablate || len(cfg.disable) > 0 {
		var err error
		if sigs, err = listSignals(ctx, bins.Daemon); err != nil {
			return err
		}
		if off, err = checkDisabled(cfg.disable, sigs); err != nil {
			return err
		}
	}
	configs := [][]string{off}
	if cfg.ablate {
		for _, s := range sigs {
			configs = append(configs, []string{s.Name})
		}
	}
	var jobs []job
	for _, c := range configs {
		for i := range sets {
			jobs = append(jobs, job{path: cfg.sets[i], name: names[i], set: sets[i], off: c})
		}
	}
	fmt.Fprintf(stderr, "eval: programs built in %.1fs; %d sets × %d signal configurations = %d runs, %d at a time\n",
		time.Since(start).Seconds(), len(sets), len(configs), len(jobs), cfg.jobs)
	reps, outs, err := runJobs(ctx, cfg, bins, jobs, start, stderr)
	if err != nil {
		return err
	}

	mr := multiReport{SignalsOff: append([]string{}, off...), Sets: reps[:len(sets)], Signals: sigs}
	mr.Pooled = pooled(mr.Sets, outs[:len(sets)])
	if cfg.ablate {
		on := make([][]result, len(sets))
		for i := range sets {
			on[i] = results(outs[i])
		}
		offRuns := map[string][][]result{}
		for k, s := range sigs {
			for i := range sets {
				offRuns[s.Name] = append(offRuns[s.Name], results(outs[(k+1)*len(sets)+i]))
			}
		}
		if mr.Ablation, err = ablate(names, sigs, on, offRuns); err != nil {
			return err
		}
	}
	mr.TotalSec = time.Since(start).Seconds()
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(mr)
	}
	mr.print(stdout, cfg.verbose, outs[:len(sets)])
	return nil
}

// runJobs runs the jobs, cfg.jobs at a time, and returns their reports
// and outcomes in the jobs' order. The first failure cancels the rest.
// Progress goes to stderr as each run ends: which set, which signals off,
// how long it took and how long the whole has taken.
func runJobs(ctx context.Context, cfg config, bins testenv.Binaries, jobs []job, start time.Time, stderr io.Writer) ([]report, [][]outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reps := make([]report, len(jobs))
	outs := make([][]outcome, len(jobs))
	var mu sync.Mutex // stderr, done and first
	done := 0
	var first error // the failure that cancelled the rest, not what the cancel caused
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(cfg.jobs, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue
				}
				var err error
				reps[i], outs[i], err = runSet(ctx, cfg, bins, jobs[i], stderr)
				mu.Lock()
				done++
				if err != nil {
					if first == nil {
						first = fmt.Errorf("%s%s: %w", jobs[i].name, offNote(jobs[i].off), err)
					}
					cancel()
					fmt.Fprintf(stderr, "eval: [%d/%d] %s%s: failed\n", done, len(jobs), jobs[i].name, offNote(jobs[i].off))
				} else {
					errNote := ""
					if n := reps[i].Total.Errors; n > 0 {
						errNote = fmt.Sprintf(" (%d questions failed with an error, counted as misses)", n)
					}
					fmt.Fprintf(stderr, "eval: [%d/%d] %s%s: %d/%d passed in %.1fs (elapsed %s)%s\n", done, len(jobs), jobs[i].name, offNote(jobs[i].off),
						reps[i].Total.Passed, reps[i].Total.N, reps[i].TotalSec, time.Since(start).Round(time.Second), errNote)
				}
				mu.Unlock()
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return reps, outs, nil
}

// pooled is every set's questions tallied together.
func pooled(reps []report, outs [][]outcome) report {
	p := report{Set: fmt.Sprintf("%d sets", len(reps)), Name: "pooled"}
	var all []outcome
	for i, r := range reps {
		p.SignalsOff = r.SignalsOff
		p.Memories += r.Memories
		p.Questions += r.Questions
		p.Saved += r.Saved
		p.SaveSec += r.SaveSec
		p.AskSec += r.AskSec
		p.TotalSec += r.TotalSec
		all = append(all, outs[i]...)
	}
	p.Kinds, p.Total, _ = tallyRows(nil, all, false)
	return p
}

func (mr multiReport) print(w io.Writer, verbose bool, outs [][]outcome) {
	for _, r := range mr.Sets {
		r.print(w, verbose)
		fmt.Fprintln(w)
	}
	p := mr.Pooled
	var names []string
	for _, r := range mr.Sets {
		names = append(names, r.Name)
	}
	fmt.Fprintf(w, "pooled (%s): %d memories, %d questions%s\n\n", strings.Join(names, ", "), p.Memories, p.Questions, offNote(mr.SignalsOff))
	printTable(w, p.Kinds, p.Total)
	if mr.Ablation != nil {
		fmt.Fprintln(w)
		on := make([][]result, len(outs))
		for i := range outs {
			on[i] = results(outs[i])
		}
		printAblation(w, names, on, mr.Ablation)
	}
	fmt.Fprintf(w, "\ntotal %.1fs\n", mr.TotalSec)
}

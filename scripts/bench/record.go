package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Record is what -record writes: every run of one invocation, and where and
// when they were measured, so README's table can be regenerated from it.
type Record struct {
	Date       string      `json:"date"`
	Machine    Machine     `json:"machine"`
	Commit     string      `json:"commit"`
	Args       []string    `json:"args"`
	Runs       []*Results  `json:"runs,omitempty"`
	Figures    []Spread    `json:"figures"`
	Comparison *Comparison `json:"comparison,omitempty"`
}

// Machine is the machine a record was measured on.
type Machine struct {
	CPUs   int    `json:"cpus"`
	Model  string `json:"cpu_model"`
	Kernel string `json:"kernel"`
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
}

func thisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Model: cpuModel(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// cpuModel is the first "model name" of /proc/cpuinfo (Linux), else "".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// gitCommit is the commit the bench runs at, "+dirty" when the tree has
// uncommitted changes (the figures are then not of that commit).
func gitCommit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

func newRecord(ctx context.Context) *Record {
	return &Record{Date: time.Now().UTC().Format(time.RFC3339), Machine: thisMachine(), Commit: gitCommit(ctx), Args: os.Args[1:]}
}

func writeRecord(file string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

func readRecord(file string) (*Record, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read record %s: %w", file, err)
	}
	return &r, nil
}

// runFigures are each run's figures, for spreads.
func runFigures(runs []*Results) [][]Figure {
	out := make([][]Figure, len(runs))
	for i, r := range runs {
		out[i] = r.figures()
	}
	return out
}

// markdown writes README's "Honest numbers" table from a record: the
// median of its runs with their range, the target and whether the median
// meets it; with a comparison in the record, a column for the previous
// release's median and the ratio.
func (r *Record) markdown(w io.Writer) {
	fmt.Fprintf(w, "%d run(s) of `scripts/bench.sh %s` on %s, commit %s; %d × %s, Linux %s.\n\n",
		max(len(r.Runs), r.comparisonRounds()), strings.Join(r.Args, " "), r.Date[:min(10, len(r.Date))], r.Commit, r.Machine.CPUs, r.Machine.Model, r.Machine.Kernel)
	base := r.baselineSpreads()
	pairs, fts := sideBySide(r.Figures)
	head := []string{"figure", "median [range]"}
	if base != nil {
		head = append(head, r.Comparison.Rev+" (same run)", "ratio")
	}
	if fts {
		head = append(head, "SQLite FTS5, same run", "ihmtd ahead?")
	}
	head = append(head, "target", "met?")
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, s := range pairs {
		cells := []string{s.Name, s.String()}
		if base != nil {
			cells = append(cells, base.cells(s.Spread)...)
		}
		if fts {
			cells = append(cells, s.cells()...)
		}
		cells = append(cells, s.target(), s.met(s.Median))
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

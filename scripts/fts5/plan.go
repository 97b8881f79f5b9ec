package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Plan is what scripts/bench asks of the runner: the files of memories, the
// shape of each phase and the exact queries its own run sent to ihmtd, so
// both sides see the same texts in the same order and the same questions.
type Plan struct {
	// Corpus is the ladder's memories, one JSON object a line, in the order
	// the bench saved them to ihmtd: memory i is line i.
	Corpus string `json:"corpus"`
	// Throughput is the texts of the concurrent-save phase (a generous
	// supply; the runner reuses them, noted, if a fast level runs out).
	Throughput string `json:"throughput_corpus"`
	// Project is the caller's project: scope "default" sees the global
	// memories (project "") and this project's, as ihmtd's default scope.
	Project string `json:"project"`
	// Limit is how many results a search returns (ihmtd's default).
	Limit int `json:"limit"`
	// Levels are the concurrent writers of the throughput phase, each on a
	// connection of its own; SharedLevels are writers sharing one
	// connection (database/sql's pool of one).
	Levels       []int `json:"levels"`
	SharedLevels []int `json:"shared_levels"`
	LevelMs      int   `json:"level_ms"`
	// Batch is how many memories one transaction of the bulk load holds.
	Batch int    `json:"bulk_batch"`
	Rungs []Rung `json:"rungs"`
	// Reopen are the searches a fresh process runs after opening the
	// loaded database: the counterpart of the bench's real-ihmtd restart.
	Reopen *Searches `json:"reopen,omitempty"`
}

// Rung is one size of the ladder: bulk-load to Size memories, then WarmSaves
// untimed and LatencySaves timed single saves, then, if given, searches in
// both scopes.
type Rung struct {
	Size         int       `json:"size"`
	WarmSaves    int       `json:"warm_saves"`
	LatencySaves int       `json:"latency_saves"`
	Search       *Searches `json:"search,omitempty"`
}

// Searches are the queries of one sample: Warm untimed, then Timed.
type Searches struct {
	Warm  []string `json:"warm"`
	Timed []string `json:"timed"`
}

// Memory is one line of a corpus file; Project "" is the global scope.
type Memory struct {
	Project string `json:"project"`
	Text    string `json:"text"`
}

// check says what a plan lacks before anything is measured.
func (p *Plan) check() error {
	var errs []error
	if p.Corpus == "" {
		errs = append(errs, errors.New("no corpus file"))
	}
	if p.Limit < 1 {
		errs = append(errs, fmt.Errorf("limit %d: a search returns at least one result", p.Limit))
	}
	if len(p.Levels)+len(p.SharedLevels) > 0 && (p.Throughput == "" || p.LevelMs <= 0) {
		errs = append(errs, errors.New("throughput levels need a throughput corpus and level_ms"))
	}
	last := 0
	for i, r := range p.Rungs {
		if r.Size < last {
			errs = append(errs, fmt.Errorf("rung %d: size %d is below the store already loaded (%d)", i, r.Size, last))
		}
		last = r.Size + r.WarmSaves + r.LatencySaves
	}
	if p.Batch < 1 {
		p.Batch = 1000
	}
	return errors.Join(errs...)
}

// need is how many ladder memories the plan saves.
func (p *Plan) need() int {
	n := 0
	for _, r := range p.Rungs {
		n = max(n, r.Size) + r.WarmSaves + r.LatencySaves
	}
	return n
}

func readPlan(file string) (*Plan, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("plan %s: %w", file, err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("plan %s: %w", file, err)
	}
	return &p, nil
}

// readCorpus reads a corpus file: one Memory a line, no blank lines.
func readCorpus(file string) ([]Memory, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	defer f.Close()
	ms, err := parseCorpus(f)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", file, err)
	}
	return ms, nil
}

func parseCorpus(r io.Reader) ([]Memory, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var ms []Memory
	for line := 1; sc.Scan(); line++ {
		var m Memory
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if m.Text == "" {
			return nil, fmt.Errorf("line %d: a memory without text", line)
		}
		ms = append(ms, m)
	}
	return ms, sc.Err()
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// Comparison is a same-conditions run of this build against a baseline
// revision: both as real ihmtd processes on fresh stores, measured in
// turns, so drift on a shared machine hits both.
type Comparison struct {
	Rev      string     `json:"baseline_rev"`
	Commit   string     `json:"baseline_commit"`
	Rounds   int        `json:"rounds"`
	Leaves   int        `json:"bulk_loaded_leaves"`
	Order    []string   `json:"order"` // which build ran when
	Current  [][]Figure `json:"current"`
	Baseline [][]Figure `json:"baseline"`
}

// builds is one side of a comparison: where its binaries are.
type buildSide struct {
	name, bin string
	figs      *[][]Figure
}

// runCompare builds the baseline revision beside this tree's build and
// measures both, round by round, in the order A B, B A, A B … (so neither
// always goes first).
func runCompare(ctx context.Context, cfg config) (*Record, error) {
	b, cleanup, err := newBench(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	rec := newRecord(ctx)
	cmp := &Comparison{Rev: cfg.baseline, Rounds: cfg.runs, Leaves: cfg.compareAt}
	rec.Comparison = cmp
	baseBin, err := b.buildBaseline(ctx, cmp)
	if err != nil {
		return rec, err
	}
	sides := []buildSide{{"current", b.bin, &cmp.Current}, {"baseline " + cmp.Commit, baseBin, &cmp.Baseline}}
	for round := range cfg.runs {
		for k := range sides {
			s := sides[(k+round)%2]
			progress("compare round %d/%d: %s", round+1, cfg.runs, s.name)
			cmp.Order = append(cmp.Order, s.name)
			fs, err := b.measureBuild(ctx, s.bin, fmt.Sprintf("cmp-%d-%d", round, k))
			if err != nil {
				return rec, fmt.Errorf("%s, round %d: %w", s.name, round+1, err)
			}
			*s.figs = append(*s.figs, fs)
		}
	}
	rec.Figures = spreads(cmp.Current)
	return rec, nil
}

// buildBaseline builds this tree and the baseline revision; it returns the
// baseline's binary directory.
func (b *bench) buildBaseline(ctx context.Context, cmp *Comparison) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	src := filepath.Join(b.tmp, "baseline-src")
	if cmp.Commit, err = exportRev(ctx, root, cmp.Rev, src); err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	progress("building ihmt-mcp and ihmtd of this tree, and of %s (%s)", cmp.Rev, cmp.Commit)
	if err := b.build(ctx); err != nil {
		return "", err
	}
	bin := filepath.Join(b.tmp, "baseline-bin")
	return bin, buildAt(ctx, src, bin)
}

// exportRev writes the tree of rev (a tag, a commit, HEAD~3) into dir with
// git archive, and returns the commit it names.
func exportRev(ctx context.Context, root, rev, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--short=12", "--verify", rev+"^{commit}").Output()
	if err != nil {
		return "", fmt.Errorf("baseline %q is not a commit here: %w", rev, err)
	}
	commit := strings.TrimSpace(string(out))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	if untar.Stdin, err = archive.StdoutPipe(); err != nil {
		return "", err
	}
	archive.Stderr, untar.Stderr = os.Stderr, os.Stderr
	if err := untar.Start(); err != nil {
		return "", fmt.Errorf("tar: %w", err)
	}
	if err := archive.Run(); err != nil {
		untar.Wait()
		return "", fmt.Errorf("git archive %s: %w", commit, err)
	}
	if err := untar.Wait(); err != nil {
		return "", fmt.Errorf("tar -x of %s: %w", commit, err)
	}
	return commit, nil
}

// measureBuild measures the build in bin as a real ihmtd on a fresh store:
// saves/s at 1 and 16 clients, the bulk load to the comparison's size,
// save and search latency there, the tool round trips through that build's
// own ihmt-mcp, its resident size, and how long the store takes to open.
func (b *bench) measureBuild(ctx context.Context, bin, name string) ([]Figure, error) {
	p := b.freshPaths(name)
	d, err := startReal(ctx, bin, p)
	if err != nil {
		return nil, err
	}
	defer d.kill()
	res := &Results{}
	if err := b.throughputLevels(ctx, p.Socket, []int{1, 16}, res); err != nil {
		return nil, err
	}
	sv := &saver{seed: b.cfg.seed}
	size := b.cfg.compareAt
	if err := b.loadAndTime(ctx, p, sv, size, res, true); err != nil {
		return nil, err
	}
	b.shimPhase(ctx, bin, p, res, int(sv.next.Load()))
	if err := b.reopen(ctx, d, res); err != nil {
		return nil, err
	}
	if len(res.Notes) > 0 {
		progress("%s: %s", name, strings.Join(res.Notes, "; "))
	}
	return res.figures(), ctx.Err()
}

// loadAndTime is one rung of the ladder: load the store to size, time
// sequential saves there, then, when search, searches in both scopes.
func (b *bench) loadAndTime(ctx context.Context, p paths.Paths, sv *saver, size int, res *Results, search bool) error {
	if err := b.preload(ctx, p, sv, int64(size), res); err != nil {
		return err
	}
	progress("save latency at %s leaves: %d sequential saves", thousands(int64(size)), b.cfg.latencySaves)
	at, err := b.saveLatency(ctx, p, sv)
	if err != nil {
		return err
	}
	res.SaveLatency = append(res.SaveLatency, at)
	if !search {
		return nil
	}
	return b.searchesAt(ctx, p.Socket, size, int(sv.next.Load()), res)
}

// printComparison writes current, baseline and current/baseline a figure.
func (c *Comparison) print(w io.Writer) {
	p := printer{w}
	p.section(fmt.Sprintf("This tree against %s (%s): %d round(s) each, real ihmtd on fresh stores of %s leaves, in turns", c.Rev, c.Commit, c.Rounds, thousands(int64(c.Leaves))))
	base := c.baselineSpreads()
	rows := [][]string{{"figure", "current", "baseline", "ratio cur/base"}}
	for _, s := range spreads(c.Current) {
		rows = append(rows, append([]string{s.Name, s.String()}, base.cells(s)...))
	}
	p.table(rows)
	p.f("order: %s\n", strings.Join(c.Order, ", "))
}

// baseSpreads are the baseline's figures by key.
type baseSpreads map[string]Spread

func (c *Comparison) baselineSpreads() baseSpreads {
	m := baseSpreads{}
	for _, s := range spreads(c.Baseline) {
		m[s.Key] = s
	}
	return m
}

// cells are the baseline's median [range] and the ratio of the medians,
// marked where it is a tenth worse or better.
func (m baseSpreads) cells(cur Spread) []string {
	b, ok := m[cur.Key]
	if !ok || b.Median == 0 {
		return []string{"", ""}
	}
	ratio := cur.Median / b.Median
	r := fmt.Sprintf("%.2f", ratio)
	if v := verdict(ratio, cur.Higher); v != "" {
		r += " (" + v + ")"
	}
	return []string{b.String(), r}
}

// verdict reads a ratio current/baseline: "worse" or "better" beyond a
// tenth either way, else "".
func verdict(ratio float64, higherIsBetter bool) string {
	if !higherIsBetter {
		ratio = 1 / ratio
	}
	switch {
	case ratio < 0.9:
		return "worse"
	case ratio > 1.1:
		return "better"
	}
	return ""
}

func (r *Record) comparisonRounds() int {
	if r.Comparison == nil {
		return 0
	}
	return r.Comparison.Rounds
}

func (r *Record) baselineSpreads() baseSpreads {
	if r.Comparison == nil {
		return nil
	}
	return r.Comparison.baselineSpreads()
}

package main

import (
	"fmt"
	"slices"
	"strings"
)

// Figure is one headline number of a run: what README's "Honest numbers"
// quotes, what -runs takes the median of and what -baseline compares.
type Figure struct {
	Key    string  `json:"key"`  // stable across runs and revisions
	Name   string  `json:"name"` // for people
	Unit   string  `json:"unit"` // "saves/s", "ms", "s" or "MiB"
	Value  float64 `json:"value"`
	Target float64 `json:"target,omitempty"` // 0: none
	// Higher is whether more is better (throughput) rather than less.
	Higher bool `json:"higher_is_better,omitempty"`
}

// met says whether v meets the figure's target: "yes", "no", or "" when the
// figure has none.
func (f Figure) met(v float64) string {
	if f.Target == 0 {
		return ""
	}
	ok := v <= f.Target
	if f.Higher {
		ok = v >= f.Target
	}
	if ok {
		return "yes"
	}
	return "no"
}

func (f Figure) target() string {
	if f.Target == 0 {
		return ""
	}
	if f.Higher {
		return "≥ " + fmtValue(f.Target, f.Unit)
	}
	return "≤ " + fmtValue(f.Target, f.Unit)
}

// fmtValue prints a figure's value with its unit.
func fmtValue(v float64, unit string) string {
	switch unit {
	case "ms":
		return fmtMs(v)
	case "s":
		return fmt.Sprintf("%.2f s", v)
	case "MiB":
		return fmt.Sprintf("%.0f MiB", v)
	}
	return thousands(int64(v + 0.5))
}

// figures are the headline numbers of a run, in the order the table shows
// them; a phase that did not run gives none.
func (r *Results) figures() []Figure {
	var fs []Figure
	add := func(f Figure) {
		if f.Value > 0 {
			fs = append(fs, f)
		}
	}
	for _, t := range r.Throughput {
		f := Figure{Key: fmt.Sprintf("saves_per_s_%d", t.Clients), Name: fmt.Sprintf("durable saves/s, %d client(s)", t.Clients), Unit: "saves/s", Value: t.PerSecond, Higher: true}
		if t.Clients == 16 {
			f.Target = 3000
		}
		add(f)
	}
	fs = append(fs, bulkFigures(r.Preload)...)
	for _, at := range r.SaveLatency {
		add(Figure{Key: fmt.Sprintf("save_p50_%d", roundSize(at.Leaves)), Name: "save p50 at " + sizeName(at.Leaves), Unit: "ms", Value: at.Latency.P50})
	}
	if n := len(r.SaveLatency); n > 0 {
		at := r.SaveLatency[n-1]
		add(Figure{Key: fmt.Sprintf("save_p99_%d", roundSize(at.Leaves)), Name: "save p99 at " + sizeName(at.Leaves), Unit: "ms", Value: at.Latency.P99})
	}
	for _, s := range r.Search {
		fs = append(fs, searchFigures(s, "")...)
	}
	fs = append(fs, r.restartFigures()...)
	if r.StoreBytes > 0 && len(r.SaveLatency) > 0 {
		at := r.SaveLatency[len(r.SaveLatency)-1].Leaves
		add(Figure{Key: fmt.Sprintf("store_mib_%d", roundSize(at)), Name: "store on disk at " + sizeName(at), Unit: "MiB", Value: mib(uint64(r.StoreBytes))})
	}
	add(Figure{Key: "tool_save_p50", Name: "tool round trip, save_memory p50", Unit: "ms", Value: r.Shim.SteadySave.P50, Target: 2})
	add(Figure{Key: "tool_search_p50", Name: "tool round trip, search_memory p50", Unit: "ms", Value: r.Shim.SteadySearch.P50})
	add(Figure{Key: "shim_spawn_p50", Name: "ihmt-mcp spawn → initialize p50", Unit: "ms", Value: r.Shim.SpawnToInit.P50, Target: 20})
	return append(fs, r.FTS5.figures()...)
}

// searchFigures are a search sample's p50 and p99; where says which daemon
// when it is not the bench's own.
func searchFigures(s SearchAt, where string) []Figure {
	if s.Latency.N == 0 {
		return nil
	}
	key := fmt.Sprintf("search_%s_%d%s", s.Scope, roundSize(s.Leaves), strings.ReplaceAll(where, " ", "_"))
	name := fmt.Sprintf("search at %s, scope %s%s", sizeName(s.Leaves), s.Scope, where)
	return []Figure{
		{Key: key + "_p50", Name: name + ", p50", Unit: "ms", Value: s.Latency.P50},
		{Key: key + "_p99", Name: name + ", p99", Unit: "ms", Value: s.Latency.P99, Target: s.TargetP99Ms},
	}
}

func (r *Results) restartFigures() []Figure {
	rs := r.Restart
	if rs.OpenSeconds == 0 {
		return nil
	}
	size := sizeName(rs.Leaves)
	fs := []Figure{{Key: fmt.Sprintf("open_s_%d", roundSize(rs.Leaves)), Name: "open " + size + " store → SERVING (real ihmtd)", Unit: "s", Value: rs.OpenSeconds, Target: targetOpen(rs.Leaves)}}
	s := rs.Search
	if rs.Leaves >= 100_000 {
		s.TargetP99Ms = 10
	}
	fs = append(fs, searchFigures(s, " (real ihmtd)")...)
	if rs.RSSMiB > 0 {
		fs = append(fs, Figure{Key: fmt.Sprintf("ihmtd_rss_mib_%d", roundSize(rs.Leaves)), Name: "ihmtd RSS at " + size + " after the searches", Unit: "MiB", Value: rs.RSSMiB})
	}
	return fs
}

// targetOpen is issue 19's open target: 3 s for 100k leaves, 30 s for 1M.
func targetOpen(leaves int64) float64 {
	switch {
	case leaves >= 1_000_000:
		return 30
	case leaves >= 100_000:
		return 3
	}
	return 0
}

// bulkFigures are the load rate over all preload stages, as acknowledged
// and until the last leaf file was on disk.
func bulkFigures(ps []Preload) []Figure {
	var n int64
	var secs, settled float64
	for _, p := range ps {
		n += p.To - p.From
		secs += p.Seconds
		settled += p.Seconds + max(0, p.LeafLagMs)/1000
	}
	if secs == 0 {
		return nil
	}
	last := ps[len(ps)-1]
	how, via := fmt.Sprintf("bulk load, %d saves in flight", last.InFlight), "saves"
	if last.Via == "import" {
		via = last.Via
		how = fmt.Sprintf("bulk load through Import, %d batches of %s in flight", last.InFlight, thousands(importBatch))
	}
	return []Figure{
		{Key: "bulk_" + via + "_per_s", Name: how, Unit: "memories/s", Value: float64(n) / secs, Higher: true},
		{Key: "bulk_" + via + "_settled_per_s", Name: how + ", until every leaf file is written", Unit: "memories/s", Value: float64(n) / settled, Higher: true},
	}
}

// roundSize is a store size as its ladder rung: the saves timed at a rung
// add a few leaves, which must not change the figure's key.
func roundSize(n int64) int64 {
	for _, r := range []int64{1_000_000, 100_000, 10_000, 1_000} {
		if n >= r {
			return n / r * r
		}
	}
	return n
}

func sizeName(n int64) string {
	r := roundSize(n)
	switch {
	case r >= 1_000_000 && r%1_000_000 == 0:
		return fmt.Sprintf("%dM", r/1_000_000)
	case r >= 1_000 && r%1_000 == 0:
		return fmt.Sprintf("%dk", r/1_000)
	}
	return thousands(r)
}

// Spread is a figure over several runs.
type Spread struct {
	Figure
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"runs"`
}

// spreads gathers each figure over runs, in the order figures first
// appear; a figure missing from a run counts only the runs that have it.
func spreads(runs [][]Figure) []Spread {
	var order []string
	first := map[string]Figure{}
	vals := map[string][]float64{}
	for _, fs := range runs {
		for _, f := range fs {
			if _, ok := first[f.Key]; !ok {
				order = append(order, f.Key)
				first[f.Key] = f
			}
			vals[f.Key] = append(vals[f.Key], f.Value)
		}
	}
	out := make([]Spread, 0, len(order))
	for _, k := range order {
		v := vals[k]
		out = append(out, Spread{Figure: first[k], Median: median(v), Min: slices.Min(v), Max: slices.Max(v), N: len(v)})
	}
	return out
}

// median of vs (the mean of the middle two for an even count); 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// String is the median and, over more than one run, the range.
func (s Spread) String() string {
	v := fmtValue(s.Median, s.Unit)
	if s.N < 2 {
		return v
	}
	return fmt.Sprintf("%s [%s]", v, valueRange(s.Min, s.Max, s.Unit))
}

// valueRange prints "lo–hi unit", the unit once when both ends share it.
func valueRange(lo, hi float64, unit string) string {
	a, b := fmtValue(lo, unit), fmtValue(hi, unit)
	ua, ub := lastWord(a), lastWord(b)
	if ua == ub && ua != a {
		a = strings.TrimSuffix(a, " "+ua)
	}
	return a + "–" + b
}

func lastWord(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

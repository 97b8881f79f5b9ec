package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"google.golang.org/protobuf/proto"
)

func protoSize(m proto.Message) int { return proto.Size(m) }

// mark compares a figure with its target: "ok" or "MISSED".
func mark(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// printer writes the report: lines, section titles and aligned tables.
type printer struct{ w io.Writer }

func (p printer) f(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func (p printer) section(title string) {
	p.f("\n%s\n%s\n", title, strings.Repeat("─", len([]rune(title))))
}

func (p printer) table(rows [][]string) {
	tw := tabwriter.NewWriter(p.w, 0, 0, 3, ' ', 0)
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

// print writes the report for people, a section a phase.
func (r *Results) print(w io.Writer, cfg config) {
	p := printer{w}
	r.printEnv(p)
	r.printThroughput(p)
	r.printPreload(p)
	r.printSaveLatency(p, cfg)
	r.printSearch(p)
	r.printShim(p, cfg)
	r.printMemory(p)
	r.printRestart(p)
	r.printFTS5(p)
	if len(r.Notes) > 0 {
		p.section("Notes")
		for _, n := range r.Notes {
			p.f("- %s\n", n)
		}
	}
	p.f("\ntotal %.1f s\n", r.TotalSeconds)
}

func (r *Results) printEnv(p printer) {
	e := r.Env
	p.f("IHMT benchmark (%s) — %s/%s, %d CPUs, %s, temp dir %s\n", r.Mode, e.GOOS, e.GOARCH, e.CPUs, e.GoVersion, e.TempDir)
	p.f("memories: generated, %d–%d bytes each, unique; e.g. %q\n", e.TextBytes[0], e.TextBytes[1], clipText(e.TextSample, 150))
	p.f("disk floor: append+fsync of 600 B p50 %s, p99 %s (every durable save pays at least one, shared by group commit)\n", fmtMs(r.Fsync.P50), fmtMs(r.Fsync.P99))
	p.f("file create floor: create temp + write 900 B + close + rename p50 %s, p99 %s (the leaf writer pays this per leaf, serially)\n", fmtMs(r.Create.P50), fmtMs(r.Create.P99))
	p.f("load average at start %s, at end %s (on a shared machine other work shows in every figure)\n", e.LoadStart, e.LoadEnd)
	p.f("build of ihmt-mcp + ihmtd: %.1f s\n", r.BuildSeconds)
}

func (r *Results) printThroughput(p printer) {
	p.section("Durable saves through the daemon (gRPC over a Unix socket; each client its own connection, one save in flight)")
	rows := [][]string{{"clients", "saves/s", "p50", "p99", "max", "saves", "store before", "errors", "target"}}
	for _, t := range r.Throughput {
		target := ""
		if t.Clients == 16 {
			target = fmt.Sprintf("≥ 3,000/s: %s", mark(t.PerSecond >= 3000))
		}
		rows = append(rows, []string{fmt.Sprint(t.Clients), thousands(int64(t.PerSecond)), fmtMs(t.Latency.P50), fmtMs(t.Latency.P99), fmtMs(t.Latency.Max),
			thousands(int64(t.Saves)), thousands(t.StoreBefore), fmt.Sprint(t.Errors), target})
	}
	p.table(rows)
	if len(r.Throughput) > 1 {
		p.f("scaling: %s\n", scaling(r.Throughput))
	}
	if r.LeafCatchUp >= 0 {
		p.f("leaf files all on disk %s after the last acknowledgement (the log is the durability point; files follow)\n", fmtMs(r.LeafCatchUp))
	} else {
		p.f("leaf files did NOT catch up with the acknowledged saves within 60 s\n")
	}
}

func (r *Results) printPreload(p printer) {
	p.section("Bulk preload (the bulk saves/s figure)")
	rows := [][]string{{"leaves", "time", "saves/s", "in flight", "leaf files lag", "errors"}}
	for _, pl := range r.Preload {
		rows = append(rows, []string{thousands(pl.From) + " → " + thousands(pl.To), fmt.Sprintf("%.2f s", pl.Seconds), thousands(int64(pl.PerSecond)),
			fmt.Sprint(pl.InFlight), fmtMs(pl.LeafLagMs), fmt.Sprint(pl.Errors)})
	}
	p.table(rows)
}

func (r *Results) printSaveLatency(p printer, cfg config) {
	p.section(fmt.Sprintf("Save latency vs store size (1 client, sequential, %d saves each)", cfg.latencySaves))
	rows := [][]string{{"leaves", "p50", "p90", "p99", "max", "p50 ratio"}}
	for i, at := range r.SaveLatency {
		ratio := "1.00 (base)"
		if base := r.SaveLatency[0]; i > 0 && base.Latency.P50 > 0 {
			ratio = fmt.Sprintf("%.2f× vs %s", at.Latency.P50/base.Latency.P50, thousands(base.Leaves))
		}
		rows = append(rows, []string{thousands(at.Leaves), fmtMs(at.Latency.P50), fmtMs(at.Latency.P90), fmtMs(at.Latency.P99), fmtMs(at.Latency.Max), ratio})
	}
	p.table(rows)
	p.f("goal: flat (ratio ≈ 1)\n")
}

func (r *Results) printSearch(p printer) {
	p.section(fmt.Sprintf("Search latency through the daemon (1 client, sequential; caller in project svc-0; queries: words of stored memories, 10%% nonsense)"))
	rows := [][]string{{"leaves", "scope", "p50", "p90", "p99", "max", "mean scored / visible", "nodes read", "via tree", "resp", "verdicts", "target"}}
	searches := r.Search
	if r.Restart.Search.Latency.N > 0 {
		searches = append(searches, r.Restart.Search)
	}
	for _, s := range searches {
		target := ""
		if s.TargetP99Ms > 0 {
			target = fmt.Sprintf("p99 ≤ %.0f ms: %s", s.TargetP99Ms, mark(s.Latency.P99 <= s.TargetP99Ms))
		}
		scope := s.Scope
		if s.RealDaemon {
			scope += " (real ihmtd)"
		}
		rows = append(rows, []string{thousands(s.Leaves), scope, fmtMs(s.Latency.P50), fmtMs(s.Latency.P90), fmtMs(s.Latency.P99), fmtMs(s.Latency.Max),
			fmt.Sprintf("%s / %s", thousands(int64(s.MeanScored)), thousands(int64(s.MeanVisible))), fmt.Sprintf("%.1f", s.MeanNodes), fmt.Sprintf("%.0f%%", 100*s.ViaTree), fmt.Sprintf("%.1f KiB", s.ResponseKiB),
			verdicts(s.Verdicts), target})
		if s.Errors > 0 {
			rows = append(rows, []string{"", fmt.Sprintf("%d errors, first: %s", s.Errors, s.FirstMessage)})
		}
	}
	p.table(rows)
}

func (r *Results) printShim(p printer, cfg config) {
	sh := r.Shim
	p.section(fmt.Sprintf("ihmt-mcp over stdio (raw JSON-RPC, protocol 2025-06-18; store of %s leaves)", thousands(sh.StoreLeaves)))
	rows := [][]string{{"measure", "n", "p50", "p90", "p99", "max", "target"}}
	add := func(name string, l Lat, target string) {
		rows = append(rows, []string{name, fmt.Sprint(l.N), fmtMs(l.P50), fmtMs(l.P90), fmtMs(l.P99), fmtMs(l.Max), target})
	}
	add("spawn → initialize result", sh.SpawnToInit, fmt.Sprintf("p50 ≤ 20 ms: %s", mark(sh.SpawnToInit.N > 0 && sh.SpawnToInit.P50 <= 20)))
	add("first save_memory (lazy dial)", sh.FirstCall, "")
	add("stdin closed → exit", sh.Exit, "")
	add("steady save_memory round trip", sh.SteadySave, fmt.Sprintf("p50 ≤ 3 ms: %s", mark(sh.SteadySave.N > 0 && sh.SteadySave.P50 <= 3)))
	add("steady search_memory round trip", sh.SteadySearch, fmt.Sprintf("p50 ≤ 3 ms: %s", mark(sh.SteadySearch.N > 0 && sh.SteadySearch.P50 <= 3)))
	add("cold: first call auto-starts ihmtd", sh.ColdStart, "")
	p.table(rows)
	if sh.AnswerText.N > 0 {
		// Sizes went through Lat as milliseconds per byte; about 4 bytes of
		// English make a token.
		p.f("compact search answer: text p50 %.0f B (≈%.0f tokens), p90 %.0f B, max %.0f B; structured content p50 %.0f B (≈%.0f tokens), max %.0f B\n",
			sh.AnswerText.P50, sh.AnswerText.P50/4, sh.AnswerText.P90, sh.AnswerText.Max,
			sh.AnswerStructured.P50, sh.AnswerStructured.P50/4, sh.AnswerStructured.Max)
	}
	if len(r.SaveLatency) > 0 && sh.SteadySave.N > 0 {
		// The latency sample nearest the shim's store size.
		base := r.SaveLatency[0]
		for _, at := range r.SaveLatency {
			if at.Leaves <= sh.StoreLeaves {
				base = at
			}
		}
		p.f("shim overhead on a save: %s (p50 via shim %s − direct gRPC p50 %s at %s leaves)\n",
			fmtMs(sh.SteadySave.P50-base.Latency.P50), fmtMs(sh.SteadySave.P50), fmtMs(base.Latency.P50), thousands(base.Leaves))
	}
	p.f("shim RSS after %d calls: %.1f MiB (peak %.1f MiB); auto-started ihmtd RSS (empty store): %.1f MiB\n", 2*cfg.shimCalls, sh.ShimRSSMiB, sh.ShimMaxRSSMiB, sh.ColdDaemonRSS)
	if sh.Errors > 0 {
		p.f("shim errors: %d, first: %s\n", sh.Errors, sh.FirstError)
	}
	if sh.ColdStartError != "" {
		p.f("cold start error: %s\n", sh.ColdStartError)
	}
}

func (r *Results) printMemory(p printer) {
	p.section("Memory")
	rows := [][]string{{"process", "leaves", "heap in use", "heap alloc", "Go sys", "RSS", "RSS peak"}}
	for _, m := range r.Memory {
		rows = append(rows, []string{"bench (in-process daemon)", thousands(m.Leaves), fmt.Sprintf("%.1f MiB", m.HeapInuseMiB), fmt.Sprintf("%.1f MiB", m.HeapAllocMiB),
			fmt.Sprintf("%.1f MiB", m.SysMiB), fmt.Sprintf("%.1f MiB", m.RSSMiB), ""})
	}
	if r.Restart.RSSMiB > 0 {
		rows = append(rows, []string{"ihmtd (real, after open + searches)", thousands(r.Restart.Leaves), "", "", "", fmt.Sprintf("%.1f MiB", r.Restart.RSSMiB), fmt.Sprintf("%.1f MiB", r.Restart.MaxRSSMiB)})
	}
	if r.Restart.IdleRSSMiB > 0 {
		rows = append(rows, []string{fmt.Sprintf("ihmtd (real, then idle %v)", idleWait), thousands(r.Restart.Leaves), "", "", "", fmt.Sprintf("%.1f MiB", r.Restart.IdleRSSMiB), ""})
	}
	p.table(rows)
	p.f("in-process figures are the whole bench process (daemon + clients), after runtime.GC; the store on disk: %.1f MiB\n", mib(uint64(r.StoreBytes)))
}

func (r *Results) printRestart(p printer) {
	p.section("Daemon restart on the loaded store (real ihmtd binary)")
	if r.Restart.Error != "" {
		p.f("error: %s\n", r.Restart.Error)
	}
	p.f("%s leaves: open → SERVING %.2f s; SIGTERM → exit %.2f s\n", thousands(r.Restart.Leaves), r.Restart.OpenSeconds, r.Restart.StopSeconds)
	p.f("cold session on it (no daemon running): ihmt-mcp's first save_memory took %s", fmtMs(r.Restart.ColdCallMs))
	if r.Restart.ColdError != "" {
		p.f(" and FAILED: %s\n", r.Restart.ColdError)
	} else {
		p.f(" and succeeded\n")
	}
	p.f("  (the auto-started ihmtd served %s after that call began)\n", fmtMs(r.Restart.ColdServingMs))
}

func scaling(ts []Throughput) string {
	var parts []string
	base := ts[0].PerSecond
	for _, t := range ts[1:] {
		parts = append(parts, fmt.Sprintf("%d clients = %.1f× of 1 client", t.Clients, t.PerSecond/base))
	}
	return strings.Join(parts, ", ")
}

func verdicts(m map[string]int) string {
	var parts []string
	for _, k := range []string{"found", "ambiguous", "not_found"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// printFigures writes the headline figures of one or more runs: the
// median and, over several runs, the range, against each target.
func printFigures(w io.Writer, ss []Spread, runs int) {
	p := printer{w}
	p.section(fmt.Sprintf("Figures: median [min–max] of %d run(s)", runs))
	pairs, fts := sideBySide(ss)
	head := []string{"figure", "median [range]", "target", "met?"}
	if fts {
		head = []string{"figure", "median [range]", "SQLite FTS5", "ahead?", "target", "met?"}
	}
	rows := [][]string{head}
	for _, r := range pairs {
		row := []string{r.Name, r.String()}
		if fts {
			row = append(row, r.cells()...)
		}
		rows = append(rows, append(row, r.target(), r.met(r.Median)))
	}
	p.table(rows)
}

// printFTS5 writes SQLite FTS5's figures on the same corpus and questions,
// then the figures both measured side by side.
func (r *Results) printFTS5(p printer) {
	f := r.FTS5
	if f == nil {
		return
	}
	p.section("SQLite FTS5 on the same memories and questions (scripts/fts5, a process of its own)")
	p.f("%s; %s\n", f.Driver, f.Settings)
	p.f("runner built in %.1f s, measured in %.1f s\n", f.BuildSeconds, f.Seconds)
	if f.Error != "" {
		p.f("error: %s\n", f.Error)
	}
	rows := [][]string{{"writers", "connections", "saves/s", "p50", "p99", "max", "saves", "before", "errors"}}
	for _, lv := range f.Throughput {
		rows = append(rows, []string{fmt.Sprint(lv.Writers), lv.Conns, thousands(int64(lv.PerSecond)), fmtMs(lv.Latency.P50), fmtMs(lv.Latency.P99), fmtMs(lv.Latency.Max),
			thousands(int64(lv.Saves)), thousands(int64(lv.Before)), fmt.Sprint(lv.Errors)})
	}
	p.table(rows)
	for _, lv := range f.Throughput {
		if lv.FirstErr != "" {
			p.f("%d writers (%s): first error %s\n", lv.Writers, lv.Conns, lv.FirstErr)
		}
	}
	rows = [][]string{{"memories", "bulk load", "single saves", "p50", "p99", "max"}}
	for i, at := range f.SaveLatency {
		load := ""
		if i < len(f.Preload) {
			ld := f.Preload[i]
			load = fmt.Sprintf("%s → %s, %s/s (%s a transaction)", thousands(int64(ld.From)), thousands(int64(ld.To)), thousands(int64(ld.PerSecond)), thousands(int64(ld.Batch)))
		}
		rows = append(rows, []string{thousands(int64(at.Memories)), load, fmt.Sprint(at.Latency.N), fmtMs(at.Latency.P50), fmtMs(at.Latency.P99), fmtMs(at.Latency.Max)})
	}
	p.table(rows)
	rows = [][]string{{"memories", "scope", "p50", "p90", "p99", "max", "mean results", "none found", "errors"}}
	searches := f.Search
	if f.Reopen != nil && f.Reopen.Search.Latency.N > 0 {
		s := f.Reopen.Search
		s.Scope += " (a fresh process)"
		searches = append(searches, s)
	}
	for _, s := range searches {
		rows = append(rows, []string{thousands(int64(s.Memories)), s.Scope, fmtMs(s.Latency.P50), fmtMs(s.Latency.P90), fmtMs(s.Latency.P99), fmtMs(s.Latency.Max),
			fmt.Sprintf("%.1f", s.MeanHits), fmt.Sprint(s.Empty), fmt.Sprint(s.Errors)})
	}
	p.table(rows)
	if ro := f.Reopen; ro != nil {
		if ro.Error != "" {
			p.f("reopen error: %s\n", ro.Error)
		} else {
			p.f("%s memories: a fresh process opened the database and answered its first question in %.3f s; RSS after the searches %.1f MiB (peak %.1f MiB)\n",
				thousands(int64(ro.Memories)), ro.FirstAnswerS, ro.RSSMiB, ro.MaxRSSMiB)
		}
	}
	p.f("on disk, closed: %.1f MiB (db %.1f MiB, wal %.1f MiB, shm %.1f MiB)\n", mib(uint64(f.Disk.Total)), mib(uint64(f.Disk.DB)), mib(uint64(f.Disk.WAL)), mib(uint64(f.Disk.SHM)))
	for _, n := range f.Notes {
		p.f("- %s\n", n)
	}

	p.section("ihmtd against SQLite FTS5: the figures both measure (same corpus, same questions)")
	rows = [][]string{{"figure", "ihmtd", "SQLite FTS5", "ihmtd ahead?"}}
	pairs, _ := sideBySide(spreads([][]Figure{r.figures()}))
	for _, row := range pairs {
		if row.fts5 != nil {
			rows = append(rows, append([]string{row.Name, row.String()}, row.cells()...))
		}
	}
	p.table(rows)
}

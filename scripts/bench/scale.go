package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/corpus"
	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The scale run loads memories through Import: exported records carry a
// complete header, so the daemon skips what a save decides afresh — the
// instruction screening, the duplicate check, the inference of probable
// corrections — but still checks each record (secrets, checksum, id),
// extracts its facts, appends it to the hash-chained log and writes its
// leaf file: the store it builds has the same files, index and timelines.
const (
	importBatch    = 5000 // the store's limit of records an import call
	importInFlight = 3    // batches in flight: one in the writer, others admitted meanwhile
)

// bulkRecord is a record as Export writes it: the leaf header and the text.
type bulkRecord struct {
	leaf.Header
	Text string `json:"text"`
}

// recordOf is memory i as an exported record of an agent's save, recorded
// at base + i ms; it is what Save would have stored from saveReq.
func recordOf(seed uint64, i int, base time.Time) (string, error) {
	proj, global := corpus.ProjectOf(i)
	h := leaf.Header{Scope: leaf.ScopeProject, Project: proj, Agent: leaf.Agent{Name: "ihmt-bench", Version: "1"},
		Session: fmt.Sprintf("bulk-%d", i/importBatch), Trust: leaf.TrustAsserted, Status: leaf.StatusActive}
	if global {
		h.Scope, h.Project, h.OriginProject = leaf.ScopeGlobal, "", corpus.ProjectName(i%corpus.Projects)
	}
	text := corpus.Memory(seed, i)
	h.RecordedAt = base.Add(time.Duration(i) * time.Millisecond)
	h.ValidFrom = h.RecordedAt
	if t, ok := dates.Leading(text); ok {
		h.ValidFrom = t // as a save reads the date a text opens with
	}
	h.Checksum, h.ID = leaf.Checksum(text), leaf.ID(h, text)
	b, err := json.Marshal(bulkRecord{Header: h, Text: text})
	return string(b), err
}

// importBulk loads memories [from, to) through Import, importInFlight
// batches at a time, and reports the stage as a preload.
func (b *bench) importBulk(ctx context.Context, p paths.Paths, from, to int) (Preload, error) {
	c, err := client.New(client.Options{Socket: p.Socket})
	if err != nil {
		return Preload{}, err
	}
	defer c.Close()
	caller := &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, AgentVersion: "1", SessionId: "bench-bulk"}
	base := time.Now().UTC().Add(-time.Duration(to) * time.Millisecond).Truncate(time.Second)
	var next, done atomic.Int64
	next.Store(int64(from))
	start := time.Now()
	stop := b.ticker(func() {
		n := done.Load()
		progress("bulk import: %s / %s leaves, %s records/s", thousands(int64(from)+n), thousands(int64(to)), thousands(int64(float64(n)/time.Since(start).Seconds())))
	})
	var wg sync.WaitGroup
	errs := make(chan error, importInFlight)
	for range importInFlight {
		wg.Go(func() {
			for ctx.Err() == nil {
				lo := int(next.Add(importBatch) - importBatch)
				if lo >= to {
					return
				}
				n, err := importBatchOf(ctx, c, caller, b.cfg.seed, lo, min(lo+importBatch, to), base)
				done.Add(int64(n))
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	stop()
	close(errs)
	if err := <-errs; err != nil {
		return Preload{}, err
	}
	secs := time.Since(start).Seconds()
	return Preload{From: int64(from), To: int64(to), Seconds: secs, PerSecond: float64(to-from) / secs, InFlight: importInFlight, Via: "import"}, ctx.Err()
}

// importBatchOf imports memories [lo, hi) in one call.
func importBatchOf(ctx context.Context, c *client.Client, caller *ihmtv1.Caller, seed uint64, lo, hi int, base time.Time) (int, error) {
	recs := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		r, err := recordOf(seed, i, base)
		if err != nil {
			return 0, err
		}
		recs = append(recs, r)
	}
	resp, err := c.Import(ctx, &ihmtv1.ImportRequest{Caller: caller, Records: recs})
	if err != nil {
		return 0, fmt.Errorf("import of memories %d–%d: %w", lo, hi-1, err)
	}
	if got := resp.GetImported(); got != int64(len(recs)) {
		return int(got), fmt.Errorf("import of memories %d–%d stored %d of %d (unchanged %d, skipped %d)", lo, hi-1, got, len(recs), resp.GetUnchanged(), resp.GetSkipped())
	}
	return len(recs), nil
}

// ticker calls f every 2 s until the returned stop is called.
func (b *bench) ticker(f func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() { close(quit); <-done }
}

// runScale bulk-loads cfg.scale memories into a real ihmtd of this tree,
// then times saves and searches at that size, reads the daemon's resident
// size and restarts it to time the open.
func runScale(ctx context.Context, cfg config) (*Results, error) {
	b, cleanup, err := newBench(cfg)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	start := time.Now()
	res := &Results{Mode: fmt.Sprintf("scale %d via %s", cfg.scale, cfg.bulk), Env: Env{CPUs: thisMachine().CPUs, LoadStart: loadavg()}}
	defer func() { res.TotalSeconds, res.Env.LoadEnd = time.Since(start).Seconds(), loadavg() }()
	progress("building ihmt-mcp and ihmtd")
	if err := b.build(ctx); err != nil {
		return res, err
	}
	p := b.freshPaths("scale")
	d, err := startReal(ctx, b.bin, p)
	if err != nil {
		return res, err
	}
	defer d.kill()
	sv := &saver{seed: cfg.seed}
	if err := b.bulkLoad(ctx, p, sv, cfg.scale, res); err != nil {
		return res, err
	}
	if err := b.loadAndTime(ctx, p, sv, cfg.scale, res, true); err != nil {
		return res, err
	}
	return res, b.reopen(ctx, d, res)
}

// bulkLoad fills the store to n memories, through Import or through Save
// (-bulk), and waits for the leaf files.
func (b *bench) bulkLoad(ctx context.Context, p paths.Paths, sv *saver, n int, res *Results) error {
	if b.cfg.bulk == "save" {
		return b.preload(ctx, p, sv, int64(n), res)
	}
	progress("bulk import: 0 → %s leaves, batches of %d, %d in flight", thousands(int64(n)), importBatch, importInFlight)
	pl, err := b.importBulk(ctx, p, 0, n)
	if err != nil {
		return err
	}
	// The saves timed next are memories numbered after the imported ones.
	sv.next.Store(int64(n))
	pl.LeafLagMs = b.leafLag(ctx, p, time.Duration(n)*4*time.Millisecond+2*time.Minute) // the leaf writer trails the log
	progress("bulk import: %s leaves in %.1f s (%s records/s); leaf files caught up %s later", thousands(int64(n)), pl.Seconds, thousands(int64(pl.PerSecond)), fmtMs(pl.LeafLagMs))
	res.Preload = append(res.Preload, pl)
	res.Notes = append(res.Notes, "loaded through Import: each record checked (secrets, checksum, id) and its facts extracted, but no instruction screening, duplicate check or inference of probable corrections; the saves timed at this size are real saves")
	return nil
}

// reopen reads the daemon's resident size, stops it, and starts it again
// on its store to time the open.
func (b *bench) reopen(ctx context.Context, d *realDaemon, res *Results) error {
	r := &res.Restart
	r.RSSMiB, r.MaxRSSMiB = d.rss()
	r.Leaves = storeLeaves(ctx, d.p.Socket)
	if _, err := d.stop(); err != nil {
		return err
	}
	res.StoreBytes = dirSize(d.p.Data)
	progress("reopening the %s-leaf store (%.0f MiB on disk)", thousands(r.Leaves), mib(uint64(res.StoreBytes)))
	d2, err := startReal(ctx, d.bin, d.p)
	if err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	r.OpenSeconds = d2.open.Seconds()
	_, err = d2.stop()
	return err
}

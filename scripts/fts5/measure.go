package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// runner measures one plan in dir, a directory of its own.
type runner struct {
	plan *Plan
	dir  string
	exe  string // this program, started again for the reopen
	rep  *Report
}

// run measures every phase the plan names, in the bench's order: the
// concurrent saves on a fresh database, then the ladder, then a fresh
// process opening the loaded database.
func (r *runner) run(ctx context.Context) error {
	ladder, err := readCorpus(r.plan.Corpus)
	if err != nil {
		return err
	}
	if need := r.plan.need(); len(ladder) < need {
		return fmt.Errorf("corpus %s has %d memories; the plan saves %d", r.plan.Corpus, len(ladder), need)
	}
	if err := r.throughputPhase(ctx); err != nil {
		return fmt.Errorf("throughput: %w", err)
	}
	path := filepath.Join(r.dir, "ladder.db")
	if err := r.ladderPhase(ctx, path, ladder); err != nil {
		return fmt.Errorf("ladder: %w", err)
	}
	r.rep.Disk = diskOf(path)
	if r.plan.Reopen != nil {
		r.rep.Reopen = r.reopen(ctx, path, r.loaded())
	}
	return ctx.Err()
}

// loaded is how many memories the ladder leaves in the database.
func (r *runner) loaded() int { return r.plan.need() }

// throughputPhase saves for level_ms at each level on one fresh database:
// first each writer on a connection of its own (as agents' separate
// processes would be), then writers sharing one connection (one process
// whose pool holds a single connection).
func (r *runner) throughputPhase(ctx context.Context) error {
	if len(r.plan.Levels)+len(r.plan.SharedLevels) == 0 {
		return nil
	}
	texts, err := readCorpus(r.plan.Throughput)
	if err != nil {
		return err
	}
	path := filepath.Join(r.dir, "throughput.db")
	src := &textSource{texts: texts}
	for _, n := range r.plan.Levels {
		lv, err := r.level(ctx, path, src, n, n, "own")
		if err != nil {
			return err
		}
		r.rep.Throughput = append(r.rep.Throughput, lv)
	}
	for _, n := range r.plan.SharedLevels {
		lv, err := r.level(ctx, path, src, n, 1, "shared")
		if err != nil {
			return err
		}
		r.rep.Throughput = append(r.rep.Throughput, lv)
	}
	if w := src.wrapped.Load(); w > 0 {
		r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("throughput: the %d texts ran out; %d saves reused one", len(texts), w))
	}
	return nil
}

// textSource hands out the throughput texts to any number of writers.
type textSource struct {
	texts   []Memory
	next    atomic.Int64
	wrapped atomic.Int64
}

func (s *textSource) take() Memory {
	i := int(s.next.Add(1) - 1)
	if i >= len(s.texts) {
		s.wrapped.Add(1)
		m := s.texts[i%len(s.texts)]
		m.Text = fmt.Sprintf("%s (again, %d)", m.Text, i/len(s.texts))
		return m
	}
	return s.texts[i]
}

// level runs writers goroutines over conns connections for level_ms.
func (r *runner) level(ctx context.Context, path string, src *textSource, writers, conns int, how string) (Level, error) {
	db, err := openDB(ctx, path, conns)
	if err != nil {
		return Level{}, err
	}
	defer db.Close()
	qs := make([]querier, writers)
	for k := range qs {
		qs[k] = db
		if how == "own" {
			c, err := db.Conn(ctx)
			if err != nil {
				return Level{}, fmt.Errorf("connection %d: %w", k, err)
			}
			defer c.Close()
			qs[k] = c
		}
	}
	for _, q := range qs { // warm up: each connection's first statement
		if err := save(ctx, q, src.take()); err != nil {
			return Level{}, fmt.Errorf("warm-up save: %w", err)
		}
	}
	lv := Level{Writers: writers, Conns: how, Before: count(ctx, qs[0])}
	progress("throughput: %d writer(s), %s connection(s), for %d ms", writers, how, r.plan.LevelMs)
	lat := make([][]time.Duration, writers)
	var errs atomic.Int64
	var firstErr sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(time.Duration(r.plan.LevelMs) * time.Millisecond)
	for k, q := range qs {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				m := src.take()
				t := time.Now()
				if err := save(ctx, q, m); err != nil {
					errs.Add(1)
					firstErr.Do(func() { lv.FirstErr = err.Error() })
					continue
				}
				lat[k] = append(lat[k], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	lv.Saves, lv.Seconds, lv.Errors = len(all), elapsed.Seconds(), int(errs.Load())
	lv.PerSecond, lv.Latency = float64(len(all))/elapsed.Seconds(), summarize(all)
	return lv, ctx.Err()
}

// count is how many memories the database holds, asked on q: a level's
// writers hold every connection its pool may open.
func count(ctx context.Context, q querier) int {
	rows, err := q.QueryContext(ctx, `SELECT count(*) FROM memories`)
	if err != nil {
		return -1
	}
	defer rows.Close()
	n := -1
	if rows.Next() {
		rows.Scan(&n)
	}
	return n
}

// ladderPhase grows one database through the rungs as the bench grows
// ihmtd's store: the same memories in the same order, single saves timed at
// each size, and the same questions where the bench asked them.
func (r *runner) ladderPhase(ctx context.Context, path string, ladder []Memory) error {
	db, err := openDB(ctx, path, 1) // one client, as the bench's ladder
	if err != nil {
		return err
	}
	defer db.Close()
	r.rep.Driver += ", SQLite " + sqliteVersion(ctx, db)
	next := 0
	for _, rung := range r.plan.Rungs {
		if rung.Size > next {
			ld, err := r.bulkLoad(ctx, db, ladder, next, rung.Size)
			if err != nil {
				return err
			}
			r.rep.Preload = append(r.rep.Preload, ld)
			next = rung.Size
		}
		var ds []time.Duration
		for i := range rung.WarmSaves + rung.LatencySaves {
			t := time.Now()
			if err := save(ctx, db, ladder[next]); err != nil {
				return fmt.Errorf("save %d: %w", next, err)
			}
			if i >= rung.WarmSaves {
				ds = append(ds, time.Since(t))
			}
			next++
		}
		r.rep.SaveLat = append(r.rep.SaveLat, AtSize{Memories: rung.Size, Latency: summarize(ds)})
		if rung.Search == nil {
			continue
		}
		for _, scope := range []Scope{ScopeDefault, ScopeAll} {
			progress("search at %d memories, scope %s: %d sequential searches", next, scope, len(rung.Search.Timed))
			s := searchSample(ctx, db, rung.Search, scope, r.plan.Project, r.plan.Limit)
			s.Memories = rung.Size
			r.rep.Search = append(r.rep.Search, s)
		}
	}
	return ctx.Err()
}

// bulkLoad loads memories [from, to) in transactions of plan.Batch.
func (r *runner) bulkLoad(ctx context.Context, db *sql.DB, ladder []Memory, from, to int) (Load, error) {
	progress("bulk load: %d → %d memories, %d a transaction", from, to, r.plan.Batch)
	t := time.Now()
	for lo := from; lo < to; lo += r.plan.Batch {
		if err := saveBatch(ctx, db, ladder[lo:min(to, lo+r.plan.Batch)]); err != nil {
			return Load{}, fmt.Errorf("bulk load at %d: %w", lo, err)
		}
	}
	secs := time.Since(t).Seconds()
	return Load{From: from, To: to, Batch: r.plan.Batch, Seconds: secs, PerSecond: float64(to-from) / secs}, nil
}

// searchSample runs the warm-up questions untimed, then the timed ones.
func searchSample(ctx context.Context, q querier, s *Searches, scope Scope, project string, limit int) SearchAt {
	at := SearchAt{Scope: scope}
	for _, query := range s.Warm {
		search(ctx, q, query, scope, project, limit)
	}
	var ds []time.Duration
	hits := 0
	for _, query := range s.Timed {
		t := time.Now()
		n, err := search(ctx, q, query, scope, project, limit)
		d := time.Since(t)
		if err != nil {
			at.Errors++
			if at.FirstErr == "" {
				at.FirstErr = err.Error()
			}
			continue
		}
		ds = append(ds, d)
		hits += n
		if n == 0 {
			at.Empty++
		}
	}
	at.Latency = summarize(ds)
	if len(ds) > 0 {
		at.MeanHits = float64(hits) / float64(len(ds))
	}
	return at
}

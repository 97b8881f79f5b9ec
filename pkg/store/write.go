package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// request is one mutation for the writer: a save, which the writer batches
// with the saves queued beside it, or any other operation, which it commits
// alone so that its checks see every write before it.
type request struct {
	save *saveReq
	op   *opReq
}

// opReq is a mutation other than a save. commit runs in the writer
// goroutine — the only one that changes the store, so it may read state
// without the lock — and makes the operation's change durable, publishes it
// and answers the caller (see doOp).
type opReq struct {
	commit func(now time.Time, j *journal.Journal)
}

// changeOf is what an operation does, and what it answers (R). Its entries
// are appended and synced first; only then are its leaves published (under
// the lock) and queued for their files, and then is done called, still in
// the writer, for the answer.
type changeOf[R any] struct {
	entries []entry
	leaves  []*leaf.Leaf
	facts   map[string][]facts.Fact // facts already extracted, by leaf id
	done    func(j *journal.Journal) (R, error)
}

// change is the change of an operation that answers nothing but whether it
// took effect.
type change = changeOf[struct{}]

// answer is a change that writes nothing and answers v.
func answer[R any](v R) *changeOf[R] {
	return &changeOf[R]{done: func(*journal.Journal) (R, error) { return v, nil }}
}

// submit queues r for the writer, unless the store is closing.
func (s *Store) submit(ctx context.Context, r *request) error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	select {
	case s.reqs <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do is doOp for an operation that answers nothing but whether it took
// effect (a log entry of its own, Flush's empty operation).
func (s *Store) do(ctx context.Context, run func(now time.Time) (*change, error)) (struct{}, error) {
	return doOp(ctx, s, run)
}

// doOp runs an operation in the writer and waits for its answer: what its
// change's done returns once the change is durable and published.
func doOp[R any](ctx context.Context, s *Store, run func(now time.Time) (*changeOf[R], error)) (R, error) {
	type outcome struct {
		v   R
		err error
	}
	answered := make(chan outcome, 1)
	op := &opReq{commit: func(now time.Time, j *journal.Journal) {
		v, err := commitChange(s, j, now, run)
		answered <- outcome{v, err}
	}}
	var none R
	if err := s.submit(ctx, &request{op: op}); err != nil {
		return none, err
	}
	select {
	case o := <-answered:
		return o.v, o.err
	case <-ctx.Done():
		return none, fmt.Errorf("%w (the change may still complete)", ctx.Err())
	}
}

// writeLoop is the single writer. It runs until Close, then drains what was
// already queued so no accepted request is dropped.
func (s *Store) writeLoop(j *journal.Journal) {
	defer s.leaves.close()
	defer func() {
		if err := j.Close(); err != nil {
			s.writerErr = err
		}
	}()
	var next *request
	for {
		s.saveFactsIfMany()
		s.dropTexts()
		first := next
		next = nil
		if first == nil {
			select {
			case <-s.written.kick:
				continue
			case first = <-s.reqs:
			case <-s.closing:
				// Drain: every request accepted before Close is in reqs by
				// now (see closeMu), and no more can arrive.
				for {
					select {
					case r := <-s.reqs:
						s.commit(r, j)
					default:
						return
					}
				}
			}
		}
		if first.op != nil {
			s.commitOp(first.op, j)
			continue
		}
		batch := []*saveReq{first.save}
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-s.reqs:
				if r.op != nil {
					next = r // after this batch, alone
					break gather
				}
				batch = append(batch, r.save)
			default:
				break gather
			}
		}
		s.commitSaves(batch, j)
	}
}

func (s *Store) commit(r *request, j *journal.Journal) {
	if r.op != nil {
		s.commitOp(r.op, j)
		return
	}
	s.commitSaves([]*saveReq{r.save}, j)
}

// commitSaves makes a batch of saves durable with a single log append and
// sync, then publishes it and answers every caller.
//
// The batch's leaves share one record time, and a start publishes leaves
// in record order (compareRecord): so are they published here, for
// the store a start rebuilds (its documents' order, their neighbour links,
// an index snapshot of it) is then the one that ran.
func (s *Store) commitSaves(batch []*saveReq, j *journal.Journal) {
	now := s.now().UTC()
	// In the order a start gives the settled leaves (settle dates an
	// undated save at the batch's time): otherwise the index is not the one
	// a start would build, and no snapshot of it is kept for the next start.
	slices.SortStableFunc(batch, func(a, b *saveReq) int { return compareBatched(a.settled(now), b.settled(now)) })
	b := s.stageSaves(batch, now)
	if len(b.entries) == 0 {
		return
	}
	if err := s.append(j, b.entries); err != nil {
		for _, r := range b.fresh {
			r.done <- saveResp{err: err}
		}
		return
	}
	written, results := s.publishSaves(b)
	// Queue the leaf files before acknowledging, so a Flush after an
	// acknowledgement covers them.
	s.leaves.push(written)
	for _, r := range b.fresh {
		if first := b.first[r.leaf.ID]; first == r {
			r.done <- saveResp{res: results[r.leaf.ID]}
		} else {
			r.done <- saveResp{res: duplicate(*first.leaf)}
		}
	}
}

// commitOp runs one operation in the writer.
func (s *Store) commitOp(op *opReq, j *journal.Journal) {
	op.commit(s.now().UTC(), j)
}

// commitChange runs an operation, makes its change durable and published,
// and returns its answer. Only the writer calls it.
func commitChange[R any](s *Store, j *journal.Journal, now time.Time, run func(now time.Time) (*changeOf[R], error)) (R, error) {
	var none R
	ch, err := run(now)
	if err != nil {
		return none, err
	}
	if err := s.apply(j, ch.entries, ch.leaves, ch.facts); err != nil {
		return none, err
	}
	if ch.done == nil {
		return none, nil
	}
	return ch.done(j)
}

// apply appends entries to the log and syncs, then publishes leaves (with
// the facts already extracted for them) and queues their files.
func (s *Store) apply(j *journal.Journal, entries []entry, leaves []*leaf.Leaf, fs map[string][]facts.Fact) error {
	if len(entries) > 0 {
		if err := s.append(j, entries); err != nil {
			return err
		}
	}
	if len(leaves) > 0 {
		// In record order, as a start publishes them (see commitSaves).
		leaves = slices.Clone(leaves)
		slices.SortStableFunc(leaves, compareRecord)
		s.mu.Lock()
		for _, l := range leaves {
			s.replaceWith(l, fs[l.ID])
		}
		s.mu.Unlock()
		s.leaves.push(leaves)
	}
	return nil
}

// The log's entry kinds.
const (
	opSave    = "save"
	opImport  = "import"
	opLink    = "link"
	opForget  = "forget"
	opRestore = "restore"
	opPurge   = "purge"
	opReview  = "review"
	opReadAll = "read_all"
	opUnlink  = "unlink"
	// opSupersede marks an older version's leaves.
	opSupersede = "supersede"
)

// entry is one line of the log. A save or import entry carries the whole
// leaf, which is what makes the log sufficient to restore any leaf file;
// every other mutation carries the complete new header of each leaf it
// changed. The journal adds "prev" and "hash" to chain the entries.
type entry struct {
	// Seq numbers the entries in log order; append assigns it.
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	Op   string    `json:"op"`
	// ID is the memory the entry is about (the first, when it is about
	// several).
	ID string `json:"id,omitempty"`
	// Agent, Session and Project are the caller's: who made the change.
	Agent   leaf.Agent `json:"agent"`
	Session string     `json:"session,omitempty"`
	Project string     `json:"project,omitempty"`
	// Leaf is the header a save or an import stores, with its text in Text;
	// Leaves the new headers of the leaves another change changed.
	Leaf   *leaf.Header  `json:"leaf,omitempty"`
	Leaves []leaf.Header `json:"leaves,omitempty"`
	// Detail is the operation's own words: a forget's reason, a review's
	// note, a scope=all query.
	Detail string `json:"detail,omitempty"`
	Text   string `json:"text,omitempty"`
}

func (s *Store) newEntry(op string, c Caller, now time.Time) entry {
	return entry{Time: now, Op: op, Agent: c.Agent, Session: c.Session, Project: c.Project}
}

// append numbers entries, writes them to the log and syncs. Only the writer
// calls it.
func (s *Store) append(j *journal.Journal, entries []entry) error {
	seq := s.entries
	lines := make([][]byte, 0, len(entries))
	for i := range entries {
		seq++
		entries[i].Seq = seq
		line, err := json.Marshal(&entries[i])
		if err != nil {
			return fmt.Errorf("encode log entry: %w", err)
		}
		lines = append(lines, line)
	}
	if err := j.Append(lines); err != nil {
		err = fmt.Errorf("%s not stored: %w (check free disk space and permissions of %s)", entries[0].Op, err, s.dir)
		s.log.Error("log append failed", "entries", len(lines), "err", err)
		return err
	}
	s.mu.Lock()
	s.entries = seq
	s.mu.Unlock()
	return nil
}

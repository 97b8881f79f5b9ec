package store

import (
	"context"
	"encoding/json"
	"fmt"
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

// opReq is a mutation other than a save. run executes in the writer
// goroutine — the only one that changes the store, so it may read state
// without the lock — and says what to log and which leaves change.
type opReq struct {
	run  func(now time.Time) (*change, error)
	done chan opResp
}

type opResp struct {
	v   any
	err error
}

// change is what an operation does. Its entries are appended and synced
// first; only then are its leaves published (under the lock) and queued for
// their files, and then is done called, still in the writer.
type change struct {
	entries []entry
	leaves  []*leaf.Leaf
	facts   map[string][]facts.Fact // facts already extracted, by leaf id
	done    func(j *journal.Journal) (any, error)
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

// do runs an operation in the writer and waits for its outcome.
func (s *Store) do(ctx context.Context, run func(now time.Time) (*change, error)) (any, error) {
	op := &opReq{run: run, done: make(chan opResp, 1)}
	if err := s.submit(ctx, &request{op: op}); err != nil {
		return nil, err
	}
	select {
	case r := <-op.done:
		return r.v, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w (the change may still complete)", ctx.Err())
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

// commitOp makes one operation durable, publishes it and answers.
func (s *Store) commitOp(op *opReq, j *journal.Journal) {
	ch, err := op.run(s.now().UTC())
	if err != nil {
		op.done <- opResp{err: err}
		return
	}
	if len(ch.entries) > 0 {
		if err := s.append(j, ch.entries); err != nil {
			op.done <- opResp{err: err}
			return
		}
	}
	if len(ch.leaves) > 0 {
		s.mu.Lock()
		for _, l := range ch.leaves {
			s.replaceWith(l, ch.facts[l.ID])
		}
		s.mu.Unlock()
		s.leaves.push(ch.leaves)
	}
	var v any
	if ch.done != nil {
		v, err = ch.done(j)
	}
	op.done <- opResp{v: v, err: err}
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
		what := entries[0].Op
		if what == opSave {
			what = "save"
		}
		err = fmt.Errorf("%s not stored: %w (check free disk space and permissions of %s)", what, err, s.dir)
		s.log.Error("log append failed", "entries", len(lines), "err", err)
		return err
	}
	s.mu.Lock()
	s.entries = seq
	s.mu.Unlock()
	return nil
}

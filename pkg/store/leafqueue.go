package store

import (
	"sync"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// leafQueue hands durable leaves from the writer to the leaf-file writer.
// Pushing never blocks: the leaves are in memory anyway (the index holds
// them), so a backlog costs a pointer each, and a slow disk for leaf files —
// which are not the point of durability — never delays an acknowledgement.
type leafQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending []*leaf.Leaf
	writing int // taken by the leaf writer, not yet written
	closed  bool
}

func newLeafQueue() *leafQueue {
	q := &leafQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *leafQueue) push(ls []*leaf.Leaf) {
	if len(ls) == 0 {
		return
	}
	q.mu.Lock()
	q.pending = append(q.pending, ls...)
	q.mu.Unlock()
	q.cond.Broadcast()
}

// take waits for leaves and returns up to max of them; ok is false once the
// queue is closed and empty.
func (q *leafQueue) take(max int) (ls []*leaf.Leaf, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.pending) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.pending) == 0 {
		return nil, false
	}
	n := min(max, len(q.pending))
	ls = q.pending[:n:n]
	q.pending = q.pending[n:]
	q.writing += n
	return ls, true
}

// done records that n taken leaves have been written (or given up on).
func (q *leafQueue) done(n int) {
	q.mu.Lock()
	q.writing -= n
	q.mu.Unlock()
	q.cond.Broadcast()
}

// wait blocks until every pushed leaf has been written.
func (q *leafQueue) wait() {
	q.mu.Lock()
	for len(q.pending) > 0 || q.writing > 0 {
		q.cond.Wait()
	}
	q.mu.Unlock()
}

// close lets take return false once the backlog is written.
func (q *leafQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

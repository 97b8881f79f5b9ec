// Package memo is a map bounded by a budget, safe for concurrent use: for
// what a reader reads or works out once and is asked again (a memory's
// text read back from its file, how a text gives a name, a branch's
// title). What it holds does not go stale — every entry is derived from
// something that never changes, and goes only when that is purged — so it
// evicts only to stay in budget, in no particular order (a map's), which
// costs nothing to keep.
package memo

import "sync"

// Map holds entries whose costs add up to at most its budget.
type Map[K comparable, V any] struct {
	mu     sync.Mutex
	m      map[K]V
	spent  int
	budget int
	cost   func(K, V) int
}

// New returns a map that holds entries costing at most budget together;
// cost nil counts each entry as one. An entry costing more than a 64th of
// the budget is not kept: one would push out many.
func New[K comparable, V any](budget int, cost func(K, V) int) *Map[K, V] {
	if cost == nil {
		cost = func(K, V) int { return 1 }
	}
	return &Map[K, V]{m: make(map[K]V), budget: budget, cost: cost}
}

// Get returns the entry for k.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// Put keeps v for k, first evicting entries until it fits.
func (c *Map[K, V]) Put(k K, v V) {
	n := c.cost(k, v)
	if n > max(1, c.budget/64) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		delete(c.m, k)
		c.spent -= c.cost(k, old)
	}
	for ek, ev := range c.m {
		if c.spent+n <= c.budget {
			break
		}
		delete(c.m, ek)
		c.spent -= c.cost(ek, ev)
	}
	c.m[k] = v
	c.spent += n
}

// Delete drops the entry for k.
func (c *Map[K, V]) Delete(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[k]; ok {
		delete(c.m, k)
		c.spent -= c.cost(k, v)
	}
}

// DeleteFunc drops every entry whose key drop accepts.
func (c *Map[K, V]) DeleteFunc(drop func(K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range c.m {
		if drop(k) {
			delete(c.m, k)
			c.spent -= c.cost(k, v)
		}
	}
}

// Len is how many entries it holds, Spent what they cost together.
func (c *Map[K, V]) Len() (entries, spent int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.spent
}

package tree

import (
	"container/list"
	"sync"
	"unsafe"
)

// bagCache keeps the tokenized summaries of the branches descents opened
// last, so the branches every search passes through (the top layers) are
// read and tokenized once, not per search. It is bounded in bytes and
// evicts the least recently used branch first. Searches share it under the
// caller's read lock, so it has its own mutex.
type bagCache struct {
	mu    sync.Mutex
	limit int64 // 0: cache nothing
	size  int64
	m     map[string]*list.Element // branch id → element holding a *cached
	lru   list.List                // front: most recently used
}

// cached is one branch's bags.
type cached struct {
	id   string
	bags []bag
	size int64
}

// get returns the cached bags of branch id.
func (c *bagCache) get(id string) ([]bag, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[id]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cached).bags, true
}

// put caches the bags of branch id, evicting the least recently used
// branches until they fit.
func (c *bagCache) put(id string, bags []bag) {
	size := int64(len(id)) + 96 // the entry, its list element and map slot, roughly
	for i := range bags {
		size += bags[i].bytes()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.limit {
		return
	}
	if c.m == nil {
		c.m = make(map[string]*list.Element)
	}
	if el, ok := c.m[id]; ok {
		// Another search read it meanwhile: keep one.
		c.lru.MoveToFront(el)
		return
	}
	for c.size+size > c.limit {
		el := c.lru.Back()
		e := el.Value.(*cached)
		c.lru.Remove(el)
		delete(c.m, e.id)
		c.size -= e.size
	}
	c.m[id] = c.lru.PushFront(&cached{id: id, bags: bags, size: size})
	c.size += size
}

// remove forgets branch id.
func (c *bagCache) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[id]; ok {
		c.lru.Remove(el)
		delete(c.m, id)
		c.size -= el.Value.(*cached).size
	}
}

// clear empties the cache.
func (c *bagCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
	c.lru.Init()
	c.size = 0
}

// bytes estimates the memory b holds.
func (b *bag) bytes() int64 {
	return int64(unsafe.Sizeof(*b)) + int64(len(b.terms)) + int64(len(b.ends))*4 + int64(len(b.w))*4
}

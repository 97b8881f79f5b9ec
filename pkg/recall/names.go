package recall

import (
	"sync"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// nameMemo remembers how texts give the names questions ask about
// (nameUse): a text never changes (a memory's id is derived from it), and
// the same names are asked of the same memories search after search. It
// holds at most maxNameUses entries; past that it starts over.
type nameMemo struct {
	mu sync.Mutex
	m  map[nameKey]nameUse
}

type nameKey struct{ id, name string }

const maxNameUses = 1 << 15

func (c *nameMemo) get(id, name string) (nameUse, bool) {
	c.mu.Lock()
	u, ok := c.m[nameKey{id, name}]
	c.mu.Unlock()
	return u, ok
}

func (c *nameMemo) put(id, name string, u nameUse) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxNameUses {
		c.m = make(map[nameKey]nameUse)
	}
	c.m[nameKey{id, name}] = u
	c.mu.Unlock()
}

// forget drops what the memo holds of memory id.
func (c *nameMemo) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if k.id == id {
			delete(c.m, k)
		}
	}
}

// nameUse is nameUseOf memory d's text, remembered. A purged memory's text
// is gone: it is read as it is, never remembered.
func (s *searcher) nameUse(d index.Doc, name string) nameUse {
	l := s.leaf(d)
	if l.Status == leaf.StatusPurged {
		return nameUseOf(l.Text, name)
	}
	if u, ok := s.names.get(l.ID, name); ok {
		return u
	}
	u := nameUseOf(s.r.Text(d).Text, name)
	s.names.put(l.ID, name, u)
	return u
}

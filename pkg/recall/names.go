package recall

import (
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// maxNameUses bounds the engine's memo of how texts give the names
// questions ask about (nameUse): a text never changes (a memory's id is
// derived from it), and the same names are asked of the same memories
// search after search.
const maxNameUses = 1 << 15

type nameKey struct{ id, name string }

// nameUse is nameUseOf memory d's text, remembered. A purged memory's text
// is gone: it is read as it is, never remembered.
func (s *searcher) nameUse(d index.Doc, name string) nameUse {
	l := s.leaf(d)
	if l.Status == leaf.StatusPurged {
		return nameUseOf(l.Text, name)
	}
	if u, ok := s.names.Get(nameKey{l.ID, name}); ok {
		return u
	}
	u := nameUseOf(s.r.Text(d).Text, name)
	s.names.Put(nameKey{l.ID, name}, u)
	return u
}

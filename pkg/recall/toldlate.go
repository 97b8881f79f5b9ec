package recall

import (
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// A memory told late is one dated well before the memories recorded just
// before it: an old note copied in, "back in August we deployed to
// Heroku" saved with August's date. It tells how things were when the
// memory learned otherwise already, so for a question about now it yields
// to what was recorded as true at its own time — it is history, even when
// no later memory is a version of it (the old deploy note that a question
// about the Elixir release matches by "release phase").
//
// What the store knew of the time when a memory was recorded is read from
// its neighbours in record order (documents are numbered in record order,
// at every start), each dated no later than its own record time: a memory
// saved with a future date ("the freeze starts 2027-03-01") is no sign of
// what time it was. Only a few neighbours are read, so the check costs the
// same in any store.
const (
	// lateNeighbours is how many memories recorded just before one are
	// read; lateMargin how much later the latest of them must be dated.
	lateNeighbours = 8
	lateMargin     = 30 * 24 * time.Hour
	// lateDemote sinks a memory told late, for a question about now, below
	// a current memory that matches about half as well.
	lateDemote = 0.5
)

// toldLate reports whether document d was dated well before the memories
// recorded just before it, and before its own record time.
func (s *searcher) toldLate(d index.Doc) bool {
	l := s.leaf(d)
	if l.RecordedAt.Sub(l.ValidFrom) <= lateMargin {
		return false
	}
	for e := int(d) - 1; e >= 0 && e >= int(d)-lateNeighbours; e-- {
		n := s.leaf(index.Doc(e))
		known := n.ValidFrom
		if known.After(n.RecordedAt) {
			known = n.RecordedAt
		}
		if known.Sub(l.ValidFrom) > lateMargin {
			return true
		}
	}
	return false
}

// sinkToldLate lowers the memories told late in a ranking for a question
// about now: one asked of today that does not point at the
// past ("back then", "used to").
func (s *searcher) sinkToldLate(out []ranked, q question, tv timeline.View, tr *tracer) {
	if !tv.AsOf.IsZero() || !tv.KnownAt.IsZero() || s.lex.AsksPast(q.text) {
		return
	}
	for i := range out {
		if s.toldLate(out[i].doc) {
			out[i].score *= lateDemote
			tr.times(out[i].doc, "told_late", lateDemote)
		}
	}
}

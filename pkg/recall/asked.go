package recall

import (
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
)

// Edge is a probable supersession (inferred when the later memory was
// saved) as a search weighs it: the successor, the inference's confidence,
// and what the two memories share.
type Edge struct {
	To       index.Doc
	Conf     float64
	Concepts lexicon.Set
	Terms    []string
}

// asked is what a question touches, for deciding whether a probable
// supersession is about it.
type asked struct {
	concepts lexicon.Set
	terms    map[string]bool
	weights  []float64 // IDF of each query term, in the query's order
}

func (s *searcher) askedOf(query string, terms []string) asked {
	a := asked{concepts: s.lex.Concepts(query), terms: make(map[string]bool, len(terms)), weights: make([]float64, len(terms))}
	for i, t := range terms {
		a.terms[t] = true
		a.weights[i] = s.ix.IDF(t)
	}
	return a
}

// applies reports whether a probable supersession of a memory that holds
// the query terms old, by one that holds new, answers this question. A
// question about the concept that changed is answered by the successor.
// One that only shares words with the link is answered by it unless the
// old memory holds more of the question, by weight, than the successor:
// then the question is about what else the old memory says ("the
// collector's port", when only the metrics port moved).
func (a asked) applies(e Edge, old, new uint64) bool {
	if a.concepts.Has(e.Concepts) {
		return true
	}
	shared := new&old != 0
	for _, t := range e.Terms {
		shared = shared || a.terms[t]
	}
	return shared && a.weight(old&^new) <= a.weight(new)
}

func (a asked) weight(bits uint64) float64 {
	var w float64
	for i, x := range a.weights {
		if bits&(1<<i) != 0 {
			w += x
		}
	}
	return w
}

// Applies reports whether the probable successor e of d answers the
// question. One that wants a kind of value (a version, a port) is answered
// by a successor that states one, and never by one that states none: that
// successor is about something else the two share.
func (sc *successors) Applies(d index.Doc, e Edge) bool {
	if sc.holds != nil {
		if !sc.holds(e.To) {
			return false
		}
		if sc.holds(d) {
			return true
		}
	}
	return sc.q.applies(e, sc.pool[d], sc.pool[e.To])
}

package recall

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/index"
)

// A search's trace, when the caller asks for one (Input.Explain):
// what the rewrite did to the question, each ranked memory's BM25 score and
// every signal that moved it, by name and value, and which case of the
// verdict decided, on what evidence. It is an output like the hits, so a
// person (`ihmt search --explain`, the page's Diagnose screen) or a model
// (search_memory with detail "full") can see why a search answered what it
// did, without a debugger.

// Trace is a search's explanation.
type Trace struct {
	// Terms are the query's words as searched, Rewrites what the rewrite
	// stage did to get them ("untimed: dropped now").
	Terms    []string
	Rewrites []string
	// Ranked are the memories the ranking placed, in its order, up to the
	// limit and the rivals the verdict weighed.
	Ranked []RankTrace
	// Decided is the verdict's case (a signal's name, "tie", "found" or
	// "nothing"); Evidence what it was told, as short "name=value" pairs.
	Decided  string
	Evidence []string
}

// RankTrace is one memory's way through the ranking.
type RankTrace struct {
	ID      string
	Base    float64 // BM25 over its text, with the kind's prior
	Factors []Factor
	Score   float64 // after every factor
	Current bool
}

// Factor is one signal that acted on a memory: a multiplier (Value), or a
// move (Value 0, Note says what).
type Factor struct {
	Signal string
	Value  float64
	Note   string
}

// String is a factor as a trace prints it: "home ×1.20".
func (f Factor) String() string {
	if f.Value == 0 {
		return f.Signal + ": " + f.Note
	}
	return fmt.Sprintf("%s ×%.2f", f.Signal, f.Value)
}

// tracer records a search's trace while it runs; a nil tracer records
// nothing, at the cost of one comparison.
type tracer struct {
	rewrites []string
	base     map[index.Doc]float64
	factors  map[index.Doc][]Factor
}

func newTracer() *tracer {
	return &tracer{base: map[index.Doc]float64{}, factors: map[index.Doc][]Factor{}}
}

func (t *tracer) rewrite(signal string, before, after []string) {
	if t == nil || len(before) == len(after) {
		return
	}
	var dropped []string
	for _, w := range before {
		if !slices.Contains(after, w) {
			dropped = append(dropped, w)
		}
	}
	t.rewrites = append(t.rewrites, signal+": dropped "+strings.Join(dropped, ", "))
}

func (t *tracer) note(format string, args ...any) {
	if t != nil {
		t.rewrites = append(t.rewrites, fmt.Sprintf(format, args...))
	}
}

func (t *tracer) scored(d index.Doc, score float64) {
	if t != nil {
		if _, ok := t.base[d]; !ok {
			t.base[d] = score
		}
	}
}

func (t *tracer) times(d index.Doc, signal string, v float64) {
	if t != nil {
		t.factors[d] = append(t.factors[d], Factor{Signal: signal, Value: v})
	}
}

// moved records that signal moved d, with a note that ends with what it
// names (a memory's id, a kind of value). The note is put together only
// when the search is traced: a search that is not pays nothing for it.
func (t *tracer) moved(d index.Doc, signal, note, what string) {
	if t != nil {
		t.factors[d] = append(t.factors[d], Factor{Signal: signal, Note: note + what})
	}
}

// trace is the trace of a search that ranked order and judged j on e.
func (t *tracer) trace(s *searcher, q Query, order []ranked, n int, j judgment, e evidence) *Trace {
	if t == nil {
		return nil
	}
	tr := &Trace{Terms: q.terms, Rewrites: t.rewrites, Decided: j.Decided, Evidence: e.Pairs()}
	for _, r := range order[:min(len(order), n)] {
		tr.Ranked = append(tr.Ranked, RankTrace{ID: s.leaf(r.doc).ID, Base: t.base[r.doc], Factors: t.factors[r.doc], Score: r.score, Current: r.current})
	}
	return tr
}

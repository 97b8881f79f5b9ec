package recall

import (
	"slices"

	"github.com/ihmt-dev/ihmt/pkg/index"
)

// One thing of one name in several parts of the store: "what went wrong
// during the migration?" asked from outside the projects that each had
// one. The tie that makes it ambiguous is between the best memory and its
// first rival, but the candidates a person chooses from are the parts:
// each part's best memory about what is asked, wherever it ranks — the
// part whose memory repeats more of the question's other words is not
// likelier the one meant, and its second memory is no second referent.

// partsShown returns the positions in order of the memories a tie between
// parts shows: the best, then the first current memory of each part
// (leaf.Header.Part; the best's own, when the best is not about it)
// holding what the best holds of the question (its function verbs aside)
// and opening with it (about: a memory that mentions it in passing is
// about something else), then, beside a shown memory, one it corrects
// that holds more of it (restatesLess), then the tied rivals; up to limit.
// It returns nil when no second part holds it.
func (s *searcher) partsShown(order []ranked, tied []ranked, q Query, limit int) []int {
	asked := substantive(order[0].matched, q.terms, q.exp.namedTerms())
	holds := func(r ranked) bool { return r.matched&asked == asked && s.sameKind(order[0], r) }
	var words []string
	for i, t := range q.terms {
		if asked&(1<<i) != 0 {
			words = append(words, t)
		}
	}
	at := []int{0}
	var parts []string
	if s.about(order[0], words) {
		parts = append(parts, s.leaf(order[0].doc).Part())
	}
	for i, r := range order[1:] {
		if len(at) == limit {
			break
		}
		g := s.leaf(r.doc).Part()
		if r.current && holds(r) && !slices.Contains(parts, g) && s.about(r, words) {
			parts = append(parts, g)
			at = append(at, i+1)
		}
	}
	if len(at) < 2 {
		return nil
	}
	for i, r := range order {
		if len(at) == limit {
			break
		}
		if !r.current && holds(r) && !slices.Contains(at, i) && slices.ContainsFunc(at, func(j int) bool { return order[j].doc == r.by }) && s.restatesLess(r.by, r.doc, words) {
			at = append(at, i)
		}
	}
	for _, t := range tied {
		if len(at) == limit {
			break
		}
		if i := slices.IndexFunc(order, func(r ranked) bool { return r.doc == t.doc }); i >= 0 && !slices.Contains(at, i) {
			at = append(at, i)
		}
	}
	return at
}

// restatesLess reports whether the correction succ lacks a word of words
// that old, the memory it corrects, holds: it restated only part of what
// it corrects ("the staging DB user is kelpie_app" of the note with the
// database's name), and the rest is still only in old.
func (s *searcher) restatesLess(succ, old index.Doc, words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return s.ix.Contains(old, w) && !s.ix.Contains(succ, w) })
}

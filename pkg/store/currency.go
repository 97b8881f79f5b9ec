package store

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// One truth about what is current. Whether a memory is current at a moment
// is decided here and nowhere else: a search, the session briefing, the
// per-prompt memory, `facts`, `timeline`, `conflicts`, `get` and the page
// all read it, so no surface calls current what another calls replaced.
//
// A memory is superseded, in a view and for a caller, by the first of:
//
//   - an explicit correction (mark_outdated, a save's replaces): certain;
//   - a newer value of a fact it states, read by the fact patterns (the
//     timeline): certain as the pattern that read it;
//   - a probable supersession inferred when the later memory was saved
//     (succession.go): as certain as the inference's confidence.
//
// Only a successor the caller may see, and that exists in the view, counts:
// superseded only by memories hidden from them, a memory is current for
// that caller. A search may also ask whether an inferred link is about
// what its question asks (successors.answers) before letting it move the
// ranking; it never calls current what this model calls superseded.

// How names what superseded a memory.
type How string

// The ways a memory is superseded, most certain first.
const (
	ByCorrection How = "correction"
	ByFact       How = "fact"
	ByInference  How = "inferred"
)

// Currency is whether a memory is current, and if not, what replaced it.
type Currency struct {
	Current bool
	// By is the successor's id; How what links the two; Certainty is 1 for
	// a correction or a fact, the inference's confidence otherwise.
	By        string
	How       How
	Certainty float64
}

// timelineOnly switches every surface but search back to what they read
// before the one model: the timeline alone, blind to inferred links. Only
// a test sets it, to show that the consistency check catches a surface
// that reads another source (its positive control).
var timelineOnly atomic.Bool

// currencyOf is the model, for document d in view tv, where visible says
// which documents the caller may see in it. Callers hold s.mu for reading.
func (s *Store) currencyOf(d index.Doc, tv timeline.View, visible func(index.Doc) bool) Currency {
	if n, how, ok := s.certainSuccessor(d, tv, visible); ok {
		return Currency{By: s.docs[n].ID, How: how, Certainty: 1}
	}
	if timelineOnly.Load() {
		return Currency{Current: true}
	}
	if e, ok := s.likelySuccessor(d, visible, nil); ok {
		return Currency{By: s.docs[e.To].ID, How: ByInference, Certainty: e.Conf}
	}
	return Currency{Current: true}
}

// certainSuccessor is the newest visible successor of d by a correction or
// a fact's newer value.
func (s *Store) certainSuccessor(d index.Doc, tv timeline.View, visible func(index.Doc) bool) (index.Doc, How, bool) {
	l := s.docs[d]
	st := s.tl.Outdated(l.ID, tv)
	if !st.Outdated {
		return 0, "", false
	}
	for _, id := range st.Successors {
		if n, ok := s.byID[id]; ok && visible(n) {
			// The first visible one is the newest (timeline.Status).
			how := ByFact
			if linksTo(l.CorrectedBy, id) || linksTo(s.docs[n].Corrects, l.ID) {
				how = ByCorrection
			}
			return n, how, true
		}
	}
	return 0, "", false
}

// linksTo reports whether links name memory id.
func linksTo(links []leaf.Link, id string) bool {
	return slices.ContainsFunc(links, func(k leaf.Link) bool { return k.ID == id })
}

// likelySuccessor is the most probable successor of d by an inferred link
// (the newest among equals) that the caller may see, that the timeline
// does not order already (A → B → A makes the first A current again,
// whatever a guess would say), and that f applies (nil: every link does).
func (s *Store) likelySuccessor(d index.Doc, visible func(index.Doc) bool, f recall.EdgeFilter) (recall.Edge, bool) {
	var best recall.Edge
	found := false
	for _, e := range s.likely[d] {
		if !visible(e.To) || f != nil && !f.Applies(d, e) || s.tl.Shares(s.docs[d].ID, s.docs[e.To].ID) {
			continue
		}
		if !found || e.Conf > best.Conf || e.Conf == best.Conf && s.docs[e.To].ValidFrom.After(s.docs[best.To].ValidFrom) {
			best, found = e, true
		}
	}
	return best, found
}

// Standing is what `get` and the page show of a memory beside its text:
// the model's answer now, and every inferred link it takes part in, either
// end (explicit links are in its header).
type Standing struct {
	Currency Currency
	Probable []ProbableLink
}

// Standing returns memory id's standing now, for a caller under scope. A
// memory that is forgotten, pending or rejected is current for nobody.
func (s *Store) Standing(c Caller, id string, scope SearchScope) (Standing, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, _, err := s.visible(c, scope)
	if err != nil {
		return Standing{}, err
	}
	d, ok := s.byID[id]
	if !ok || !vis(s.groupOf(s.docs[d])) {
		return Standing{}, fmt.Errorf("%w: no memory %s in %s", ErrNotFound, id, scopeName(scope))
	}
	var st Standing
	if s.docs[d].Live() {
		st.Currency = s.currencyOf(d, timeline.View{}, recall.Visible(s.reader(), vis, recall.Moment{}))
	}
	st.Probable = s.probablesWhere(vis, func(old, nw *leaf.Leaf) bool { return old.ID == id || nw.ID == id })
	return st, nil
}

// leafCurrent reports whether the memory id holds is current in view v for
// a caller who sees vis. Callers hold s.mu for reading.
func (s *Store) leafCurrent(id string, vis func(index.Group) bool, v recall.Moment) bool {
	d, ok := s.byID[id]
	if !ok || !s.docs[d].Live() {
		return false
	}
	return s.currencyOf(d, v.Timeline(), recall.Visible(s.reader(), vis, v)).Current
}

// notices explain why memory d is not current, superseded by by (probably
// only, by an inferred link): its facts' newer values, or else the
// explicit correction. Callers hold s.mu for reading.
func (s *Store) notices(d, by index.Doc, probable bool, tv timeline.View) []string {
	if probable {
		return []string{s.probableNotice(s.docs[by])}
	}
	if st := s.tl.Status(s.docs[d].ID, tv); len(st.Notices) > 0 {
		return st.Notices
	}
	return []string{s.linkNotice(s.docs[by])}
}

package store

import (
	"cmp"
	"fmt"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// verifiedBoost ranks a memory a person verified above an agent's
// assertion of about the same relevance, without letting trust outweigh a
// clearly better match.
const verifiedBoost = 1.05

// elsewhereDemote sinks the memories of other projects when a question
// names a project ("who is on call for switchyard?" asked from anywhere).
const elsewhereDemote = 0.5

// conceptBoost raises a memory about a concept the question asks about
// (pkg/lexicon: where one lives, a project's database): "finally unpacked
// in the new flat" answers "which city am I based in?" in none of its
// words.
const conceptBoost = 1.25

// homeBoost raises the memories of the part of the store the question is
// asked from (see Store.home): "the config file" asked in a project is
// likelier its own than the laptop's.
const homeBoost = 1.2

// ranked is one memory in the ranking.
type ranked struct {
	doc     index.Doc
	score   float64
	matched uint64 // query terms it contains (inherited by a pulled-in successor)
	current bool
	by      index.Doc // when not current: the newest successor the caller may see
	// probable: by only probably supersedes it (an inferred link).
	probable bool
}

// rank is the one ranking function: every search's scored pool goes through
// it, whatever produced the pool. It applies, in order:
//
//  1. the clue: memories that match it too rise (verdict.ClueBoost), the rest sink
//     (verdict.ClueDemote);
//  2. trust and topic: verified memories get a small edge over asserted
//     ones, the memories of projects a question does not name, when it
//     names one, sink, and those at home (Store.home) and those about a
//     concept the question asks about rise;
//  3. time (unless withTimeline is false, for tests that compare): a memory
//     superseded in the view (by a newer value of one of its facts, or by
//     an explicit correction) never outranks its successor. The successor
//     is pulled into the ranking even when it shares no word with the
//     query — "where do I live?" matches "I live in Madrid", not "I moved
//     to Valencia" — because the question is about the fact, not the words.
//     Before that, for a question about now, a memory told late (dated
//     well before what was recorded just before it: toldlate.go) sinks.
//
// Callers hold s.mu for reading.
func (s *Store) rank(raw []index.Hit, clue []string, q question, tr *tracer, tv timeline.View, inView func(index.Doc) bool, vis func(index.Group) bool, withTimeline bool) []ranked {
	out, at := s.weigh(raw, clue, q, tr)
	if withTimeline {
		if s.on("told_late") {
			s.sinkToldLate(out, q, tv, tr)
		}
		visibleDoc := func(d index.Doc) bool {
			return isLive(s.docs[d]) && vis(s.groupOf(s.docs[d])) && inView(d)
		}
		pool := make(map[index.Doc]uint64, len(raw))
		for _, h := range raw {
			pool[h.Doc] = h.Matched
		}
		out = s.supersede(out, at, tr, successors{s: s, tv: tv, q: q.asked, holds: q.held, pool: pool, visible: visibleDoc, of: make(map[index.Doc]successor, 2*len(raw))})
	}
	s.sortRanked(out)
	return out
}

// weigh applies the clue and trust to the scored pool, and returns it with
// each memory's place in it.
func (s *Store) weigh(raw []index.Hit, clue []string, q question, tr *tracer) (out []ranked, at map[index.Doc]int) {
	// Room for a successor pulled in for each: the ranking never grows.
	out = make([]ranked, 0, 2*len(raw))
	at = make(map[index.Doc]int, 2*len(raw))
	for _, h := range raw {
		r := ranked{doc: h.Doc, score: h.Score, matched: h.Matched, current: true}
		times := func(signal string, v float64) {
			r.score *= v
			tr.times(h.Doc, signal, v)
		}
		if len(clue) > 0 && s.on("clue") {
			if s.containsAny(h.Doc, clue) {
				times("clue", verdict.ClueBoost)
			} else {
				times("clue", verdict.ClueDemote)
			}
		}
		if s.docs[h.Doc].Trust == leaf.TrustVerified && s.on("verified") {
			times("verified", verifiedBoost)
		}
		if s.on("elsewhere") && s.elsewhere(q, r) {
			times("elsewhere", elsewhereDemote)
		}
		// What was stated rises by where it was said and what it is about;
		// a document's or code's block has its kind's prior (kind.go), and
		// the words of a concept in a test's strings are no statement.
		if kindOf(&s.docs[h.Doc].Header) == kindStated {
			if s.on("home") && s.home(r, q) {
				times("home", homeBoost)
			}
			if s.on("concept") && s.topical(h.Doc, q) {
				times("concept", conceptBoost)
			}
		}
		at[h.Doc] = len(out)
		out = append(out, r)
	}
	return out, at
}

// successor is the memory that supersedes another in a search's view.
type successor struct {
	doc      index.Doc
	ok       bool // superseded by a memory this caller may see in the view
	probable bool // by an inferred link only
}

// successors looks each memory's successor up once: the passes of
// supersede only move scores. Notices are worded later, for the memories
// an answer shows (notices).
type successors struct {
	s  *Store
	tv timeline.View
	q  asked
	// holds, when the question wants a kind of value, says whether a
	// memory holds one (nil otherwise).
	holds   func(index.Doc) bool
	pool    map[index.Doc]uint64 // the query terms each scored memory holds
	visible func(index.Doc) bool
	of      map[index.Doc]successor
}

func (sc successors) lookup(d index.Doc) successor {
	if got, seen := sc.of[d]; seen {
		return got
	}
	// The one model of what is current (currency.go), with one narrowing:
	// an inferred link moves the ranking only when it is about what the
	// question asks (answers).
	next := sc.find(d)
	sc.of[d] = next
	return next
}

func (sc successors) find(d index.Doc) successor {
	if n, _, ok := sc.s.certainSuccessor(d, sc.tv, sc.visible); ok {
		return successor{doc: n, ok: true}
	}
	if !sc.s.on("inferred") {
		return successor{}
	}
	if e, ok := sc.s.likelySuccessor(d, sc.visible, func(e edge) bool { return sc.answers(d, e) }); ok {
		return successor{doc: e.to, ok: true, probable: true}
	}
	return successor{}
}

// supersede ranks every memory superseded in the view below its successor,
// pulling the successor in (with the memory's score and matched terms)
// when the pool lacks it. It returns the pool, grown.
func (s *Store) supersede(out []ranked, at map[index.Doc]int, tr *tracer, succ successors) []ranked {
	// Successor chains are short; a few passes settle A → B → C.
	for pass := 0; pass < 3; pass++ {
		changed := false
		for i := 0; i < len(out); i++ {
			sc := succ.lookup(out[i].doc)
			if !sc.ok {
				continue
			}
			r := &out[i]
			if r.current {
				r.current, r.by, r.probable = false, sc.doc, sc.probable
				how := "superseded"
				if sc.probable {
					how = "inferred"
				}
				tr.moved(r.doc, how, "ranked below its successor "+s.docs[sc.doc].ID)
			}
			j, ok := at[sc.doc]
			if !ok {
				j = len(out)
				at[sc.doc] = j
				out = append(out, ranked{doc: sc.doc, score: r.score, matched: r.matched, current: true})
				tr.moved(sc.doc, "superseded", "pulled in as the successor of "+s.docs[r.doc].ID)
				r = &out[i] // out may have moved
				changed = true
			}
			if out[j].score < r.score {
				out[j].score = r.score
				out[j].matched |= r.matched
				changed = true
			}
			if r.score >= out[j].score {
				r.score = out[j].score * 0.9
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return out
}

// markInferred marks as not current, where they rank, the memories an
// inferred link supersedes that supersede left in place because the link
// is not about what the question asks ("the collector's port", when only
// the metrics port moved): the memory may still answer best, but no
// surface calls current what the one model (currency.go) calls replaced,
// and its notice says what the later memory says. It runs once the
// verdict is judged: an inferred link is a guess, and one the question
// does not touch neither orders the answer nor takes a rival away.
func (s *Store) markInferred(out []ranked, visible func(index.Doc) bool) {
	for i := range out {
		if !out[i].current {
			continue
		}
		if e, ok := s.likelySuccessor(out[i].doc, visible, nil); ok {
			out[i].current, out[i].by, out[i].probable = false, e.to, true
		}
	}
}

// notices explain why a ranked memory is not current: its facts' newer
// values, or else the explicit correction by its successor. Callers hold
// s.mu for reading.
func (s *Store) notices(r ranked, tv timeline.View) []string {
	if r.current {
		return nil
	}
	if r.probable {
		return []string{s.probableNotice(s.docs[r.by])}
	}
	if st := s.tl.Status(s.docs[r.doc].ID, tv); len(st.Notices) > 0 {
		return st.Notices
	}
	return []string{s.linkNotice(s.docs[r.by])}
}

// sortRanked orders a ranking best first; a tie goes to the memory that
// became true later, then to the one recorded later (record order is the
// order of saves, the same in every store that saved the same memories).
func (s *Store) sortRanked(out []ranked) {
	slices.SortStableFunc(out, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.score, a.score),
			s.docs[b.doc].ValidFrom.Compare(s.docs[a.doc].ValidFrom),
			cmp.Compare(b.doc, a.doc))
	})
}

// view is a search's point in time: as of a valid date, as known at a
// record date, or now.
type view struct {
	asOf, knownAt time.Time
	tl            timeline.View
}

func (v view) zero() bool { return v.asOf.IsZero() && v.knownAt.IsZero() }

func (v view) describe() string {
	var parts []string
	if !v.asOf.IsZero() {
		parts = append(parts, "as of "+v.asOf.Format(time.DateOnly))
	}
	if !v.knownAt.IsZero() {
		parts = append(parts, "as known on "+v.knownAt.Format(time.DateOnly))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// parseView reads as_of and known_at. A bare date means the end of that
// day: "as of 2024-12-31" includes what became true that day.
func parseView(asOf, knownAt string) (view, error) {
	var v view
	for _, f := range []struct {
		name string
		in   string
		out  *time.Time
	}{{"as_of", asOf, &v.asOf}, {"known_at", knownAt, &v.knownAt}} {
		in := strings.TrimSpace(f.in)
		if in == "" {
			continue
		}
		t, err := dates.Parse(in)
		if err != nil {
			return view{}, fmt.Errorf("%w: %s: %v", ErrInvalid, f.name, err)
		}
		if len(in) == len(time.DateOnly) {
			t = t.Add(24*time.Hour - time.Nanosecond)
		}
		*f.out = t
	}
	v.tl = timeline.View{AsOf: v.asOf, KnownAt: v.knownAt}
	return v, nil
}

// inView returns whether a document exists in the view: it became true by
// as_of and was recorded by known_at. Callers hold s.mu.
func (s *Store) inView(v view) func(index.Doc) bool {
	if v.zero() {
		return func(index.Doc) bool { return true }
	}
	return func(d index.Doc) bool {
		l := s.docs[d]
		return (v.asOf.IsZero() || !l.ValidFrom.After(v.asOf)) && (v.knownAt.IsZero() || !l.RecordedAt.After(v.knownAt))
	}
}

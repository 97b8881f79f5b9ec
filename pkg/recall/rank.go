package recall

import (
	"cmp"
	"slices"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
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
// asked from (see searcher.home): "the config file" asked in a project is
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
//     names one, sink, and those at home (searcher.home) and those about a
//     concept the question asks about rise;
//  3. time (unless withTimeline is false, for tests that compare): a memory
//     superseded at the moment (by a newer value of one of its facts, or by
//     an explicit correction) never outranks its successor. The successor
//     is pulled into the ranking even when it shares no word with the
//     query — "where do I live?" matches "I live in Madrid", not "I moved
//     to Valencia" — because the question is about the fact, not the words.
//     Before that, for a question about now, a memory told late (dated
//     well before what was recorded just before it: toldlate.go) sinks.
//
// visible says which memories the caller may see at the search's moment.
func (s *searcher) rank(raw []index.Hit, q Query, visible func(index.Doc) bool, withTimeline bool) []ranked {
	out, at := s.weigh(raw, q.clue, q.ask, q.tr)
	if withTimeline {
		tv := q.at.Timeline()
		if s.on("told_late") {
			s.sinkToldLate(out, q.ask, tv, q.tr)
		}
		pool := make(map[index.Doc]uint64, len(raw))
		for _, h := range raw {
			pool[h.Doc] = h.Matched
		}
		s.succ = successors{s: s, tv: tv, q: q.ask.asked, holds: q.ask.held, pool: pool, visible: visible, of: make(map[index.Doc]successor, 2*len(raw))}
		out = s.supersede(out, at, q.tr, &s.succ)
	}
	s.sortRanked(out)
	return out
}

// weigh applies the clue and trust to the scored pool, and returns it with
// each memory's place in it.
func (s *searcher) weigh(raw []index.Hit, clue []string, q question, tr *tracer) (out []ranked, at map[index.Doc]int) {
	// Room for a successor pulled in for each: the ranking never grows.
	out = make([]ranked, 0, 2*len(raw))
	at = make(map[index.Doc]int, 2*len(raw))
	clueOn, verified, elsewhere := len(clue) > 0 && s.on("clue"), s.on("verified"), s.on("elsewhere")
	home, concept := s.on("home"), s.on("concept")
	for _, h := range raw {
		r := ranked{doc: h.Doc, score: h.Score, matched: h.Matched, current: true}
		l := s.leaf(h.Doc)
		times := func(signal string, v float64) {
			r.score *= v
			tr.times(h.Doc, signal, v)
		}
		if clueOn {
			if s.containsAny(h.Doc, clue) {
				times("clue", verdict.ClueBoost)
			} else {
				times("clue", verdict.ClueDemote)
			}
		}
		if verified && l.Trust == leaf.TrustVerified {
			times("verified", verifiedBoost)
		}
		if elsewhere && s.elsewhere(q, r) {
			times("elsewhere", elsewhereDemote)
		}
		// What was stated rises by where it was said and what it is about;
		// a document's or code's block has its kind's prior (kind.go), and
		// the words of a concept in a test's strings are no statement.
		if KindOf(&l.Header) == KindStated {
			if home && s.home(r, q) {
				times("home", homeBoost)
			}
			if concept && s.topical(h.Doc, q) {
				times("concept", conceptBoost)
			}
		}
		at[h.Doc] = len(out)
		out = append(out, r)
	}
	return out, at
}

// successor is the memory that supersedes another at a search's moment.
type successor struct {
	doc      index.Doc
	ok       bool // superseded by a memory this caller may see at the moment
	probable bool // by an inferred link only
}

// successors looks each memory's successor up once: the passes of
// supersede only move scores. Notices are worded later, for the memories
// an answer shows (notices).
type successors struct {
	s  *searcher
	tv timeline.View
	q  asked
	// holds, when the question wants a kind of value, says whether a
	// memory holds one (nil otherwise).
	holds   func(index.Doc) bool
	pool    map[index.Doc]uint64 // the query terms each scored memory holds
	visible func(index.Doc) bool
	of      map[index.Doc]successor
}

func (sc *successors) lookup(d index.Doc) successor {
	if got, seen := sc.of[d]; seen {
		return got
	}
	// The store's one model of what is current (Reader.Successor,
	// Reader.Likely), with one narrowing: an inferred link moves the
	// ranking only when it is about what the question asks (Applies).
	next := sc.find(d)
	sc.of[d] = next
	return next
}

func (sc *successors) find(d index.Doc) successor {
	if n, ok := sc.s.r.Successor(d, sc.tv, sc.visible); ok {
		return successor{doc: n, ok: true}
	}
	if !sc.s.on("inferred") {
		return successor{}
	}
	if e, ok := sc.s.r.Likely(d, sc.visible, sc); ok {
		return successor{doc: e.To, ok: true, probable: true}
	}
	return successor{}
}

// supersede ranks every memory superseded at the moment below its successor,
// pulling the successor in (with the memory's score and matched terms)
// when the pool lacks it. It returns the pool, grown.
func (s *searcher) supersede(out []ranked, at map[index.Doc]int, tr *tracer, succ *successors) []ranked {
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
				tr.moved(r.doc, how, "ranked below its successor ", s.leaf(sc.doc).ID)
			}
			j, ok := at[sc.doc]
			if !ok {
				j = len(out)
				at[sc.doc] = j
				out = append(out, ranked{doc: sc.doc, score: r.score, matched: r.matched, current: true})
				tr.moved(sc.doc, "superseded", "pulled in as the successor of ", s.leaf(r.doc).ID)
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
// surface calls current what the store's one model calls replaced,
// and its notice says what the later memory says. It runs once the
// verdict is judged: an inferred link is a guess, and one the question
// does not touch neither orders the answer nor takes a rival away.
func (s *searcher) markInferred(out []ranked, visible func(index.Doc) bool) {
	for i := range out {
		if !out[i].current {
			continue
		}
		if e, ok := s.r.Likely(out[i].doc, visible, nil); ok {
			out[i].current, out[i].by, out[i].probable = false, e.To, true
		}
	}
}

// sortRanked orders a ranking best first; a tie goes to the memory that
// became true later, then to the one recorded later (record order is the
// order of saves, the same in every store that saved the same memories).
func (s *searcher) sortRanked(out []ranked) {
	slices.SortStableFunc(out, func(a, b ranked) int {
		// The scores decide nearly every comparison: the headers are read
		// only for a tie.
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Or(s.leaf(b.doc).ValidFrom.Compare(s.leaf(a.doc).ValidFrom), cmp.Compare(b.doc, a.doc))
	})
}

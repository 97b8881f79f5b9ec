package recall

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// Search bounds. The clue's weights, the candidate pool and the verdict's
// thresholds are pkg/verdict's.
const (
	// DefaultLimit is how many results a search returns unless asked.
	DefaultLimit = 5
	// MaxLimit is the most results a search returns.
	MaxLimit      = 50
	maxQueryRunes = 2000
)

// Input is one search as the caller asks it.
type Input struct {
	Query, Clue string
	// From is the project the question is asked from ("" for none).
	From  string
	Limit int
	// AsOf, optional: answer as things stood on that date (valid time).
	AsOf string
	// KnownAt, optional: answer with what had been recorded by that date
	// (record time).
	KnownAt string
	// Explain asks for the search's trace (explain.go).
	Explain bool
}

// Scope is what the caller may see: which index groups, and how to say so
// to a person.
type Scope struct {
	Visible   func(index.Group) bool
	Described string
}

// Options are the knobs of a search for tests, benchmarks and evaluation
// scripts; the daemon never sets them.
type Options struct {
	// Descend scores by descending the summary tree, with pkg/tree's
	// guarantee, instead of through the inverted index. The answer is the
	// same (both are exhaustive-equivalent); the cost is not (see score),
	// so searches use the index, and tests and benchmarks set this to
	// prove and measure the descent.
	Descend bool
	// Plain ranks without the timeline: no memory is superseded by a
	// newer value or a correction (the clue and trust still count). Tests
	// compare the corrections table against it.
	Plain bool
	// Ranking asks for the ranking behind the answer, up to the limit,
	// whatever the verdict.
	Ranking bool
}

// Hit is one ranked memory.
type Hit struct {
	Leaf  leaf.Leaf
	Score float64
	// Current is false when a later memory superseded this one at the
	// search's moment.
	Current bool
	// Notices explain why it is not current, naming both values and dates.
	Notices []string
	// TreePath is the titles of the summary branches above it, root first
	// (empty while it is not under a branch, or when the search ran
	// without the tree).
	TreePath []string
}

// Coverage says how much of the store a search examined.
type Coverage struct {
	// Exhaustive: the ranking equals an exhaustive BM25's over every
	// visible memory (always, unless something went wrong).
	Exhaustive bool
	// NodesRead counts the tree's root and branches read and the posting
	// lists walked; LeavesScored the memories whose score was computed.
	NodesRead, LeavesScored int
	// LeavesVisible counts the memories the caller could see.
	LeavesVisible int
	// ViaTree: the search descended the summary tree (else it scored
	// through the index alone: the tree was busy or not caught up).
	// Descended counts the memories the descent reached, Guaranteed those
	// the guarantee pass scored on top.
	ViaTree               bool
	Descended, Guaranteed int
}

// Result is a ranked answer.
type Result struct {
	Verdict    verdict.Verdict
	Confidence float64
	// Hits are the ranked results for Found, and the tied memories for
	// Ambiguous (then they are candidates, not answers).
	Hits     []Hit
	Coverage Coverage
	Terms    []string
	// ScopeDescription says what the search could see.
	ScopeDescription string
	// Message explains the verdict to a person or a model.
	Message string
	// Trace is how the search reached its answer, when asked (Explain).
	Trace *Trace
	// Ranked is the ranking itself, when Options.Ranking asks for it: for
	// benchmarks and tools that measure retrieval, not for answers. Its
	// leaves are headers: their texts stay in the files.
	Ranked []Hit
}

// Query is a search's input, checked and read (Parse), and what the
// stages learn of it on the way.
type Query struct {
	text        string
	from        string
	terms, clue []string
	exp         *kept // words added for the terms (expand.go)
	limit       int
	at          Moment
	ask         question
	explain     bool
	tr          *tracer // nil unless the caller asked for the trace
}

// Parse checks a search's input and reads its words, limit and moment.
func Parse(in Input) (Query, error) {
	if err := validateQuery("query", in.Query); err != nil {
		return Query{}, err
	}
	if in.Clue != "" {
		if err := validateQuery("clue", in.Clue); err != nil {
			return Query{}, err
		}
	}
	limit, err := limitOf(in.Limit)
	if err != nil {
		return Query{}, err
	}
	terms := tokenize.Terms(in.Query)
	if len(terms) == 0 {
		return Query{}, fmt.Errorf("%w: the query has no words to search for", leaf.ErrInvalid)
	}
	if len(terms) > index.MaxQueryTerms {
		// Scoring only some of them would miss memories that hold only the
		// rest, and the search promises to be exhaustive.
		return Query{}, fmt.Errorf("%w: the query has %d distinct words, at most %d: keep the ones that matter", leaf.ErrInvalid, len(terms), index.MaxQueryTerms)
	}
	clueTerms := tokenize.Terms(in.Clue)
	if len(clueTerms) > index.MaxQueryTerms {
		return Query{}, fmt.Errorf("%w: the clue has %d distinct words, at most %d", leaf.ErrInvalid, len(clueTerms), index.MaxQueryTerms)
	}
	at, err := ParseMoment(in.AsOf, in.KnownAt)
	if err != nil {
		return Query{}, err
	}
	return Query{text: in.Query, from: in.From, terms: terms, clue: clueTerms, limit: limit, at: at, explain: in.Explain}, nil
}

// limitOf is the one rule for how many results a search returns: 0 means
// the default, anything else outside 1 to MaxLimit is refused.
func limitOf(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultLimit, nil
	case n < 0 || n > MaxLimit:
		return 0, fmt.Errorf("%w: limit %d is out of range: use 1 to %d", leaf.ErrInvalid, n, MaxLimit)
	}
	return n, nil
}

// Search runs the pipeline for q over r, for a caller who sees sc.
func (e *Engine) Search(r Reader, q Query, sc Scope, opts Options) Result {
	s := e.over(r)
	if q.explain {
		q.tr = newTracer()
	}
	vis := sc.Visible
	visible := Visible(r, vis, q.at)
	s.rewrite(&q)
	raw, cov := s.score(opts.Descend, expand(q.terms, q.exp, s.on("light")), vis, q.at, max(q.limit, verdict.Pool))
	order, rivals, held := s.rerank(raw, q, visible, !opts.Plain) // and supersede
	j, ev := s.judged(order, rivals, q, vis, held)                // gather and judge
	// Show: what the store's one model calls replaced is not current in
	// the answer either, whether or not it moved the ranking.
	if !opts.Plain {
		s.markInferred(order, visible)
		s.markInferred(rivals, visible)
	}
	res := Result{
		Verdict:          j.Verdict,
		Confidence:       j.Confidence,
		Hits:             s.answer(j, order, rivals, q),
		Coverage:         cov,
		Terms:            q.terms,
		ScopeDescription: sc.Described + q.at.describe(),
		Trace:            q.tr.trace(s, q, order, max(q.limit, 1+len(j.At), 1+j.Tied), j, ev),
	}
	res.Message = j.Message(verdict.Memories, res.ScopeDescription, q.terms)
	if opts.Ranking {
		for _, x := range order[:min(len(order), q.limit)] {
			res.Ranked = append(res.Ranked, s.hitOf(x, *s.leaf(x.doc), q.at))
		}
	}
	return res
}

// rewrite is the rewrite stage: the query's terms without the words that
// only point at a time or name the project asked from, what the question
// asks (question.go), and the lexicon's words for its terms.
func (s *searcher) rewrite(q *Query) {
	if s.on("untimed") {
		before := q.terms
		q.terms = s.untimed(q.text, q.terms)
		q.tr.rewrite("untimed", before, q.terms)
	}
	if s.on("unselfed") {
		before := q.terms
		q.terms = s.unselfed(q.terms, q.from)
		q.tr.rewrite("unselfed", before, q.terms)
	}
	q.ask = s.questionOf(q.text, q.terms, q.from)
	var more []lexicon.Expansion
	if s.on("expand") {
		more = s.lex.Expand(q.text, q.terms)
	}
	q.exp = bounded(more, s.ix.DocFreq)
	q.exp.named = writtenAsNames(q.text)
	if q.tr != nil {
		for _, x := range q.exp.words() {
			q.tr.note("expand: %s for %s (%s)", x.Term, q.terms[x.For], x.Source)
		}
	}
}

// rerank is the rerank and supersede stages: the scored pool ranked
// (rank), the memory holding what is asked or the one at home moved
// first, and the rivals the verdict weighs the best against. held is
// whether the best holds the kind of value the question wants.
func (s *searcher) rerank(raw []index.Hit, q Query, visible func(index.Doc) bool, withTimeline bool) (order, rivals []ranked, held bool) {
	if len(raw) == 0 {
		return nil, nil, true
	}
	for _, h := range raw {
		q.tr.scored(h.Doc, h.Score)
	}
	order = s.rank(raw, q, visible, withTimeline)
	if s.on("holding") {
		held = s.preferHolding(order, q.ask, q.tr)
	} else {
		held = q.ask.wants.Name == "" || q.ask.held(order[0].doc)
	}
	if q.ask.wants.Name == "" && s.on("prefer_home") {
		s.preferHome(order, q.ask, q.tr)
	}
	rivals = rivalsOf(order)
	if held && q.ask.wants.Name != "" && s.on("holding") {
		rivals = s.holdingRivals(rivals, q.ask)
	}
	return order, rivals, held
}

// Visible returns which memories a caller who sees the groups vis allows
// may see at moment m, through r: live, in such a group, and existing
// then. A search and every other surface of what is current ask it.
func Visible(r Reader, vis func(index.Group) bool, m Moment) func(index.Doc) bool {
	return func(d index.Doc) bool {
		l := r.Leaf(d)
		return l.Live() && vis(groupOf(r, l)) && m.Holds(&l.Header)
	}
}

// holdingRivals drops from the first rivals those that hold no value of
// the kind the question wants, when the best holds one: "the Home
// Assistant URL" is answered by the memory with the address, and one that
// only names Home Assistant is no alternative to it, whatever its score.
func (s *searcher) holdingRivals(rivals []ranked, q question) []ranked {
	n := min(len(rivals), holdingWindow)
	out := make([]ranked, 0, len(rivals))
	for _, r := range rivals[:n] {
		if q.held(r.doc) {
			out = append(out, r)
		}
	}
	return append(out, rivals[n:]...)
}

// rivalsOf returns the memories below the best that are real
// alternatives to it: one the best answer superseded is history, not a
// rival.
func rivalsOf(order []ranked) []ranked {
	rivals := make([]ranked, 0, len(order)-1)
	for _, r := range order[1:] {
		if r.current {
			rivals = append(rivals, r)
		}
	}
	return rivals
}

// evidence is what the verdict policy is told of a ranking; held is
// whether the best memory holds the kind of value the question wants
// (preferHolding).
func (s *searcher) evidence(order, rivals []ranked, q Query, vis func(index.Group) bool, held bool) evidence {
	if len(order) == 0 {
		return evidence{}
	}
	best := order[0]
	e := evidence{
		Ranked: len(order),
		Best:   best.score,
		Rivals: make([]float64, len(rivals)),
		// Coverage counts the query's informative terms a memory
		// contains. It is deliberately not IDF-weighted: in a small store
		// every unseen word has a huge IDF, and one missing synonym would
		// then read as a stray match.
		Coverage:    float64(bits.OnesCount64(best.matched)) / float64(len(q.terms)),
		QueryTerms:  len(q.terms),
		Shared:      bits.OnesCount64(best.matched),
		Informative: len(q.terms) + len(q.clue),
		Topical:     s.topical(best.doc, q.ask),
		Held:        held,
		Period:      q.ask.periodName,
	}
	if s.on("unknown_name") {
		e.Unknown = s.unknownName(q.ask, vis)
	}
	if s.on("unowned") {
		e.Unowned = s.unowned(q.ask, q.terms, q.exp, vis)
	}
	if s.on("wanted_value") {
		e.Wanted = q.ask.wants.Name
	}
	if s.on("referents") {
		e.Referents = s.referents(order, q.ask)
	}
	if s.on("late_period") {
		e.Late = s.late(q.ask, best)
	}
	if s.on("other_project") {
		e.Elsewhere = s.elsewhere(q.ask, best)
	}
	if e.Elsewhere {
		e.Project = s.r.Projects()[q.ask.projects[0]]
	}
	if len(e.Referents) < 2 && s.on("events") {
		e.Events = s.events(order, q.ask, q.terms)
	}
	if verdict.StrayMatch(e) && s.on("stray") {
		e.Unseen = s.unseen(q.terms, vis)
	}
	for i, r := range rivals {
		e.Rivals[i] = r.score
	}
	if len(rivals) > 0 {
		// Across parts of the store ("the migration" of two projects), a
		// light word ("went") is no part of what either answers; within one,
		// it still tells two near-tied memories apart.
		e.Covered = s.covers(rivals[0], best, q, s.apart(best, rivals[0]))
		e.Apart = s.on("apart") && s.referentsApart(best, rivals[0], e, q)
	}
	return e
}

// judged is the verdict on a ranking. Whether a tie is between different
// things needs the two memories' texts, read from their files, so it is
// asked only when it is the one thing left to decide: the ranking would
// otherwise answer found over an exact tie, or over a near tie for a
// query of a word or two ("Luis": the cousin or the reviewer?).
func (s *searcher) judged(order, rivals []ranked, q Query, vis func(index.Group) bool, held bool) (judgment, evidence) {
	e := s.evidence(order, rivals, q, vis, held)
	// A tie between a memory at home and one elsewhere is decided by
	// where the question is asked (referentsApart), not by their words.
	j := verdict.Rejudge(e, verdict.Judge(e), func() bool {
		return s.on("distinct") && s.sameKind(order[0], rivals[0]) && s.home(order[0], q.ask) == s.home(rivals[0], q.ask) && s.distinct(order[0], rivals[0], q)
	})
	// A tie between parts of the store shows each part's memory of what is
	// asked, not the memories that happen to score near the best.
	if j.Answer == verdict.Tie && e.Apart {
		if at := s.partsShown(order, rivals[:j.Tied], q, max(q.limit, 1+j.Tied)); at != nil {
			j.Answer, j.At, j.Parts = verdict.Referents, at, true
		}
	}
	return j, e
}

// distinct reports whether two memories share little beyond the query's
// own words: what else each says is about something else (two people who
// both review pull requests), not a second wording of one thing.
func (s *searcher) distinct(a, b ranked, q Query) bool {
	terms := func(r ranked) []string { return tokenize.Terms(s.r.Text(r.doc).Text) }
	return verdict.DistinctTerms(terms(a), terms(b), append(slices.Clone(q.terms), q.clue...), tokenize.IsStopWord)
}

// answer returns the hits a judgment shows: the answers for Found, the
// candidates to choose from for Ambiguous, the near miss for NotFound.
func (s *searcher) answer(j judgment, order, rivals []ranked, q Query) []Hit {
	hit := func(r ranked) Hit { return s.hitOf(r, s.r.Text(r.doc), q.at) }
	var hits []Hit
	switch j.Answer {
	case verdict.Nothing:
	case verdict.NearMiss:
		hits = []Hit{hit(order[0])}
	case verdict.Tie:
		// The tied memories, then, up to the limit, the next alternatives
		// that hold one of the best's query words themselves (not only lent
		// by a neighbour): a clue may point at one just below the tie.
		hits = append(hits, hit(order[0]))
		for i, r := range rivals {
			if len(hits) >= max(q.limit, 1+j.Tied) {
				break
			}
			if i < j.Tied || r.matched&order[0].matched != 0 {
				hits = append(hits, hit(r))
			}
		}
	case verdict.Referents, verdict.Events:
		for _, i := range j.At {
			hits = append(hits, hit(order[i]))
		}
	case verdict.Ranking:
		for _, r := range order[:min(len(order), q.limit)] {
			h := hit(r)
			h.TreePath = s.r.TreePath(h.Leaf.ID)
			hits = append(hits, h)
		}
	}
	return hits
}

// hitOf is a ranked memory as a result shows it, with l its leaf (with its
// text, or its header alone).
func (s *searcher) hitOf(r ranked, l leaf.Leaf, m Moment) Hit {
	h := Hit{Leaf: l, Score: r.score, Current: r.current}
	if !r.current {
		h.Notices = s.r.Notices(r.doc, r.by, r.probable, m.Timeline())
	}
	return h
}

// apart reports whether two memories of one kind sit in different parts
// of the tree: different consolidation groups (scope or domain). A near
// tie between them is a choice between topics, not two sides of one
// answer, so it is left to the caller even for a long query. A memory and
// a block of an ingested document or code are not two referents: the
// kinds' priors (kind.go) already ranked them.
func (s *searcher) apart(a, b ranked) bool {
	return s.leaf(a.doc).Part() != s.leaf(b.doc).Part() && s.sameKind(a, b)
}

// referentsApart reports whether the best memory and its first rival sit
// in different parts of the tree as different referents (see apart). Of
// one at home and one elsewhere, the one at home is meant; asked from no
// project, a personal memory and a project's that are both about what is
// asked (both open with it: "Work laptop: …", "New personal laptop: …")
// are two referents still.
func (s *searcher) referentsApart(best, rival ranked, e evidence, q Query) bool {
	if !s.apart(best, rival) {
		return false
	}
	if s.home(best, q.ask) == s.home(rival, q.ask) {
		return true
	}
	return q.ask.from == "" && e.Covered && e.Best-e.Rivals[0] < verdict.ApartTieGap*e.Best &&
		s.about(best, q.terms) && s.about(rival, q.terms)
}

// sameKind reports whether two memories are of one kind (kind.go): a
// stated memory and a document's block are never two referents of one
// question.
func (s *searcher) sameKind(a, b ranked) bool {
	return KindOf(&s.leaf(a.doc).Header) == KindOf(&s.leaf(b.doc).Header)
}

func (s *searcher) containsAny(d index.Doc, terms []string) bool {
	for _, t := range terms {
		if s.ix.Contains(d, t) {
			return true
		}
	}
	return false
}

func validateQuery(kind, q string) error {
	if strings.TrimSpace(q) == "" {
		return fmt.Errorf("%w: %s is empty: say what to look for", leaf.ErrInvalid, kind)
	}
	if err := leaf.ValidateText(q); err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	if n := len([]rune(q)); n > maxQueryRunes {
		return fmt.Errorf("%w: %s is %d characters, at most %d: shorten it to the words that matter", leaf.ErrInvalid, kind, n, maxQueryRunes)
	}
	return nil
}

// evidence and judgment are the verdict policy's input and decision, as
// the search gathers and reads them.
type (
	evidence = verdict.Evidence
	judgment = verdict.Judgment
)

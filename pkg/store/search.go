package store

import (
	"fmt"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
	"math/bits"
	"slices"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// SearchScope is which memories a search may see.
type SearchScope int

const (
	// ScopeDefault sees global memories and the caller's project.
	ScopeDefault SearchScope = iota
	// ScopeOnlyProject sees the caller's project only.
	ScopeOnlyProject
	// ScopeOnlyGlobal sees global memories only.
	ScopeOnlyGlobal
	// ScopeAll sees everything, every project included.
	ScopeAll
)

func scopeName(s SearchScope) string {
	switch s {
	case ScopeOnlyProject:
		return "this project"
	case ScopeOnlyGlobal:
		return "global memories"
	case ScopeAll:
		return "any project"
	}
	return "global memories or this project"
}

// Search bounds. The clue's weights, the candidate pool and the verdict's
// thresholds are pkg/verdict's.
const (
	defaultLimit    = 5
	maxLimit        = 50
	maxQueryRunes   = 2000
	excerptMaxRunes = 160
)

// SearchInput is one search.
type SearchInput struct {
	Caller Caller
	Query  string
	Clue   string
	Scope  SearchScope
	Limit  int
	// AsOf, optional: answer as things stood on that date (valid time).
	AsOf string
	// KnownAt, optional: answer with what had been recorded by that date
	// (record time).
	KnownAt string
	// Explain asks for the search's trace (explain.go).
	Explain bool
}

// Hit is one ranked memory.
type Hit struct {
	Leaf  leaf.Leaf
	Score float64
	// Current is false when a later memory superseded this one in the
	// search's view.
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

// SearchResult is a ranked answer.
type SearchResult struct {
	Verdict    Verdict
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
}

// Search ranks the memories the caller may see. The ranking is exhaustive:
// every visible memory containing a query term is scored.
func (s *Store) Search(in SearchInput) (SearchResult, error) {
	res, _, err := s.search(in, EvalOptions{}, false)
	return res, err
}

// query is a search's input, checked and read.
type query struct {
	terms, clue []string
	exp         *kept // words added for the terms (expand.go)
	limit       int
	view        view
	ask         question
	tr          *tracer // nil unless the caller asked for the trace
}

// parseSearch checks a search's input and reads its words, limit and view.
func parseSearch(in SearchInput) (query, error) {
	if err := validateCaller(in.Caller); err != nil {
		return query{}, err
	}
	if err := validateQuery("query", in.Query); err != nil {
		return query{}, err
	}
	if in.Clue != "" {
		if err := validateQuery("clue", in.Clue); err != nil {
			return query{}, err
		}
	}
	limit, err := searchLimit(in.Limit)
	if err != nil {
		return query{}, err
	}
	terms := tokenize.Terms(in.Query)
	if len(terms) == 0 {
		return query{}, fmt.Errorf("%w: the query has no words to search for", ErrInvalid)
	}
	if len(terms) > index.MaxQueryTerms {
		// Scoring only some of them would miss memories that hold only the
		// rest, and the search promises to be exhaustive.
		return query{}, fmt.Errorf("%w: the query has %d distinct words, at most %d: keep the ones that matter", ErrInvalid, len(terms), index.MaxQueryTerms)
	}
	clueTerms := tokenize.Terms(in.Clue)
	if len(clueTerms) > index.MaxQueryTerms {
		return query{}, fmt.Errorf("%w: the clue has %d distinct words, at most %d", ErrInvalid, len(clueTerms), index.MaxQueryTerms)
	}
	v, err := parseView(in.AsOf, in.KnownAt)
	if err != nil {
		return query{}, err
	}
	return query{terms: terms, clue: clueTerms, limit: limit, view: v}, nil
}

// searchLimit is the one rule for how many results a search returns: 0
// means the default, anything else outside 1 to maxLimit is refused.
func searchLimit(n int) (int, error) {
	switch {
	case n == 0:
		return defaultLimit, nil
	case n < 0 || n > maxLimit:
		return 0, fmt.Errorf("%w: limit %d is out of range: use 1 to %d", ErrInvalid, n, maxLimit)
	}
	return n, nil
}

// search is Search, with the evaluation options (zero for Search) and,
// when keepRanking, the ranking behind the answer.
func (s *Store) search(in SearchInput, opts EvalOptions, keepRanking bool) (SearchResult, []Hit, error) {
	q, err := parseSearch(in)
	if err != nil {
		return SearchResult{}, nil, err
	}
	// A scope=all search is logged while it ranks; it answers only once
	// the entry is durable (startReadAll).
	logged, err := s.startReadAll(in.Caller, in.Scope, "search "+in.Query)
	if err != nil {
		return SearchResult{}, nil, err
	}
	res, ranking, err := s.searchLocked(in, q, opts, keepRanking)
	if lerr := logged(); lerr != nil {
		return SearchResult{}, nil, lerr
	}
	return res, ranking, err
}

// searchLocked is search once the query is read: it takes s.mu for reading
// (and the tree's lock, when free) for the whole ranking.
func (s *Store) searchLocked(in SearchInput, q query, opts EvalOptions, keepRanking bool) (SearchResult, []Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, desc, err := s.visible(in.Caller, in.Scope)
	if err != nil {
		return SearchResult{}, nil, err
	}
	desc += q.view.describe()
	inView := s.inView(q.view)
	// The tree names where each answer sits, when it is free: a search
	// never waits for a consolidation (see tree.go).
	var t *tree.Tree
	if s.treeMu.TryRLock() {
		defer s.treeMu.RUnlock()
		t = s.tree
	}
	var descend *tree.Tree
	if opts.Descend {
		descend = t
	}
	if in.Explain {
		q.tr = newTracer()
	}
	if s.on("untimed") {
		before := q.terms
		q.terms = s.untimed(in.Query, q.terms)
		q.tr.rewrite("untimed", before, q.terms)
	}
	if s.on("unselfed") {
		before := q.terms
		q.terms = s.unselfed(q.terms, in.Caller.Project)
		q.tr.rewrite("unselfed", before, q.terms)
	}
	q.ask = s.questionOf(in.Query, q.terms, in.Caller.Project)
	var more []lexicon.Expansion
	if s.on("expand") {
		more = s.lex.Expand(in.Query, q.terms)
	}
	q.exp = bounded(more, s.ix.DocFreq)
	q.exp.named = writtenAsNames(in.Query)
	for _, x := range q.exp.words() {
		q.tr.note("expand: %s for %s (%s)", x.Term, q.terms[x.For], x.Source)
	}
	raw, cov := s.score(descend, expand(q.terms, q.exp, s.on("light")), vis, inView, max(q.limit, verdict.Pool), !q.view.zero())
	var order, rivals []ranked
	held := true
	if len(raw) > 0 {
		for _, h := range raw {
			q.tr.scored(h.Doc, h.Score)
		}
		order = s.rank(raw, q.clue, q.ask, q.tr, q.view.tl, inView, vis, !opts.Plain)
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
	}
	j, e := s.judged(order, rivals, q, vis, held)
	if !opts.Plain {
		now := s.visibleIn(vis, q.view)
		s.markInferred(order, now)
		s.markInferred(rivals, now)
	}
	res := SearchResult{
		Verdict:          j.Verdict,
		Confidence:       j.Confidence,
		Hits:             s.answer(j, order, rivals, q, t),
		Coverage:         cov,
		Terms:            q.terms,
		ScopeDescription: desc,
		Message:          j.Message(verdict.Memories, desc, q.terms),
		Trace:            q.tr.trace(s, q, order, max(q.limit, 1+len(j.At), 1+j.Tied), j, e),
	}
	var ranking []Hit
	if keepRanking && len(order) > 0 {
		ranking = make([]Hit, 0, min(len(order), q.limit))
		for _, r := range order[:min(len(order), q.limit)] {
			ranking = append(ranking, s.hitOf(r, *s.docs[r.doc], q.view.tl))
		}
	}
	return res, ranking, nil
}

// holdingRivals drops from the first rivals those that hold no value of
// the kind the question wants, when the best holds one: "the Home
// Assistant URL" is answered by the memory with the address, and one that
// only names Home Assistant is no alternative to it, whatever its score.
// Callers hold s.mu for reading.
func (s *Store) holdingRivals(rivals []ranked, q question) []ranked {
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
// (preferHolding). Callers hold s.mu for reading.
func (s *Store) evidence(order, rivals []ranked, q query, vis func(index.Group) bool, held bool) evidence {
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
		e.Project = s.projects[q.ask.projects[0]]
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
func (s *Store) judged(order, rivals []ranked, q query, vis func(index.Group) bool, held bool) (judgment, evidence) {
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
func (s *Store) distinct(a, b ranked, q query) bool {
	terms := func(r ranked) []string { return tokenize.Terms(s.docShown(r.doc).Text) }
	return verdict.DistinctTerms(terms(a), terms(b), append(slices.Clone(q.terms), q.clue...), tokenize.IsStopWord)
}

// answer returns the hits a judgment shows: the answers for Found, the
// candidates to choose from for Ambiguous, the near miss for NotFound.
// Callers hold s.mu for reading (and s.treeMu, when t is not nil).
func (s *Store) answer(j judgment, order, rivals []ranked, q query, t *tree.Tree) []Hit {
	hit := func(r ranked) Hit { return s.hitOf(r, s.docShown(r.doc), q.view.tl) }
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
			if t != nil {
				h.TreePath = s.titles.path(t, h.Leaf.ID)
			}
			hits = append(hits, h)
		}
	}
	return hits
}

// hitOf is a ranked memory as a result shows it, with l its leaf (with its
// text, or its header alone). Callers hold s.mu for reading.
func (s *Store) hitOf(r ranked, l leaf.Leaf, tv timeline.View) Hit {
	return Hit{Leaf: l, Score: r.score, Current: r.current, Notices: s.notices(r, tv)}
}

// apart reports whether two memories of one kind sit in different parts
// of the tree: different consolidation groups (scope or domain). A near
// tie between them is a choice between topics, not two sides of one
// answer, so it is left to the caller even for a long query. A memory and
// a block of an ingested document or code are not two referents: the
// kinds' priors (kind.go) already ranked them. Callers hold s.mu.
func (s *Store) apart(a, b ranked) bool {
	return treeGroup(s.docs[a.doc]) != treeGroup(s.docs[b.doc]) && s.sameKind(a, b)
}

// referentsApart reports whether the best memory and its first rival sit
// in different parts of the tree as different referents (see apart). Of
// one at home and one elsewhere, the one at home is meant; asked from no
// project, a personal memory and a project's that are both about what is
// asked (both open with it: "Work laptop: …", "New personal laptop: …")
// are two referents still. Callers hold s.mu.
func (s *Store) referentsApart(best, rival ranked, e evidence, q query) bool {
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
// question. Callers hold s.mu.
func (s *Store) sameKind(a, b ranked) bool {
	return kindOf(&s.docs[a.doc].Header) == kindOf(&s.docs[b.doc].Header)
}

func (s *Store) containsAny(d index.Doc, terms []string) bool {
	for _, t := range terms {
		if s.ix.Contains(d, t) {
			return true
		}
	}
	return false
}

func validateQuery(kind, q string) error {
	if strings.TrimSpace(q) == "" {
		return fmt.Errorf("%w: %s is empty: say what to look for", ErrInvalid, kind)
	}
	if err := leaf.ValidateText(q); err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	if n := len([]rune(q)); n > maxQueryRunes {
		return fmt.Errorf("%w: %s is %d characters, at most %d: shorten it to the words that matter", ErrInvalid, kind, n, maxQueryRunes)
	}
	return nil
}

// excerpt is the opening of a text on one line, for the store's own
// answers (an OUTDATED notice, the log's summary). What the daemon sends
// on the wire is cut by the wire's own ihmtv1.Excerpt: the store does not
// import the API.
func excerpt(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= excerptMaxRunes {
		return text
	}
	return string(r[:excerptMaxRunes]) + "…"
}

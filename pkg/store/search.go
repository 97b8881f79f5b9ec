package store

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
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

// Verdict thresholds. The confidence blends how much of the query the best
// memory covers with how clearly it beats the runner-up.
const (
	coverageWeight  = 0.6
	marginWeight    = 0.4
	minConfidence   = 0.45 // below this the best memory is not trusted alone
	nearTieGap      = 0.18 // relative score gap under which two memories tie
	shortQuery      = 2    // informative terms at or under which a tie is ambiguous
	nearMissCover   = 1.0 / 3
	clueBoost       = 1.6
	clueDemote      = 0.7
	defaultLimit    = 5
	maxLimit        = 50
	candidatePool   = 50 // hits considered for clue re-ranking and ties
	maxCandidates   = 5
	maxQueryRunes   = 2000
	excerptMaxRunes = 160
)

// Verdict is the outcome of a search.
type Verdict int

const (
	// Found: the results answer the query.
	Found Verdict = iota + 1
	// Ambiguous: several memories tie; a clue is needed to choose.
	Ambiguous
	// NotFound: nothing visible matches (or only a stray word does).
	NotFound
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
	// Descend scores by descending the summary tree, with pkg/tree's
	// guarantee, instead of through the inverted index. The answer is the
	// same (both are exhaustive-equivalent); the cost is not: measured on
	// 10k and 100k stores the descent and its guarantee cost several times
	// the index's single pass over the query's posting lists (see score),
	// so searches use the index and tests and benchmarks use this.
	Descend bool
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
	Hits []Hit
	// Ranked is the ranking itself, up to the limit, whatever the verdict:
	// for benchmarks and tools that measure retrieval, not for answers. Its
	// leaves are headers: their texts stay in the files (see texts.go).
	Ranked   []Hit
	Coverage Coverage
	Terms    []string
	// ScopeDescription says what the search could see.
	ScopeDescription string
	// Message explains the verdict to a person or a model.
	Message string
}

// Search ranks the memories the caller may see. The ranking is exhaustive:
// every visible memory containing a query term is scored.
func (s *Store) Search(in SearchInput) (SearchResult, error) {
	if err := validateCaller(in.Caller); err != nil {
		return SearchResult{}, err
	}
	if err := validateQuery("query", in.Query); err != nil {
		return SearchResult{}, err
	}
	if in.Clue != "" {
		if err := validateQuery("clue", in.Clue); err != nil {
			return SearchResult{}, err
		}
	}
	limit := in.Limit
	switch {
	case limit < 0:
		return SearchResult{}, fmt.Errorf("%w: limit %d is negative", ErrInvalid, limit)
	case limit == 0:
		limit = defaultLimit
	case limit > maxLimit:
		limit = maxLimit
	}
	terms := tokenize.Terms(in.Query)
	if len(terms) == 0 {
		return SearchResult{}, fmt.Errorf("%w: the query has no words to search for", ErrInvalid)
	}
	if len(terms) > index.MaxQueryTerms {
		// Scoring only some of them would miss memories that hold only the
		// rest, and the search promises to be exhaustive.
		return SearchResult{}, fmt.Errorf("%w: the query has %d distinct words, at most %d: keep the ones that matter", ErrInvalid, len(terms), index.MaxQueryTerms)
	}
	clueTerms := tokenize.Terms(in.Clue)
	if len(clueTerms) > index.MaxQueryTerms {
		return SearchResult{}, fmt.Errorf("%w: the clue has %d distinct words, at most %d", ErrInvalid, len(clueTerms), index.MaxQueryTerms)
	}

	view, err := parseView(in.AsOf, in.KnownAt)
	if err != nil {
		return SearchResult{}, err
	}
	if err := s.recordReadAll(in.Caller, in.Scope, "search "+in.Query); err != nil {
		return SearchResult{}, err
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, desc, err := s.visible(in.Caller, in.Scope)
	if err != nil {
		return SearchResult{}, err
	}
	desc += view.describe()
	inView := s.inView(view)
	// The tree names where each answer sits, when it is free: a search
	// never waits for a consolidation (see tree.go).
	var t *tree.Tree
	if s.treeMu.TryRLock() {
		defer s.treeMu.RUnlock()
		t = s.tree
	}
	var descend *tree.Tree
	if in.Descend {
		descend = t
	}
	raw, cov := s.score(descend, terms, vis, inView, max(limit, candidatePool), !view.zero())
	res := SearchResult{
		Terms:            terms,
		ScopeDescription: desc,
		Coverage:         cov,
	}
	if len(raw) == 0 {
		res.Verdict = NotFound
		res.Message = fmt.Sprintf("No memory in %s contains any of: %s.", desc, strings.Join(terms, ", "))
		return res, nil
	}
	order := s.rank(raw, clueTerms, view.tl, inView, vis)

	// Coverage counts the query's informative terms a memory contains. It is
	// deliberately not IDF-weighted: in a small store every unseen word has
	// a huge IDF, and one missing synonym would then read as a stray match.
	cover := func(r ranked) float64 {
		return float64(bits.OnesCount64(r.matched)) / float64(len(terms))
	}
	hit := func(r ranked) Hit {
		return Hit{Leaf: s.shown(s.docs[r.doc]), Score: r.score, Current: r.current, Notices: s.notices(r, view.tl)}
	}

	res.Ranked = make([]Hit, 0, min(len(order), limit))
	for _, r := range order[:min(len(order), limit)] {
		res.Ranked = append(res.Ranked, Hit{Leaf: *s.docs[r.doc], Score: r.score, Current: r.current, Notices: s.notices(r, view.tl)})
	}
	best := order[0]
	coverage := cover(best)
	// The runner-up is the best memory that is a real alternative: one the
	// best answer superseded is history, not a rival.
	margin := 1.0
	rivals := make([]ranked, 0, len(order)-1)
	for _, r := range order[1:] {
		if r.current {
			rivals = append(rivals, r)
		}
	}
	if len(rivals) > 0 && best.score > 0 {
		margin = (best.score - rivals[0].score) / best.score
	}
	res.Confidence = math.Round((coverageWeight*coverage+marginWeight*margin)*1000) / 1000

	informative := len(terms) + len(clueTerms)
	switch {
	case coverage < nearMissCover && len(terms) >= 3:
		res.Verdict = NotFound
		res.Hits = []Hit{hit(best)}
		res.Message = fmt.Sprintf("Nothing in %s matches the query well; the nearest memory shares only a few of its words (near miss, shown for reference).", desc)
	case len(rivals) > 0 && margin < nearTieGap &&
		(informative <= shortQuery || res.Confidence < minConfidence || s.apart(best, rivals[0])):
		res.Verdict = Ambiguous
		res.Hits = append(res.Hits, hit(best))
		for _, r := range rivals {
			if len(res.Hits) == maxCandidates || (best.score-r.score)/best.score >= nearTieGap {
				break
			}
			res.Hits = append(res.Hits, hit(r))
		}
		res.Message = fmt.Sprintf("%d memories match about equally.", len(res.Hits))
	case res.Confidence < minConfidence:
		res.Verdict = Ambiguous
		// Candidates are alternatives: a superseded memory is history.
		for _, r := range order {
			if len(res.Hits) == maxCandidates {
				break
			}
			if r.current {
				res.Hits = append(res.Hits, hit(r))
			}
		}
		res.Message = "No memory matches the query clearly; these match part of it."
	default:
		res.Verdict = Found
		for _, r := range order[:min(len(order), limit)] {
			h := hit(r)
			if t != nil {
				h.TreePath = s.titles.path(t, h.Leaf.ID)
			}
			res.Hits = append(res.Hits, h)
		}
		res.Message = fmt.Sprintf("Found in %s.", desc)
	}
	return res, nil
}

// apart reports whether two memories sit in different parts of the tree:
// different consolidation groups (scope or domain). A near tie between
// them is a choice between topics, not two sides of one answer, so it is
// left to the caller even for a long query. Callers hold s.mu.
func (s *Store) apart(a, b ranked) bool {
	return treeGroup(s.docs[a.doc]) != treeGroup(s.docs[b.doc])
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

// Excerpt returns the opening of a text on one line, for candidate lists.
func Excerpt(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= excerptMaxRunes {
		return text
	}
	return string(r[:excerptMaxRunes]) + "…"
}

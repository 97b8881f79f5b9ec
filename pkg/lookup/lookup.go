// Package lookup ranks the documents of an index against a query and a
// clue, and judges the ranking, the way search_memory does for memories:
// BM25 through package index, the clue lifting the hits that match it and
// sinking the rest, and the store's verdict (found, ambiguous with the tied
// candidates, or an honest not_found) through package verdict.
//
// It serves the rankings kept outside the long-term store — a session's
// scratch notes (package scratch) and a project's code index (package
// codeindex) — so that an agent reads every verdict the same way.
//
// It holds nothing: the caller owns the index and says, per document, how a
// hit is weighed (a code index demotes import blocks) and what its words
// are (for the check that an exact tie is between different things).
package lookup

import (
	"fmt"
	"math/bits"
	"sort"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// maxQueryBytes bounds a query or a clue.
const maxQueryBytes = 4096

// Query is one lookup.
type Query struct {
	Text, Clue string
	// Visible says which groups may answer; nil means all.
	Visible func(index.Group) bool
	// Weigh adjusts a hit's score; nil keeps it.
	Weigh func(d index.Doc, score float64) float64
	// Words returns a document's terms, for the tie check; nil skips it.
	Words func(d index.Doc) []string
	// Apart reports whether two tied documents are different things
	// whatever their words (two files' functions of one name); nil: never.
	Apart func(a, b index.Doc) bool
}

// Hit is one ranked document.
type Hit struct {
	Doc     index.Doc
	Score   float64
	Matched uint64
}

// Answer is a judged ranking.
type Answer struct {
	Verdict    verdict.Verdict
	Confidence float64
	// Ranked is every hit of the pool, best first; Shown those the
	// verdict names (found: the ranking; ambiguous: the best and the tied
	// rivals; not_found: the near miss, if any).
	Ranked, Shown []Hit
	Terms, Clue   []string
	// Searched counts the documents the query could see.
	Searched int
	// Tied describes an ambiguous answer (see verdict.Judgment).
	Tied int
	// Judgment is the verdict's whole decision, for its wording.
	Judgment verdict.Judgment
}

// Search ranks ix's documents against q and judges the ranking.
func Search(ix *index.Index, q Query) (Answer, error) {
	terms, clue, err := parse(q.Text, q.Clue)
	if err != nil {
		return Answer{}, err
	}
	vis := q.Visible
	if vis == nil {
		vis = func(index.Group) bool { return true }
	}
	raw, st := ix.Search(index.Query{Terms: terms, Visible: vis, Limit: verdict.Pool})
	ranked := make([]Hit, 0, len(raw))
	for _, h := range raw {
		s := h.Score
		if len(clue) > 0 {
			if containsAny(ix, h.Doc, clue) {
				s *= verdict.ClueBoost
			} else {
				s *= verdict.ClueDemote
			}
		}
		if q.Weigh != nil {
			s = q.Weigh(h.Doc, s)
		}
		ranked = append(ranked, Hit{Doc: h.Doc, Score: s, Matched: h.Matched})
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Score > ranked[j].Score })
	a := Answer{Ranked: ranked, Terms: terms, Clue: clue, Searched: st.Visible}
	j := judge(ranked, terms, clue, q.Words, q.Apart)
	a.Verdict, a.Confidence, a.Tied, a.Judgment = j.Verdict, j.Confidence, j.Tied, j
	switch {
	case len(ranked) == 0:
	case j.Verdict == verdict.NotFound:
		if j.Answer == verdict.NearMiss {
			a.Shown = ranked[:1]
		}
	case j.Verdict == verdict.Ambiguous:
		a.Shown = ranked[:1+j.Tied]
	default:
		a.Shown = ranked
	}
	return a, nil
}

// judge builds the evidence of a ranking and asks the verdict; whether a
// tie is between different things is asked only when it decides
// (verdict.Rejudge).
func judge(ranked []Hit, terms, clue []string, words func(index.Doc) []string, apart func(a, b index.Doc) bool) verdict.Judgment {
	e := verdict.Evidence{Ranked: len(ranked), QueryTerms: len(terms), Informative: len(terms) + len(clue)}
	if len(ranked) == 0 {
		return verdict.Judge(e)
	}
	e.Best = ranked[0].Score
	e.Coverage = float64(bits.OnesCount64(ranked[0].Matched)) / float64(len(terms))
	for _, r := range ranked[1:] {
		e.Rivals = append(e.Rivals, r.Score)
	}
	e.Covered = len(ranked) > 1 && ranked[1].Matched&ranked[0].Matched == ranked[0].Matched
	return verdict.Rejudge(e, verdict.Judge(e), func() bool {
		a, b := ranked[0].Doc, ranked[1].Doc
		asked := append(append([]string{}, terms...), clue...)
		return apart != nil && apart(a, b) || words != nil && verdict.DistinctTerms(words(a), words(b), asked, tokenize.IsStopWord)
	})
}

func containsAny(ix *index.Index, d index.Doc, terms []string) bool {
	for _, t := range terms {
		if ix.Contains(d, t) {
			return true
		}
	}
	return false
}

// parse checks a query and a clue and reads their terms.
func parse(text, clue string) (terms, clueTerms []string, err error) {
	for _, f := range []struct{ name, s string }{{"query", text}, {"clue", clue}} {
		switch {
		case len(f.s) > maxQueryBytes:
			return nil, nil, fmt.Errorf("%w: the %s is %d bytes, at most %d", leaf.ErrInvalid, f.name, len(f.s), maxQueryBytes)
		case !utf8.ValidString(f.s):
			return nil, nil, fmt.Errorf("%w: the %s is not valid UTF-8", leaf.ErrInvalid, f.name)
		}
	}
	terms = tokenize.Terms(text)
	if len(terms) == 0 {
		return nil, nil, fmt.Errorf("%w: the query has no words to search for", leaf.ErrInvalid)
	}
	if len(terms) > index.MaxQueryTerms {
		return nil, nil, fmt.Errorf("%w: the query has %d distinct words, at most %d: keep the ones that matter", leaf.ErrInvalid, len(terms), index.MaxQueryTerms)
	}
	clueTerms = tokenize.Terms(clue)
	if len(clueTerms) > index.MaxQueryTerms {
		return nil, nil, fmt.Errorf("%w: the clue has %d distinct words, at most %d", leaf.ErrInvalid, len(clueTerms), index.MaxQueryTerms)
	}
	return terms, clueTerms, nil
}

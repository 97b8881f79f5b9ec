package store

import (
	"fmt"
	"math"
	"strings"
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

// The verdict policy: whether a ranking answers its query, and how
// confidently. It is a pure function of what the ranking knows (evidence)
// so that it can be read, tested and changed in one place; search.go only
// gathers the evidence and shows the hits the judgment names.
//
// The confidence blends how much of the query the best memory covers with
// how clearly it beats the runner-up.
const (
	coverageWeight = 0.6
	marginWeight   = 0.4
	minConfidence  = 0.45 // below this the best memory is not trusted alone
	nearTieGap     = 0.18 // relative score gap under which two memories tie
	exactTieGap    = 0.02 // under which the ranking cannot choose at all
	shortQuery     = 2    // informative terms at or under which a tie is ambiguous
	nearMissCover  = 1.0 / 3
	maxCandidates  = 5
)

// evidence is what the verdict policy knows of a ranking: scores and
// counts, nothing of the memories themselves.
type evidence struct {
	// Ranked counts the memories ranked; none means no visible memory
	// contains any of the query's terms.
	Ranked int
	// Best is the best memory's score; Rivals the scores of the memories
	// below it that are real alternatives (current ones), best first.
	Best   float64
	Rivals []float64
	// Coverage is the share of the query's terms the best memory contains.
	Coverage float64
	// QueryTerms counts the query's terms; Informative those of the query
	// and the clue together.
	QueryTerms, Informative int
	// Apart: the best memory and the first rival sit in different parts
	// of the tree (see Store.apart).
	Apart bool
	// Distinct: the best memory and the first rival, exactly tied, share
	// little beyond the query's words (see Store.distinct); asked only
	// when it decides the verdict (Store.judged).
	Distinct bool
}

// exactTie: two scores so close that the ranking has no preference.
func exactTie(best, rival float64) bool {
	return best > 0 && (best-rival)/best < exactTieGap
}

// distinctWords: two memories whose own words (beyond the query's) overlap
// in under a quarter of the shorter one's are about different things.
func distinctWords(shared, a, b int) bool {
	n := min(a, b)
	return n > 0 && 4*shared < n
}

// answerKind is which hits a judgment shows.
type answerKind int

const (
	answerNothing  answerKind = iota // no hit: nothing matched
	answerNearMiss                   // the best memory alone, for reference
	answerTie                        // the best memory and the rivals tied with it
	answerPartial                    // the best current memories, each matching part of the query
	answerFound                      // the ranking, up to the limit
)

// judgment is the verdict policy's decision on a ranking.
type judgment struct {
	verdict    Verdict
	confidence float64
	answer     answerKind
	// tied counts, for a tie, the rivals tied with the best memory: the
	// candidates are the best and Rivals[:tied].
	tied int
}

// judge is the verdict policy. A tie is ambiguous only when a clue could
// help: a short query, a weak best match, rivals in another part of the
// tree, or an exact tie between memories about different things (two
// people who both review pull requests); a long, confident query with a
// close runner-up, or with two wordings of one thing, is found.
func judge(e evidence) judgment {
	if e.Ranked == 0 {
		return judgment{verdict: NotFound, answer: answerNothing}
	}
	// The runner-up's margin: the best memory's lead over the first rival.
	margin := 1.0
	if len(e.Rivals) > 0 && e.Best > 0 {
		margin = (e.Best - e.Rivals[0]) / e.Best
	}
	j := judgment{confidence: math.Round((coverageWeight*e.Coverage+marginWeight*margin)*1000) / 1000}
	switch {
	case e.Coverage < nearMissCover && e.QueryTerms >= 3:
		j.verdict, j.answer = NotFound, answerNearMiss
	case len(e.Rivals) > 0 && margin < nearTieGap &&
		(e.Informative <= shortQuery || j.confidence < minConfidence || e.Apart || e.Distinct):
		j.verdict, j.answer = Ambiguous, answerTie
		for _, r := range e.Rivals {
			if 1+j.tied == maxCandidates || (e.Best-r)/e.Best >= nearTieGap {
				break
			}
			j.tied++
		}
	case j.confidence < minConfidence:
		j.verdict, j.answer = Ambiguous, answerPartial
	default:
		j.verdict, j.answer = Found, answerFound
	}
	return j
}

// message explains a judgment to a person or a model: desc is what the
// search could see, terms the query's words.
func (j judgment) message(desc string, terms []string) string {
	switch j.answer {
	case answerNothing:
		return fmt.Sprintf("No memory in %s contains any of: %s.", desc, strings.Join(terms, ", "))
	case answerNearMiss:
		return fmt.Sprintf("Nothing in %s matches the query well; the nearest memory shares only a few of its words (near miss, shown for reference).", desc)
	case answerTie:
		return fmt.Sprintf("%d memories match about equally.", 1+j.tied)
	case answerPartial:
		return "No memory matches the query clearly; these match part of it."
	}
	return fmt.Sprintf("Found in %s.", desc)
}

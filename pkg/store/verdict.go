package store

import (
	"fmt"
	"math"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
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
	nearTieGap     = 0.18 // relative score gap under which two memories tie
	apartTieGap    = 0.4  // the same, for two memories in different parts of the tree
	exactTieGap    = 0.02 // under which the ranking cannot choose at all
	shortQuery     = 1    // informative terms at or under which a near tie may be between different things
	maxCandidates  = 5
	strayCover     = 1.0 / 3 // the share of a query a stray match holds less of
)

// evidence is what the verdict policy knows of a ranking: scores and
// counts, and what the search learnt of the question and the best memory.
type evidence struct {
	// Ranked counts the memories ranked; none means no visible memory
	// contains any of the query's terms.
	Ranked int
	// Best is the best memory's score; Rivals the scores of the memories
	// below it that are real alternatives (current ones), best first.
	Best   float64
	Rivals []float64
	// Coverage is the share of the query's terms the best memory holds
	// (counted, not weighted: see Store.evidence).
	Coverage float64
	// QueryTerms counts the query's terms, Shared those the best memory
	// holds; Informative those of the query and the clue together.
	QueryTerms, Shared, Informative int
	// Topical: the best memory is about a concept the question asks about
	// (pkg/lexicon), so few shared words do not make it a near miss.
	Topical bool
	// Apart: the best memory and the first rival sit in different parts
	// of the tree (see Store.apart).
	Apart bool
	// Distinct: the best memory and the first rival, tied, share little
	// beyond the query's words (see Store.distinct); asked only when it
	// decides the verdict (Store.judged).
	Distinct bool
	// Covered: the first rival holds every query term the best memory
	// holds, so it answers the question as fully.
	Covered bool
	// Referents are the positions in the ranking of memories that mean
	// different people or things by a name the question gives (Marta Gil,
	// Marta Quintero): two or more make the question ambiguous.
	Referents []int
	// Events are the positions of memories telling of different
	// happenings in the period a question for a time names (events.go).
	Events []int
	// Late: the best memory is about a time after the period the question
	// names (Period names it); Elsewhere: it belongs to a project other
	// than the one the question names (Project).
	Late, Elsewhere bool
	Period, Project string
	// Unknown is a name the question asks about that no memory the caller
	// may see holds ("Kafka" in "which Kafka topic…"); Unseen, that some
	// word of the question is in none (asked only of a stray match).
	Unknown string
	Unseen  bool
	// Unowned is the thing the question asks of someone ("microchip
	// number of Yerba") when memories hold them but none the two together.
	Unowned string
	// Wanted is the kind of value the question asks for ("phone", "port":
	// pkg/lexicon's answer types), Held whether the best memory holds one.
	Wanted string
	Held   bool
}

// exactTie: two scores so close that the ranking has no preference.
func exactTie(best, rival float64) bool {
	return best > 0 && (best-rival)/best < exactTieGap
}

// nearTie: two scores so close that either could be the answer.
func nearTie(best, rival float64) bool {
	return best > 0 && (best-rival)/best < nearTieGap
}

// distinctTerms reports whether two texts' terms, beyond those asked,
// have too little in common to be about one thing (distinctWords).
func distinctTerms(a, b, asked []string) bool {
	skip := map[string]bool{}
	for _, t := range asked {
		skip[t] = true
	}
	own := func(ts []string) map[string]bool {
		out := map[string]bool{}
		for _, t := range ts {
			if !skip[t] && !tokenize.IsStopWord(t) {
				out[t] = true
			}
		}
		return out
	}
	oa, ob := own(a), own(b)
	shared := 0
	for t := range oa {
		if ob[t] {
			shared++
		}
	}
	return distinctWords(shared, len(oa), len(ob))
}

// distinctWords: two memories whose own words (beyond the query's) overlap
// in under half of the shorter one's are about different things ("owns
// the payment gateway", "owns the billing service"); two wordings of one
// thing share most of theirs.
func distinctWords(shared, a, b int) bool {
	n := min(a, b)
	return n > 0 && 2*shared < n
}

// strayMatch: the best memory holds one word, at most, and under a third
// of a question of several, and is about no concept the question asks
// about. Such a match is a near miss only when much of the question is in
// no memory (Store.unseen: "stadium tickets for the kubernetes cluster in
// Sevilla"): what it asks about was never stored. Otherwise the answer is
// there in other words (a conversation rarely repeats the question's), and
// two words in common ("Go" and "tests" of "which assertion library may I
// use in Go unit tests?") are no stray.
func strayMatch(e evidence) bool {
	return e.Shared <= 1 && e.Coverage < strayCover && e.QueryTerms >= 3 && !e.Topical
}

// answerKind is which hits a judgment shows.
type answerKind int

const (
	answerNothing   answerKind = iota // no hit: nothing matched
	answerNearMiss                    // the best memory alone, for reference
	answerTie                         // the best memory and the rivals tied with it
	answerFound                       // the ranking, up to the limit
	answerReferents                   // one memory for each referent of a name
	answerEvents                      // one memory for each happening in the period asked
)

// judgment is the verdict policy's decision on a ranking.
type judgment struct {
	verdict    Verdict
	confidence float64
	answer     answerKind
	// tied counts, for a tie, the rivals tied with the best memory: the
	// candidates are the best and Rivals[:tied].
	tied int
	// missing, for a near miss, says what no memory holds.
	missing string
	// at are the positions in the ranking of the referents or happenings
	// a clue request shows.
	at []int
	// parts: the referents at are of one thing in different parts of the
	// store (partsShown), not of a name.
	parts bool
	// decided names the case that decided: the signal whose evidence did
	// (signals.go), "tie", "found" or "nothing".
	decided string
}

// judge is the verdict policy. Not found means the question's subject or
// the kind of value it wants is not there: a name no memory holds, a
// phone number asked of memories that hold none, or so little of the
// question's weight that the best memory is a stray match. A tie is
// ambiguous only between different referents — memories in different
// parts of the tree, or saying different things beyond the question's
// words — never between two versions of one thing, which the timeline has
// already ordered.
func judge(e evidence) judgment {
	if e.Ranked == 0 {
		return judgment{verdict: NotFound, answer: answerNothing, decided: "nothing"}
	}
	// The runner-up's margin: the best memory's lead over the first rival.
	margin := 1.0
	if len(e.Rivals) > 0 && e.Best > 0 {
		margin = (e.Best - e.Rivals[0]) / e.Best
	}
	j := judgment{confidence: math.Round((coverageWeight*e.Coverage+marginWeight*margin)*1000) / 1000}
	switch {
	case e.Unknown != "":
		j.verdict, j.answer, j.missing, j.decided = NotFound, answerNearMiss, e.Unknown, "unknown_name"
	case e.Unowned != "":
		j.verdict, j.answer, j.missing, j.decided = NotFound, answerNearMiss, e.Unowned, "unowned"
	case e.Late:
		j.verdict, j.answer, j.missing, j.decided = NotFound, answerNearMiss, "anything from "+e.Period, "late_period"
	case e.Elsewhere:
		j.verdict, j.answer, j.missing, j.decided = NotFound, answerNearMiss, "an answer about "+e.Project, "other_project"
	case e.Wanted != "" && !e.Held:
		j.verdict, j.answer, j.missing, j.decided = NotFound, answerNearMiss, "a "+strings.ReplaceAll(e.Wanted, "_", " "), "wanted_value"
	case strayMatch(e) && e.Unseen:
		j.verdict, j.answer, j.decided = NotFound, answerNearMiss, "stray"
	case len(e.Referents) >= 2:
		j.verdict, j.answer, j.at, j.decided = Ambiguous, answerReferents, e.Referents, "referents"
	case len(e.Events) >= 2:
		j.verdict, j.answer, j.at, j.decided = Ambiguous, answerEvents, e.Events, "events"
	case len(e.Rivals) > 0 && e.Covered && (margin < nearTieGap && e.Distinct || margin < apartTieGap && e.Apart):
		j.verdict, j.answer, j.decided = Ambiguous, answerTie, "distinct"
		tieGap := nearTieGap
		if e.Apart {
			tieGap, j.decided = apartTieGap, "apart"
		}
		for _, r := range e.Rivals {
			if 1+j.tied == maxCandidates || (e.Best-r)/e.Best >= tieGap {
				break
			}
			j.tied++
		}
	default:
		j.verdict, j.answer, j.decided = Found, answerFound, "found"
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
		if j.missing != "" {
			return fmt.Sprintf("Nothing in %s holds %s; the nearest memory is shown for reference (near miss, not an answer).", desc, j.missing)
		}
		return fmt.Sprintf("Nothing in %s matches the query well; the nearest memory shares only a few of its words (near miss, shown for reference).", desc)
	case answerTie:
		return fmt.Sprintf("%d memories match about equally.", 1+j.tied)
	case answerReferents:
		if j.parts {
			return "What the question asks about is in more than one part of the memory (projects, or personal and a project's): these memories are one of each; say which."
		}
		return "The question's name fits more than one person or thing: these memories mean different ones."
	case answerEvents:
		return "More than one memory tells of such a thing in that period, on different days: say which one."
	}
	return fmt.Sprintf("Found in %s.", desc)
}

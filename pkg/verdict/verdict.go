// Package verdict is the one policy that decides whether a ranking answers
// its question: found, ambiguous (a clue is needed to choose) or an honest
// not_found. It is a pure function of what the ranking knows (Evidence), so
// it can be read, tested and changed in one place. The long-term store's
// search, a session's scratch notes and a project's code index all judge
// by it, so an agent reads every verdict the same way.
//
// It imports nothing of the engine: the callers gather the evidence.
package verdict

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

// How a clue re-weighs a ranking: a hit that also matches the clue rises,
// the rest sink. A clue always breaks a tie: ClueBoost/ClueDemote exceeds
// 1/(1-NearTieGap), so a tied rival that lacks the clue falls out of the
// tie (TestClueBreaksTie).
const (
	ClueBoost  = 1.6
	ClueDemote = 0.7
)

// Pool is how many hits a ranking considers for the clue and for ties.
const Pool = 50

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
	// NearTieGap is the relative score gap under which two memories tie;
	// ApartTieGap the same for two in different parts of the store;
	// ExactTieGap the gap under which the ranking cannot choose at all.
	// ExactTieGap < NearTieGap < ApartTieGap.
	NearTieGap  = 0.18
	ApartTieGap = 0.4
	ExactTieGap = 0.02
	// ShortQuery is the most informative terms a query may have for a
	// near tie to be asked whether it is between different things.
	ShortQuery = 1
	// MaxCandidates bounds the candidates of a clue request.
	MaxCandidates = 5
	strayCover    = 1.0 / 3 // the share of a query a stray match holds less of
)

// Evidence is what the verdict policy knows of a ranking: scores and
// counts, and what the search learnt of the question and the best memory.
type Evidence struct {
	// Ranked counts the memories ranked; none means no visible memory
	// contains any of the query's terms.
	Ranked int
	// Best is the best memory's score; Rivals the scores of the memories
	// below it that are real alternatives (current ones), best first.
	Best   float64
	Rivals []float64
	// Coverage is the share of the query's terms the best memory holds
	// (counted, not weighted: in a small store every unseen word has a huge
	// IDF, and one missing synonym would then read as a stray match).
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

// ExactTie reports two scores so close that the ranking has no preference.
func ExactTie(best, rival float64) bool {
	return best > 0 && (best-rival)/best < ExactTieGap
}

// NearTie reports two scores so close that either could be the answer.
func NearTie(best, rival float64) bool {
	return best > 0 && (best-rival)/best < NearTieGap
}

// DistinctTerms reports whether two texts' terms, beyond those asked and
// the stop words, have too little in common to be about one thing
// (distinctWords).
func DistinctTerms(a, b, asked []string, stop func(string) bool) bool {
	skip := map[string]bool{}
	for _, t := range asked {
		skip[t] = true
	}
	own := func(ts []string) map[string]bool {
		out := map[string]bool{}
		for _, t := range ts {
			if !skip[t] && !stop(t) {
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

// StrayMatch: the best memory holds one word, at most, and under a third
// of a question of several, and is about no concept the question asks
// about. Such a match is a near miss only when much of the question is in
// no memory (Store.unseen: "stadium tickets for the kubernetes cluster in
// Sevilla"): what it asks about was never stored. Otherwise the answer is
// there in other words (a conversation rarely repeats the question's), and
// two words in common ("Go" and "tests" of "which assertion library may I
// use in Go unit tests?") are no stray.
func StrayMatch(e Evidence) bool {
	return e.Shared <= 1 && e.Coverage < strayCover && e.QueryTerms >= 3 && !e.Topical
}

// Answer is which hits a judgment shows.
type Answer int

const (
	Nothing   Answer = iota // no hit: nothing matched
	NearMiss                // the best memory alone, for reference
	Tie                     // the best memory and the rivals tied with it
	Ranking                 // the ranking, up to the limit
	Referents               // one memory for each referent of a name
	Events                  // one memory for each happening in the period asked
)

// Judgment is the verdict policy's decision on a ranking.
type Judgment struct {
	Verdict    Verdict
	Confidence float64
	Answer     Answer
	// Tied counts, for a tie, the rivals tied with the best memory: the
	// candidates are the best and Rivals[:Tied].
	Tied int
	// Missing, for a near miss, says what no memory holds.
	Missing string
	// At are the positions in the ranking of the referents or happenings
	// a clue request shows.
	At []int
	// Parts: the referents At are of one thing in different parts of the
	// store, not of a name.
	Parts bool
	// Decided names the case that decided: the retrieval signal whose
	// evidence did, "distinct" or "apart" for a tie, "found" or "nothing".
	Decided string
}

// Judge is the verdict policy. Not found means the question's subject or
// the kind of value it wants is not there: a name no memory holds, a
// phone number asked of memories that hold none, or so little of the
// question's weight that the best memory is a stray match. A tie is
// ambiguous only between different referents — memories in different
// parts of the tree, or saying different things beyond the question's
// words — never between two versions of one thing, which the timeline has
// already ordered.
func Judge(e Evidence) Judgment {
	if e.Ranked == 0 {
		return Judgment{Verdict: NotFound, Answer: Nothing, Decided: "nothing"}
	}
	// The runner-up's margin: the best memory's lead over the first rival.
	margin := 1.0
	if len(e.Rivals) > 0 && e.Best > 0 {
		margin = (e.Best - e.Rivals[0]) / e.Best
	}
	j := Judgment{Confidence: math.Round((coverageWeight*e.Coverage+marginWeight*margin)*1000) / 1000}
	switch {
	case e.Unknown != "":
		j.Verdict, j.Answer, j.Missing, j.Decided = NotFound, NearMiss, e.Unknown, "unknown_name"
	case e.Unowned != "":
		j.Verdict, j.Answer, j.Missing, j.Decided = NotFound, NearMiss, e.Unowned, "unowned"
	case e.Late:
		j.Verdict, j.Answer, j.Missing, j.Decided = NotFound, NearMiss, "anything from "+e.Period, "late_period"
	case e.Elsewhere:
		j.Verdict, j.Answer, j.Missing, j.Decided = NotFound, NearMiss, "an answer about "+e.Project, "other_project"
	case e.Wanted != "" && !e.Held:
		j.Verdict, j.Answer, j.Missing, j.Decided = NotFound, NearMiss, "a "+strings.ReplaceAll(e.Wanted, "_", " "), "wanted_value"
	case StrayMatch(e) && e.Unseen:
		j.Verdict, j.Answer, j.Decided = NotFound, NearMiss, "stray"
	case len(e.Referents) >= 2:
		j.Verdict, j.Answer, j.At, j.Decided = Ambiguous, Referents, e.Referents, "referents"
	case len(e.Events) >= 2:
		j.Verdict, j.Answer, j.At, j.Decided = Ambiguous, Events, e.Events, "events"
	case len(e.Rivals) > 0 && e.Covered && (margin < NearTieGap && e.Distinct || margin < ApartTieGap && e.Apart):
		j.Verdict, j.Answer, j.Decided = Ambiguous, Tie, "distinct"
		tieGap := NearTieGap
		if e.Apart {
			tieGap, j.Decided = ApartTieGap, "apart"
		}
		for _, r := range e.Rivals {
			if 1+j.Tied == MaxCandidates || (e.Best-r)/e.Best >= tieGap {
				break
			}
			j.Tied++
		}
	default:
		j.Verdict, j.Answer, j.Decided = Found, Ranking, "found"
	}
	return j
}

// Things names what a ranking ranks, for the verdict's wording: a search
// of memories, of a session's notes or of a project's symbols says the
// same things about its own.
type Things struct{ One, Many string }

// What the rankings that judge by this policy rank.
var (
	Memories = Things{"memory", "memories"}
	Notes    = Things{"note", "notes"}
	Symbols  = Things{"symbol", "symbols"}
)

// Message explains a judgment to a person or a model: where is what the
// search could see ("global + project x"), terms the query's words.
func (j Judgment) Message(of Things, where string, terms []string) string {
	switch j.Answer {
	case Nothing:
		return fmt.Sprintf("No %s in %s contains any of: %s.", of.One, where, strings.Join(terms, ", "))
	case NearMiss:
		if j.Missing != "" {
			return fmt.Sprintf("Nothing in %s holds %s; the nearest %s is shown for reference (near miss, not an answer).", where, j.Missing, of.One)
		}
		return fmt.Sprintf("Nothing in %s matches the query well; the nearest %s shares only a few of its words (near miss, shown for reference).", where, of.One)
	case Tie:
		return fmt.Sprintf("%d %s match about equally.", 1+j.Tied, of.Many)
	case Referents:
		if j.Parts {
			return "What the question asks about is in more than one part of the memory (projects, or personal and a project's): these memories are one of each; say which."
		}
		return fmt.Sprintf("The question's name fits more than one person or thing: these %s mean different ones.", of.Many)
	case Events:
		return fmt.Sprintf("More than one %s tells of such a thing in that period, on different days: say which one.", of.One)
	}
	return fmt.Sprintf("Found in %s.", where)
}

// Rejudge asks whether a found answer over a tie is really between two
// different things — an exact tie, or a near one of a short query — and
// judges again with the answer: the question's name may fit two people
// ("Luis": the cousin or the reviewer?). distinct is asked only then,
// since answering it may read texts.
func Rejudge(e Evidence, j Judgment, distinct func() bool) Judgment {
	if j.Verdict != Found || len(e.Rivals) == 0 {
		return j
	}
	if !ExactTie(e.Best, e.Rivals[0]) && (e.Informative > ShortQuery || !NearTie(e.Best, e.Rivals[0])) {
		return j
	}
	e.Distinct = distinct()
	return Judge(e)
}

// Pairs is the evidence as a search's trace shows it: what is set, as
// name=value, named as the retrieval signals that gather it are.
func (e Evidence) Pairs() []string {
	out := []string{fmt.Sprintf("ranked=%d", e.Ranked)}
	if e.Ranked == 0 {
		return out
	}
	out = append(out, fmt.Sprintf("best=%.3f", e.Best), fmt.Sprintf("coverage=%.2f", e.Coverage), fmt.Sprintf("shared=%d/%d", e.Shared, e.QueryTerms))
	if len(e.Rivals) > 0 {
		out = append(out, fmt.Sprintf("rival=%.3f", e.Rivals[0]))
	}
	for _, f := range []struct {
		name string
		on   bool
		val  string
	}{
		{"topical", e.Topical, ""}, {"covered", e.Covered, ""}, {"distinct", e.Distinct, ""}, {"apart", e.Apart, ""},
		{"unknown_name", e.Unknown != "", e.Unknown}, {"unowned", e.Unowned != "", e.Unowned},
		{"late_period", e.Late, e.Period}, {"other_project", e.Elsewhere, e.Project},
		{"wanted_value", e.Wanted != "", fmt.Sprintf("%s held=%v", e.Wanted, e.Held)},
		{"stray", e.Unseen, ""},
		{"referents", len(e.Referents) > 0, fmt.Sprint(len(e.Referents))}, {"events", len(e.Events) > 0, fmt.Sprint(len(e.Events))},
	} {
		switch {
		case f.on && f.val != "":
			out = append(out, f.name+"="+f.val)
		case f.on:
			out = append(out, f.name)
		}
	}
	return out
}

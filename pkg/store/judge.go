package store

// The verdict policy, for rankings made outside the store: the session's
// scratch notes and a project's code index answer found, ambiguous or
// not_found by the same rules as a search of memories, so an agent reads
// every verdict the same way. This file only exposes judge (verdict.go);
// the policy itself stays there.

// ClueBoost and ClueDemote are how a clue re-weighs a ranking: a hit that
// also matches the clue rises, the rest sink.
const (
	ClueBoost  = clueBoost
	ClueDemote = clueDemote
)

// Evidence is what the verdict knows of a ranking (see evidence): no
// summary tree stands behind an outside ranking, so nothing is ever apart;
// the caller says, as Distinct, that two tied hits are different things.
type Evidence struct {
	Ranked                  int
	Best                    float64
	Rivals                  []float64
	Coverage                float64
	QueryTerms, Informative int
	// Distinct: the best hit and the first rival, tied, share little
	// beyond the query's words (see DistinctWords); Covered: the rival
	// holds every query term the best holds.
	Distinct, Covered bool
}

// Judgment is the verdict on a ranking. NearMiss says a not_found still
// shows its best hit, for reference; Tied counts the rivals tied with the
// best.
type Judgment struct {
	Verdict    Verdict
	Confidence float64
	NearMiss   bool
	Tied       int
}

// Judge applies the verdict policy to a ranking.
func Judge(e Evidence) Judgment {
	j := judge(evidence{
		Ranked: e.Ranked, Best: e.Best, Rivals: e.Rivals, Coverage: e.Coverage,
		QueryTerms: e.QueryTerms, Informative: e.Informative, Distinct: e.Distinct, Covered: e.Covered,
	})
	return Judgment{Verdict: j.verdict, Confidence: j.confidence, Tied: j.tied, NearMiss: j.answer == answerNearMiss}
}

// ExactTie reports two scores the ranking cannot choose between; only
// then, or at a near tie (NearTie) of a query of a word or two
// (ShortQuery informative terms), does Distinct matter.
func ExactTie(best, rival float64) bool { return exactTie(best, rival) }

// NearTie reports two scores so close that either could be the answer.
func NearTie(best, rival float64) bool { return nearTie(best, rival) }

// ShortQuery is the most informative terms a query may have for a near tie
// to be asked whether it is between different things.
const ShortQuery = shortQuery

// DistinctTerms reports two texts, by their terms, about different things:
// beyond the terms asked, they have too little in common.
func DistinctTerms(a, b, asked []string) bool { return distinctTerms(a, b, asked) }

package verdict

import (
	"strings"
	"testing"
)

// TestJudge is the verdict policy's table: each case is what a ranking
// knows, and the verdict, confidence, hits and message it earns.
func TestJudge(t *testing.T) {
	tests := []struct {
		name    string
		e       Evidence
		verdict Verdict
		conf    float64
		answer  Answer
		tied    int
		message string
	}{
		{name: "nothing ranked", e: Evidence{},
			verdict: NotFound, conf: 0, answer: Nothing, message: "No memory in global contains any of: a, b."},
		{name: "alone and covering the query",
			e:       Evidence{Ranked: 1, Best: 3, Coverage: 1, QueryTerms: 2, Informative: 2},
			verdict: Found, conf: 1, answer: Ranking, message: "Found in global."},
		{name: "a clear lead over its rival",
			e:       Evidence{Ranked: 2, Best: 4, Rivals: []float64{2}, Coverage: 1, QueryTerms: 3, Informative: 3},
			verdict: Found, conf: 0.8, answer: Ranking},
		{name: "a stray word of a long query with a word no memory holds is a near miss",
			e:       Evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 4, Informative: 4, Unseen: true},
			verdict: NotFound, conf: 0.55, answer: NearMiss, message: "Nothing in global matches the query well; the nearest memory shares only a few of its words (near miss, shown for reference)."},
		{name: "a stray word of a long query whose words are all stored is an answer in other words",
			e:       Evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 4, Informative: 4},
			verdict: Found, conf: 0.55, answer: Ranking},
		{name: "two words of a long query, however many are in no memory, are no stray",
			e:       Evidence{Ranked: 1, Best: 1, Coverage: 2.0 / 7, QueryTerms: 7, Shared: 2, Informative: 7, Unseen: true},
			verdict: Found, conf: 0.571, answer: Ranking},
		{name: "a stray word of a two-word query is not",
			e:       Evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 2, Informative: 2, Unseen: true},
			verdict: Found, conf: 0.55, answer: Ranking},
		{name: "a short query's near tie between two wordings of one thing",
			e:       Evidence{Ranked: 3, Best: 2, Rivals: []float64{1.9, 1.0}, Coverage: 1, QueryTerms: 1, Informative: 1},
			verdict: Found, conf: 0.62, answer: Ranking},
		{name: "a short query's near tie between different things",
			e:       Evidence{Ranked: 3, Best: 2, Rivals: []float64{1.9, 1.0}, Coverage: 1, QueryTerms: 1, Informative: 1, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.62, answer: Tie, tied: 1, message: "2 memories match about equally."},
		{name: "a clue makes a query long enough to choose",
			e:       Evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 1, QueryTerms: 2, Informative: 3},
			verdict: Found, conf: 0.62, answer: Ranking},
		{name: "a long query's exact tie between different things",
			e:       Evidence{Ranked: 3, Best: 1.43, Rivals: []float64{1.43, 0.5}, Coverage: 1, QueryTerms: 3, Informative: 3, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.6, answer: Tie, tied: 1},
		{name: "a long query's exact tie between two wordings of one thing",
			e:       Evidence{Ranked: 3, Best: 1.43, Rivals: []float64{1.43, 0.5}, Coverage: 1, QueryTerms: 3, Informative: 3},
			verdict: Found, conf: 0.6, answer: Ranking},
		{name: "a long query's near tie between topics",
			e:       Evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 1, QueryTerms: 4, Informative: 4, Apart: true, Covered: true},
			verdict: Ambiguous, conf: 0.62, answer: Tie, tied: 1},
		{name: "a near tie between topics where the rival answers less is found",
			e:       Evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 1, QueryTerms: 4, Informative: 4, Apart: true},
			verdict: Found, conf: 0.62, answer: Ranking},
		{name: "two referents of one name",
			e:       Evidence{Ranked: 3, Best: 2, Rivals: []float64{1, 0.5}, Coverage: 1, QueryTerms: 2, Informative: 2, Referents: []int{0, 2}},
			verdict: Ambiguous, conf: 0.8, answer: Referents},
		{name: "a memory from after the period asked about",
			e:       Evidence{Ranked: 1, Best: 2, Coverage: 1, QueryTerms: 3, Informative: 3, Late: true, Period: "June 2024"},
			verdict: NotFound, conf: 1, answer: NearMiss, message: "Nothing in global holds anything from June 2024; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "a memory of another project than the one asked about",
			e:       Evidence{Ranked: 1, Best: 2, Coverage: 1, QueryTerms: 3, Informative: 3, Elsewhere: true, Project: "switchyard"},
			verdict: NotFound, conf: 1, answer: NearMiss, message: "Nothing in global holds an answer about switchyard; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "a weak near tie of one thing is found",
			e:       Evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 0.5, QueryTerms: 2, Informative: 3},
			verdict: Found, conf: 0.32, answer: Ranking},
		{name: "the tie stops at the first clear gap",
			e:       Evidence{Ranked: 4, Best: 10, Rivals: []float64{9.9, 9, 8, 7.9}, Coverage: 1, QueryTerms: 1, Informative: 1, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.604, answer: Tie, tied: 2},
		{name: "at most five candidates",
			e:       Evidence{Ranked: 8, Best: 10, Rivals: []float64{10, 10, 10, 10, 10, 10, 10}, Coverage: 1, QueryTerms: 1, Informative: 1, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.6, answer: Tie, tied: MaxCandidates - 1, message: "5 memories match about equally."},
		{name: "weak but clear of its rival",
			e:       Evidence{Ranked: 2, Best: 2, Rivals: []float64{1.5}, Coverage: 0.5, QueryTerms: 2, Informative: 2},
			verdict: Found, conf: 0.4, answer: Ranking},
		{name: "a name no memory holds",
			e:       Evidence{Ranked: 2, Best: 2, Rivals: []float64{1.5}, Coverage: 0.5, QueryTerms: 3, Informative: 3, Unknown: "Kafka"},
			verdict: NotFound, conf: 0.4, answer: NearMiss, message: "Nothing in global holds Kafka; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "a kind of value the best memory does not hold",
			e:       Evidence{Ranked: 1, Best: 2, Coverage: 0.5, QueryTerms: 3, Informative: 3, Wanted: "phone"},
			verdict: NotFound, conf: 0.7, answer: NearMiss, message: "Nothing in global holds a phone; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "the same kind of value held (positive control)",
			e:       Evidence{Ranked: 1, Best: 2, Coverage: 0.5, QueryTerms: 3, Informative: 3, Wanted: "phone", Held: true},
			verdict: Found, conf: 0.7, answer: Ranking},
		{name: "few shared words about the concept asked is no near miss",
			e:       Evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 4, Informative: 4, Topical: true, Unseen: true},
			verdict: Found, conf: 0.55, answer: Ranking},
		{name: "a zero score has no margin to lose",
			e:       Evidence{Ranked: 2, Best: 0, Rivals: []float64{0}, Coverage: 1, QueryTerms: 1, Informative: 1},
			verdict: Found, conf: 1, answer: Ranking},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Judge(tt.e)
			if j.Verdict != tt.verdict || j.Confidence != tt.conf || j.Answer != tt.answer || j.Tied != tt.tied {
				t.Errorf("judge(%+v) = %+v, want verdict %v, confidence %v, answer %v, tied %d", tt.e, j, tt.verdict, tt.conf, tt.answer, tt.tied)
			}
			if tt.message != "" {
				if got := j.Message(Memories, "global", []string{"a", "b"}); got != tt.message {
					t.Errorf("message = %q, want %q", got, tt.message)
				}
			}
		})
	}
}

// TestConstantsRelate: the relations the policy rests on. A clue always
// breaks a tie (a rival that lacks it falls out of any tie with one that
// has it); an exact tie is a near tie, a near tie one across parts.
func TestConstantsRelate(t *testing.T) {
	for _, gap := range []float64{NearTieGap, ApartTieGap} {
		if ClueBoost/ClueDemote <= 1/(1-gap) {
			t.Errorf("a clue (×%.2f against ×%.2f) does not break a tie within %.2f", ClueBoost, ClueDemote, gap)
		}
	}
	if !(ExactTieGap < NearTieGap && NearTieGap < ApartTieGap) {
		t.Errorf("tie gaps out of order: exact %.2f, near %.2f, apart %.2f", ExactTieGap, NearTieGap, ApartTieGap)
	}
	if MaxCandidates < 2 || Pool < MaxCandidates {
		t.Errorf("MaxCandidates %d, Pool %d: a clue request needs two candidates and a pool to find them in", MaxCandidates, Pool)
	}
}

// TestRejudge: a found answer over an exact tie is asked whether the two
// are different things, and becomes a clue request when they are; a clear
// lead is never asked (its control).
func TestRejudge(t *testing.T) {
	tie := Evidence{Ranked: 2, Best: 2, Rivals: []float64{2}, Coverage: 1, QueryTerms: 2, Informative: 2, Covered: true}
	asked := false
	j := Rejudge(tie, Judge(tie), func() bool { asked = true; return true })
	if !asked || j.Verdict != Ambiguous {
		t.Fatalf("an exact tie between different things: asked %v, verdict %v; want asked and ambiguous", asked, j.Verdict)
	}
	lead := tie
	lead.Rivals = []float64{1}
	asked = false
	if j := Rejudge(lead, Judge(lead), func() bool { asked = true; return true }); asked || j.Verdict != Found {
		t.Fatalf("a clear lead: asked %v, verdict %v; want found without asking", asked, j.Verdict)
	}
}

// TestDistinctTerms: words beyond the question's, shared in under half of
// the shorter text's, make two texts different things.
func TestDistinctTerms(t *testing.T) {
	stop := func(w string) bool { return w == "the" }
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"marta owns the payment gateway", "marta owns the billing service", true},
		{"marta owns the payment gateway", "marta owns the payment gateway now", false},
	} {
		if got := DistinctTerms(strings.Fields(c.a), strings.Fields(c.b), []string{"marta", "owns"}, stop); got != c.want {
			t.Errorf("%q vs %q: distinct %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

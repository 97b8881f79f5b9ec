package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestJudge is the verdict policy's table: each case is what a ranking
// knows, and the verdict, confidence, hits and message it earns.
func TestJudge(t *testing.T) {
	tests := []struct {
		name    string
		e       evidence
		verdict Verdict
		conf    float64
		answer  answerKind
		tied    int
		message string
	}{
		{name: "nothing ranked", e: evidence{},
			verdict: NotFound, conf: 0, answer: answerNothing, message: "No memory in global contains any of: a, b."},
		{name: "alone and covering the query",
			e:       evidence{Ranked: 1, Best: 3, Coverage: 1, QueryTerms: 2, Informative: 2},
			verdict: Found, conf: 1, answer: answerFound, message: "Found in global."},
		{name: "a clear lead over its rival",
			e:       evidence{Ranked: 2, Best: 4, Rivals: []float64{2}, Coverage: 1, QueryTerms: 3, Informative: 3},
			verdict: Found, conf: 0.8, answer: answerFound},
		{name: "a stray word of a long query with a word no memory holds is a near miss",
			e:       evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 4, Informative: 4, Unseen: true},
			verdict: NotFound, conf: 0.55, answer: answerNearMiss, message: "Nothing in global matches the query well; the nearest memory shares only a few of its words (near miss, shown for reference)."},
		{name: "a stray word of a long query whose words are all stored is an answer in other words",
			e:       evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 4, Informative: 4},
			verdict: Found, conf: 0.55, answer: answerFound},
		{name: "two words of a long query, however many are in no memory, are no stray",
			e:       evidence{Ranked: 1, Best: 1, Coverage: 2.0 / 7, QueryTerms: 7, Shared: 2, Informative: 7, Unseen: true},
			verdict: Found, conf: 0.571, answer: answerFound},
		{name: "a stray word of a two-word query is not",
			e:       evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 2, Informative: 2, Unseen: true},
			verdict: Found, conf: 0.55, answer: answerFound},
		{name: "a short query's near tie between two wordings of one thing",
			e:       evidence{Ranked: 3, Best: 2, Rivals: []float64{1.9, 1.0}, Coverage: 1, QueryTerms: 1, Informative: 1},
			verdict: Found, conf: 0.62, answer: answerFound},
		{name: "a short query's near tie between different things",
			e:       evidence{Ranked: 3, Best: 2, Rivals: []float64{1.9, 1.0}, Coverage: 1, QueryTerms: 1, Informative: 1, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.62, answer: answerTie, tied: 1, message: "2 memories match about equally."},
		{name: "a clue makes a query long enough to choose",
			e:       evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 1, QueryTerms: 2, Informative: 3},
			verdict: Found, conf: 0.62, answer: answerFound},
		{name: "a long query's exact tie between different things",
			e:       evidence{Ranked: 3, Best: 1.43, Rivals: []float64{1.43, 0.5}, Coverage: 1, QueryTerms: 3, Informative: 3, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.6, answer: answerTie, tied: 1},
		{name: "a long query's exact tie between two wordings of one thing",
			e:       evidence{Ranked: 3, Best: 1.43, Rivals: []float64{1.43, 0.5}, Coverage: 1, QueryTerms: 3, Informative: 3},
			verdict: Found, conf: 0.6, answer: answerFound},
		{name: "a long query's near tie between topics",
			e:       evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 1, QueryTerms: 4, Informative: 4, Apart: true, Covered: true},
			verdict: Ambiguous, conf: 0.62, answer: answerTie, tied: 1},
		{name: "a near tie between topics where the rival answers less is found",
			e:       evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 1, QueryTerms: 4, Informative: 4, Apart: true},
			verdict: Found, conf: 0.62, answer: answerFound},
		{name: "two referents of one name",
			e:       evidence{Ranked: 3, Best: 2, Rivals: []float64{1, 0.5}, Coverage: 1, QueryTerms: 2, Informative: 2, Referents: []int{0, 2}},
			verdict: Ambiguous, conf: 0.8, answer: answerReferents},
		{name: "a memory from after the period asked about",
			e:       evidence{Ranked: 1, Best: 2, Coverage: 1, QueryTerms: 3, Informative: 3, Late: true, Period: "June 2024"},
			verdict: NotFound, conf: 1, answer: answerNearMiss, message: "Nothing in global holds anything from June 2024; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "a memory of another project than the one asked about",
			e:       evidence{Ranked: 1, Best: 2, Coverage: 1, QueryTerms: 3, Informative: 3, Elsewhere: true, Project: "switchyard"},
			verdict: NotFound, conf: 1, answer: answerNearMiss, message: "Nothing in global holds an answer about switchyard; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "a weak near tie of one thing is found",
			e:       evidence{Ranked: 2, Best: 2, Rivals: []float64{1.9}, Coverage: 0.5, QueryTerms: 2, Informative: 3},
			verdict: Found, conf: 0.32, answer: answerFound},
		{name: "the tie stops at the first clear gap",
			e:       evidence{Ranked: 4, Best: 10, Rivals: []float64{9.9, 9, 8, 7.9}, Coverage: 1, QueryTerms: 1, Informative: 1, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.604, answer: answerTie, tied: 2},
		{name: "at most five candidates",
			e:       evidence{Ranked: 8, Best: 10, Rivals: []float64{10, 10, 10, 10, 10, 10, 10}, Coverage: 1, QueryTerms: 1, Informative: 1, Distinct: true, Covered: true},
			verdict: Ambiguous, conf: 0.6, answer: answerTie, tied: maxCandidates - 1, message: "5 memories match about equally."},
		{name: "weak but clear of its rival",
			e:       evidence{Ranked: 2, Best: 2, Rivals: []float64{1.5}, Coverage: 0.5, QueryTerms: 2, Informative: 2},
			verdict: Found, conf: 0.4, answer: answerFound},
		{name: "a name no memory holds",
			e:       evidence{Ranked: 2, Best: 2, Rivals: []float64{1.5}, Coverage: 0.5, QueryTerms: 3, Informative: 3, Unknown: "Kafka"},
			verdict: NotFound, conf: 0.4, answer: answerNearMiss, message: "Nothing in global holds Kafka; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "a kind of value the best memory does not hold",
			e:       evidence{Ranked: 1, Best: 2, Coverage: 0.5, QueryTerms: 3, Informative: 3, Wanted: "phone"},
			verdict: NotFound, conf: 0.7, answer: answerNearMiss, message: "Nothing in global holds a phone; the nearest memory is shown for reference (near miss, not an answer)."},
		{name: "the same kind of value held (positive control)",
			e:       evidence{Ranked: 1, Best: 2, Coverage: 0.5, QueryTerms: 3, Informative: 3, Wanted: "phone", Held: true},
			verdict: Found, conf: 0.7, answer: answerFound},
		{name: "few shared words about the concept asked is no near miss",
			e:       evidence{Ranked: 1, Best: 1, Coverage: 0.25, QueryTerms: 4, Informative: 4, Topical: true, Unseen: true},
			verdict: Found, conf: 0.55, answer: answerFound},
		{name: "a zero score has no margin to lose",
			e:       evidence{Ranked: 2, Best: 0, Rivals: []float64{0}, Coverage: 1, QueryTerms: 1, Informative: 1},
			verdict: Found, conf: 1, answer: answerFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := judge(tt.e)
			if j.verdict != tt.verdict || j.confidence != tt.conf || j.answer != tt.answer || j.tied != tt.tied {
				t.Errorf("judge(%+v) = %+v, want verdict %v, confidence %v, answer %v, tied %d", tt.e, j, tt.verdict, tt.conf, tt.answer, tt.tied)
			}
			if tt.message != "" {
				if got := j.message("global", []string{"a", "b"}); got != tt.message {
					t.Errorf("message = %q, want %q", got, tt.message)
				}
			}
		})
	}
}

// TestSearchLimit: the store is where the limit's one rule lives — 0 means
// the default, 1 to 50 are taken as they are, anything else is refused
// with the same words as everywhere else.
func TestSearchLimit(t *testing.T) {
	s := open(t, t.TempDir())
	for i := range maxLimit + 5 {
		save(t, s, alice, fmt.Sprintf("Deploy note %d: the quokka service deploys on Tuesdays.", i), ScopeGlobal)
	}
	tests := []struct {
		limit int
		hits  int    // the ranking's length, when accepted
		err   string // else the refusal
	}{
		{limit: 0, hits: defaultLimit},
		{limit: 1, hits: 1},
		{limit: 7, hits: 7},
		{limit: maxLimit, hits: maxLimit},
		{limit: maxLimit + 1, err: "limit 51 is out of range: use 1 to 50"},
		{limit: 99, err: "limit 99 is out of range: use 1 to 50"},
		{limit: -1, err: "limit -1 is out of range: use 1 to 50"},
	}
	for _, tt := range tests {
		r, err := s.Evaluate(SearchInput{Caller: alice, Query: "quokka deploys", Limit: tt.limit}, EvalOptions{})
		switch {
		case tt.err != "":
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("limit %d: err = %v, want ErrInvalid saying %q", tt.limit, err, tt.err)
			}
		case err != nil:
			t.Errorf("limit %d: %v", tt.limit, err)
		case len(r.Ranked) != tt.hits:
			t.Errorf("limit %d: %d ranked, want %d", tt.limit, len(r.Ranked), tt.hits)
		}
	}
}

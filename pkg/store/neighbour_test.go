package store

import (
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// TestQuestionLendsToItsAnswer: memories saved one after another in one
// session lend each other words at index.NeighbourLink's weights, the
// answer to a question counting the question's words more than the
// question counts the answer's; the links are the same after a restart,
// and memories of different sessions lend nothing.
func TestQuestionLendsToItsAnswer(t *testing.T) {
	const (
		asked    = "Did you go to the concert in Lisbon last spring?"
		answered = "Yes! We danced until three in the morning."
	)
	other := alice
	other.Session = "elsewhere"
	fillers := []string{"The staging database runs PostgreSQL.", "My editor is Helix.", "Backups run nightly at two."}

	dir := t.TempDir()
	s := open(t, dir)
	for _, f := range fillers {
		save(t, s, other, f, ScopeGlobal)
	}
	q := save(t, s, alice, asked, ScopeGlobal).Leaf.ID
	a := save(t, s, alice, answered, ScopeGlobal).Leaf.ID
	before := lentScores(t, s, q, a)
	if before.answerForQuestion <= 0 || before.questionForAnswer <= 0 {
		t.Fatalf("scores %+v: want each memory found by the other's word", before)
	}
	if before.answerForQuestion <= before.questionForAnswer {
		t.Errorf("the answer scores %v for the question's word, the question %v for the answer's: want the answer higher",
			before.answerForQuestion, before.questionForAnswer)
	}
	s.Close()

	s = open(t, dir)
	if after := lentScores(t, s, q, a); after != before {
		t.Errorf("after a restart the lent scores are %+v, before %+v", after, before)
	}

	// The control: the same two in different sessions lend nothing.
	s2 := open(t, t.TempDir())
	q2 := save(t, s2, alice, asked, ScopeGlobal).Leaf.ID
	a2 := save(t, s2, other, answered, ScopeGlobal).Leaf.ID
	if apart := lentScores(t, s2, q2, a2); apart.answerForQuestion != 0 || apart.questionForAnswer != 0 {
		t.Errorf("memories of different sessions lent words: %+v", apart)
	}
}

type lent struct{ answerForQuestion, questionForAnswer float64 }

// lentScores returns what the answer scores for a word only the question
// holds ("concert"), and the question for a word only the answer holds
// ("danced"), both straight from the index.
func lentScores(t *testing.T, s *Store, question, answer string) lent {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	score := func(word, id string) float64 {
		hits, _ := s.ix.Search(index.Query{Terms: tokenize.Terms(word), Visible: func(index.Group) bool { return true }, Limit: 10})
		for _, h := range hits {
			if s.docs[h.Doc].ID == id {
				if h.Matched != 0 || h.Related == 0 {
					t.Errorf("%q in %s: matched %b, related %b, want a lent word only", word, id, h.Matched, h.Related)
				}
				return h.Score
			}
		}
		return 0
	}
	return lent{answerForQuestion: score("concert", answer), questionForAnswer: score("danced", question)}
}

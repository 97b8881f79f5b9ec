package store

import (
	"context"
	"testing"
)

// TestStrayMatch: a question of several words the best memory holds few
// of is a near miss when one of its words is in no memory (it asks about
// something never stored); when every word is stored somewhere, the
// answer is there in other words, and it is found.
func TestStrayMatch(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	for i, text := range []string{
		"Trufa is our dog, a four-year-old podenco.",
		"The dentist appointment is on Wednesday at 10:30.",
		"The next release ships when the changelog is done.",
		"Mateo loves walking Trufa in the park every evening.",
		"Climbing is my favourite sport.",
		"The activity feed shows every deploy.",
		"We enjoy the Friday demos.",
	} {
		c := alice
		c.Session = string(rune('a' + i))
		if _, err := s.Save(ctx, SaveInput{Caller: c, Content: text, Scope: ScopeGlobal}); err != nil {
			t.Fatal(err)
		}
	}
	r := find(t, s, SearchInput{Query: "When is Trufa's next vet appointment?", Scope: ScopeAll})
	if r.Verdict != NotFound {
		t.Errorf("a vet never stored: verdict %v (%s), want not found", r.Verdict, r.Message)
	}
	r = find(t, s, SearchInput{Query: "What favourite evening activity does Mateo enjoy with the podenco dog?", Scope: ScopeAll})
	if r.Verdict != Found {
		t.Errorf("every word stored somewhere: verdict %v (%s), want found", r.Verdict, r.Message)
	}
}

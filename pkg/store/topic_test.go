package store

import (
	"context"
	"testing"
)

// TestTopicalMemoryRises: a memory about what the question asks about (a
// message broker: the lexicon's queue concept) ranks above a shorter one
// that shares as many of its words; the positive control, a question
// about no concept, ranks by the words alone.
func TestTopicalMemoryRises(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	deploy := "The collector and the writers run in Nomad."
	broker := "We moved to RabbitMQ: the collector publishes and the writers consume."
	for i, text := range []string{deploy, broker, "The tracker keeps a cursor per stream.", "A batch buffer sits behind the disk."} {
		c := alice
		c.Session = string(rune('a' + i)) // alone in its session: nothing lent
		if _, err := s.Save(ctx, SaveInput{Caller: c, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ query, first string }{
		{"What message broker sits between the collector and the writers?", broker},
		{"Which Nomad job runs the collector and the writers?", deploy}, // positive control
	} {
		r := find(t, s, SearchInput{Query: tt.query})
		if len(r.Hits) == 0 || r.Hits[0].Leaf.Text != tt.first {
			t.Errorf("%q: want %q first", tt.query, tt.first)
		}
	}
}

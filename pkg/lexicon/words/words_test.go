package words

import (
	"strings"
	"testing"
)

// TestLists: every list has words, each lower-case and without spaces
// around it; an unknown list panics (the control: a known one does not).
func TestLists(t *testing.T) {
	if len(Names()) == 0 {
		t.Fatal("no lists")
	}
	for _, n := range Names() {
		ws := List(n)
		if len(ws) == 0 {
			t.Errorf("list %s is empty", n)
		}
		for _, w := range ws {
			if w != strings.ToLower(strings.TrimSpace(w)) || w == "" {
				t.Errorf("list %s: %q is not a lower-case word", n, w)
			}
		}
	}
	if !Set("articles")["the"] {
		t.Error("articles lacks the")
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown list did not panic")
		}
	}()
	List("no such list")
}

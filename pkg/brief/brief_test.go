package brief

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLay: sections in order under their headings, whole lines only, the
// budget kept, and the last line counting what was left out. The control:
// with room for everything, nothing is left out and no line is cut.
func TestLay(t *testing.T) {
	facts := []Item{{Kind: Fact, ID: "f1"}, {Kind: Fact, ID: "f2", Global: true}}
	var memories []Item
	for i := range 40 {
		memories = append(memories, Item{Kind: Memory, ID: fmt.Sprintf("m%02d", i), Global: i%2 == 0})
	}
	load := func(id string) (string, bool) {
		return MemoryLine(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), id, "A memory that says something worth a line, "+id+".")
	}
	for _, tt := range []struct {
		budget  int
		leftOut bool
	}{{MinTokens, true}, {DefaultTokens, true}, {MaxTokens, false}} {
		b := Lay("github.com/acme/alpha", tt.budget, facts, memories, load)
		if b.Tokens > tt.budget {
			t.Errorf("budget %d: the briefing costs %d", tt.budget, b.Tokens)
		}
		if (b.LeftOut > 0) != tt.leftOut || b.LeftOut != len(facts)+len(memories)-len(b.Items) {
			t.Errorf("budget %d: %d left out of %d with %d shown", tt.budget, b.LeftOut, len(facts)+len(memories), len(b.Items))
		}
		text := b.Text
		last := -1
		for _, sec := range sections {
			if at := strings.Index(text, sec.title); at >= 0 {
				if at < last {
					t.Errorf("budget %d: section %q out of order:\n%s", tt.budget, sec.title, text)
				}
				last = at
			}
		}
		if !tt.leftOut && !strings.Contains(text, sections[0].title) {
			t.Errorf("budget %d: room for everything, and no facts:\n%s", tt.budget, text)
		}
		if last < 0 {
			t.Errorf("budget %d: no section at all:\n%s", tt.budget, text)
		}
		for _, it := range b.Items {
			if !strings.Contains(text, "- "+it.Text+"\n") {
				t.Errorf("budget %d: line %q is not whole in the text", tt.budget, it.Text)
			}
		}
	}
}

// TestBudget: the one rule for a briefing's budget.
func TestBudget(t *testing.T) {
	for _, tt := range []struct {
		in, want int
		ok       bool
	}{{0, DefaultTokens, true}, {MinTokens, MinTokens, true}, {MaxTokens, MaxTokens, true}, {MinTokens - 1, 0, false}, {MaxTokens + 1, 0, false}, {-5, 0, false}} {
		got, err := Budget(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Budget(%d) = %d, %v", tt.in, got, err)
		}
	}
}

// TestMemoryLine: a memory's line is its date, id and the opening of its
// text on one line, cut at a whole character; an empty text has none.
func TestMemoryLine(t *testing.T) {
	day := time.Date(2025, 3, 1, 22, 0, 0, 0, time.FixedZone("x", -5*3600))
	line, ok := MemoryLine(day, "abc", "Two\nlines  of text")
	if !ok || line != "2025-03-02 (id abc): Two lines of text" {
		t.Errorf("line %q, %v", line, ok)
	}
	long, _ := MemoryLine(day, "abc", strings.Repeat("ñ", lineRunes+10))
	if !strings.HasSuffix(long, "…") || strings.Count(long, "ñ") != lineRunes {
		t.Errorf("a long text is not cut at %d characters: %q", lineRunes, long)
	}
	if _, ok := MemoryLine(day, "abc", " \n "); ok {
		t.Error("an empty text has a line")
	}
}

// Package brief lays out a session's briefing: what a session is told
// before anyone asks, as whole lines within a budget of estimated tokens.
// The store chooses the lines (the memories that state current facts, the
// recent memories still current); this package orders them under their
// headings and cuts at the budget, never inside a line.
package brief

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// Briefing budgets, in estimated tokens (see EstimateTokens).
const (
	// DefaultTokens is a briefing's budget when the caller gives none:
	// far under every client's cap on injected context (Claude Code cuts
	// 10,000 characters), small enough to be paid at every session start.
	DefaultTokens = 800
	// MinTokens and MaxTokens bound a caller's budget.
	MinTokens = 100
	MaxTokens = 4000
	// factShare is the part of the budget facts may take before the
	// memories have had theirs.
	factShare = 0.55
	// lineRunes bounds one memory's line: the opening of its text; the
	// id gets the rest.
	lineRunes = 220
)

// Briefing item kinds.
const (
	Fact   = "fact"
	Memory = "memory"
)

// Item is one line of a briefing.
type Item struct {
	Kind   string // Fact or Memory
	ID     string // the memory the line comes from
	Text   string // the line as shown, without its leading "- "
	Tokens int
	// Global: the memory is global, not the project's.
	Global bool
}

// Briefing is a session's briefing.
type Briefing struct {
	// Text is the briefing, ready to inject; "" when the caller can see
	// nothing.
	Text   string
	Tokens int
	// Items are the lines shown, in order.
	Items []Item
	// LeftOut counts the items the budget left out.
	LeftOut int
}

// EstimateTokens estimates a text's size in a model's tokens: about four
// characters a token, the usual rule for English and Spanish prose. Ids and
// dates cost more per character; the budget is an estimate, and the clients'
// caps are far above it.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// Budget is the one rule for a briefing's budget.
func Budget(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultTokens, nil
	case n < MinTokens || n > MaxTokens:
		return 0, fmt.Errorf("%w: a briefing's budget of %d tokens is out of range: use %d to %d", leaf.ErrInvalid, n, MinTokens, MaxTokens)
	}
	return n, nil
}

func line(kind, id, text string, global bool) Item {
	return Item{Kind: kind, ID: id, Text: text, Tokens: EstimateTokens("- " + text + "\n"), Global: global}
}

// MemoryLine is a memory's line: the date it became true, its id and the
// opening of its text on one line; false when it has no text.
func MemoryLine(valid time.Time, id, text string) (string, bool) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return "", false
	}
	if r := []rune(text); len(r) > lineRunes {
		text = string(r[:lineRunes]) + "…"
	}
	return fmt.Sprintf("%s (id %s): %s", valid.UTC().Format(time.DateOnly), id, text), true
}

// Lay fills the budget: facts up to their share, then memories, then
// the facts that did not fit, each section under its heading; whole lines
// only. A memory's line is read from its file only once it is its turn.
func Lay(project string, budget int, facts, memories []Item, load func(id string) (string, bool)) Briefing {
	b := writer{budget: budget, load: load, title: header(project)}
	// The header and the last line (however many it says are left out) are
	// paid for first; a section's heading with its first line.
	b.used = EstimateTokens(b.title) + EstimateTokens(footer(999999))
	factCap := int(float64(budget) * factShare)
	nf := b.take(facts, func(it Item) bool { return b.used+it.Tokens <= factCap })
	b.take(memories, nil)
	b.take(facts[nf:], nil)
	b.left = len(facts) + len(memories) - len(b.items)
	return b.finish()
}

// writer collects the lines of a briefing within its budget.
type writer struct {
	budget, used, left int
	title              string
	items              []Item
	full               bool
	opened             [3]bool // the sections that have a line
	load               func(id string) (string, bool)
}

// take adds items in order while they fit (and more says so, when given),
// and returns how many of items it went through. Once one item does not
// fit, no later one is tried: the briefing is cut, not packed, so that
// what is shown is always the top of each list.
func (b *writer) take(items []Item, more func(Item) bool) int {
	for i, it := range items {
		if b.full {
			return i
		}
		if it.Text == "" && b.load != nil {
			text, ok := b.load(it.ID)
			if !ok {
				continue
			}
			it = line(it.Kind, it.ID, text, it.Global)
		}
		if it.Text == "" {
			continue
		}
		cost := it.Tokens
		if sec := sectionOf(it); !b.opened[sec] {
			cost += EstimateTokens(sections[sec].title + "\n")
		}
		if more != nil && !more(it) {
			return i
		}
		if b.used+cost > b.budget {
			b.full = true
			return i
		}
		b.used += cost
		b.opened[sectionOf(it)] = true
		b.items = append(b.items, it)
	}
	return len(items)
}

func header(project string) string {
	if project == "" {
		return "IHMT memory (global, no project): current values, dated when each became true.\n"
	}
	return "IHMT memory for " + project + " (and global): current values, dated when each became true.\n"
}

func footer(left int) string {
	more := "For anything else, call search_memory; never guess what it holds."
	if left > 0 {
		return fmt.Sprintf("%d more left out. %s\n", left, more)
	}
	return more + "\n"
}

// sections are a briefing's sections, in order.
var sections = []struct {
	title string
	match func(Item) bool
}{
	{"Current facts and preferences:", func(it Item) bool { return it.Kind == Fact }},
	{"Recent in this project:", func(it Item) bool { return it.Kind == Memory && !it.Global }},
	{"Recent, global:", func(it Item) bool { return it.Kind == Memory && it.Global }},
}

// sectionOf is the index of it's section in sections.
func sectionOf(it Item) int {
	for i, sec := range sections {
		if sec.match(it) {
			return i
		}
	}
	return 0
}

// finish writes the briefing's text: the header, each section that has
// lines under its heading, and the last line.
func (b *writer) finish() Briefing {
	if len(b.items) == 0 {
		return Briefing{LeftOut: b.left}
	}
	var t strings.Builder
	t.WriteString(b.title)
	var ordered []Item
	for _, sec := range sections {
		first := true
		for _, it := range b.items {
			if !sec.match(it) {
				continue
			}
			if first {
				t.WriteString(sec.title + "\n")
				first = false
			}
			t.WriteString("- " + it.Text + "\n")
			ordered = append(ordered, it)
		}
	}
	t.WriteString(footer(b.left))
	text := t.String()
	return Briefing{Text: text, Tokens: EstimateTokens(text), Items: ordered, LeftOut: b.left}
}

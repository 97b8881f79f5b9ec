package store

import (
	"cmp"
	"fmt"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// A briefing is what a session is told before anyone asks: a coding agent's
// session-start hook injects it into the model's context, so that what the
// memory holds about this user and this project is there even when the model
// never thinks to search.
//
// It is built here, in the store, from what the store already keeps in
// memory — the fact timeline and the catalog's headers — so that it costs
// one pass over the catalog and a file read per memory shown, never a
// search; and it depends on nothing but the store's content, so the same
// store gives the same briefing, byte for byte. (No clock: "recent" is by
// each memory's own valid time.)
//
// What goes in, in order: the current facts and preferences (the current
// value of each fact the timeline holds, this project's first), then the
// project's most recent memories that are still current (not superseded),
// then the most recent global ones. Facts take at most briefFactShare of
// the budget on the first pass, so that a store rich in facts still shows
// what happened lately; what is left of the budget then goes to the facts
// that did not fit. Every item is a whole line: the budget cuts between
// lines, never inside one, and the last line says how many were left out.

// Briefing budgets, in estimated tokens (see estimateTokens).
const (
	// DefaultBriefTokens is a briefing's budget when the caller gives none:
	// far under every client's cap on injected context (Claude Code cuts
	// 10,000 characters), small enough to be paid at every session start.
	DefaultBriefTokens = 800
	// MinBriefTokens and MaxBriefTokens bound a caller's budget.
	MinBriefTokens = 100
	MaxBriefTokens = 4000
	// briefFactShare is the part of the budget facts may take before the
	// memories have had theirs.
	briefFactShare = 0.55
	// briefLineRunes bounds one memory's line: the opening of its text; the
	// id gets the rest.
	briefLineRunes = 220
)

// Briefing item kinds.
const (
	BriefFact   = "fact"
	BriefMemory = "memory"
)

// BriefInput asks for a briefing.
type BriefInput struct {
	Caller Caller
	// MaxTokens is the budget; 0 means DefaultBriefTokens.
	MaxTokens int
}

// BriefItem is one line of a briefing.
type BriefItem struct {
	Kind   string // BriefFact or BriefMemory
	ID     string // the memory the line comes from
	Text   string // the line as shown, without its leading "- "
	Tokens int
	global bool
}

// Briefing is a session's briefing.
type Briefing struct {
	// Text is the briefing, ready to inject; "" when the caller can see
	// nothing.
	Text   string
	Tokens int
	// Items are the lines shown, in order.
	Items []BriefItem
	// LeftOut counts the items the budget left out.
	LeftOut int
}

// estimateTokens estimates a text's size in a model's tokens: about four
// characters a token, the usual rule for English and Spanish prose. Ids and
// dates cost more per character; the budget is an estimate, and the clients'
// caps are far above it.
func estimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// Brief builds the caller's briefing: global memories and the caller's
// project only, as a default search sees them.
func (s *Store) Brief(in BriefInput) (Briefing, error) {
	budget, err := briefBudget(in.MaxTokens)
	if err != nil {
		return Briefing{}, err
	}
	rows, err := s.Facts(in.Caller, "", "", "", ScopeDefault)
	if err != nil {
		return Briefing{}, err
	}
	facts := factItems(rows)
	cited := map[string]bool{}
	for _, f := range facts {
		cited[f.ID] = true
	}
	memories := s.recentItems(in.Caller, cited)
	if len(facts)+len(memories) == 0 {
		return Briefing{}, nil
	}
	return layOut(in.Caller.Project, budget, facts, memories, s.memoryLine), nil
}

// briefBudget is the one rule for a briefing's budget.
func briefBudget(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultBriefTokens, nil
	case n < MinBriefTokens || n > MaxBriefTokens:
		return 0, fmt.Errorf("%w: a briefing's budget of %d tokens is out of range: use %d to %d", ErrInvalid, n, MinBriefTokens, MaxBriefTokens)
	}
	return n, nil
}

// factItems are the memories that state the current facts, each once, as
// lines in their own words (read when it is their turn: memoryLine): this
// project's first, then the global ones; within each, the newest first. A
// pattern reads a fact's subject and value out of a sentence, and what it
// cut out ("sdk key · location") is no line to hand a model; the sentence
// it came from is.
func factItems(rows []FactRow) []BriefItem {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b FactRow) int {
		return cmp.Or(
			cmp.Compare(boolRank(a.Key.Scope == ""), boolRank(b.Key.Scope == "")),
			b.Entry.ValidFrom.Compare(a.Entry.ValidFrom),
			cmp.Compare(a.Key.Subject, b.Key.Subject),
			cmp.Compare(a.Key.Attribute, b.Key.Attribute),
			cmp.Compare(a.Entry.Leaf, b.Entry.Leaf))
	})
	out := make([]BriefItem, 0, len(rows))
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Entry.Leaf] {
			seen[r.Entry.Leaf] = true
			out = append(out, BriefItem{Kind: BriefFact, ID: r.Entry.Leaf, global: r.Key.Scope == ""})
		}
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func item(kind, id, text string, global bool) BriefItem {
	return BriefItem{Kind: kind, ID: id, Text: text, Tokens: estimateTokens("- " + text + "\n"), global: global}
}

// briefDate is a memory's date as the briefing shows it.
func briefDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// recentDoc is a memory the briefing may show, with what orders it.
type recentDoc struct {
	l      *leaf.Leaf
	global bool
}

// recentItems are the memories worth showing at a session start, as lines:
// live, visible under the default scope, still current (nothing superseded
// them), not already cited by a fact, and not the parts of an ingested
// document (a file's chunks are found by search, not listed); this
// project's first, then the global ones, the newest first within each.
func (s *Store) recentItems(c Caller, cited map[string]bool) []BriefItem {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, _, err := s.visible(c, ScopeDefault)
	if err != nil {
		return nil
	}
	now := s.visibleIn(vis, recall.Moment{})
	var docs []recentDoc
	for _, l := range s.docs {
		if !l.Live() || cited[l.ID] || (l.Source != nil && l.Source.Name != "") || !vis(s.groupOf(l)) {
			continue
		}
		if !s.currencyOf(s.byID[l.ID], timeline.View{}, now).Current {
			continue
		}
		docs = append(docs, recentDoc{l: l, global: l.Scope == leaf.ScopeGlobal})
	}
	slices.SortFunc(docs, func(a, b recentDoc) int {
		return cmp.Or(
			cmp.Compare(boolRank(a.global), boolRank(b.global)),
			b.l.ValidFrom.Compare(a.l.ValidFrom),
			b.l.RecordedAt.Compare(a.l.RecordedAt),
			cmp.Compare(a.l.ID, b.l.ID))
	})
	out := make([]BriefItem, 0, len(docs))
	for _, d := range docs {
		// Only a memory that could be shown has its text read: the rest
		// are counted, not read.
		out = append(out, BriefItem{Kind: BriefMemory, ID: d.l.ID, global: d.global})
	}
	return out
}

// memoryLine is a memory's line: its date, its id and the opening of its
// text on one line.
func (s *Store) memoryLine(id string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.byID[id]
	if !ok {
		return "", false
	}
	l := s.shown(s.docs[d])
	text := strings.Join(strings.Fields(l.Text), " ")
	if text == "" {
		return "", false
	}
	if r := []rune(text); len(r) > briefLineRunes {
		text = string(r[:briefLineRunes]) + "…"
	}
	return fmt.Sprintf("%s (id %s): %s", briefDate(l.ValidFrom), l.ID, text), true
}

// layOut fills the budget: facts up to their share, then memories, then
// the facts that did not fit, each section under its heading; whole lines
// only. A memory's line is read from its file only once it is its turn.
func layOut(project string, budget int, facts, memories []BriefItem, load func(id string) (string, bool)) Briefing {
	b := briefWriter{budget: budget, load: load, header: briefHeader(project)}
	// The header and the last line (however many it says are left out) are
	// paid for first; a section's heading with its first line.
	b.used = estimateTokens(b.header) + estimateTokens(briefFooter(999999))
	factCap := int(float64(budget) * briefFactShare)
	nf := b.take(facts, func(it BriefItem) bool { return b.used+it.Tokens <= factCap })
	b.take(memories, nil)
	b.take(facts[nf:], nil)
	b.left = len(facts) + len(memories) - len(b.items)
	return b.finish()
}

// briefWriter collects the lines of a briefing within its budget.
type briefWriter struct {
	budget, used, left int
	header             string
	items              []BriefItem
	full               bool
	opened             [3]bool // the sections that have a line
	load               func(id string) (string, bool)
}

// take adds items in order while they fit (and more says so, when given),
// and returns how many of items it went through. Once one item does not
// fit, no later one is tried: the briefing is cut, not packed, so that
// what is shown is always the top of each list.
func (b *briefWriter) take(items []BriefItem, more func(BriefItem) bool) int {
	for i, it := range items {
		if b.full {
			return i
		}
		if it.Text == "" && b.load != nil {
			text, ok := b.load(it.ID)
			if !ok {
				continue
			}
			it = item(it.Kind, it.ID, text, it.global)
		}
		if it.Text == "" {
			continue
		}
		cost := it.Tokens
		if sec := sectionOf(it); !b.opened[sec] {
			cost += estimateTokens(briefSections[sec].title + "\n")
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

func briefHeader(project string) string {
	if project == "" {
		return "IHMT memory (global, no project): current values, dated when each became true.\n"
	}
	return "IHMT memory for " + project + " (and global): current values, dated when each became true.\n"
}

func briefFooter(left int) string {
	more := "For anything else, call search_memory; never guess what it holds."
	if left > 0 {
		return fmt.Sprintf("%d more left out. %s\n", left, more)
	}
	return more + "\n"
}

// briefSections are a briefing's sections, in order.
var briefSections = []struct {
	title string
	match func(BriefItem) bool
}{
	{"Current facts and preferences:", func(it BriefItem) bool { return it.Kind == BriefFact }},
	{"Recent in this project:", func(it BriefItem) bool { return it.Kind == BriefMemory && !it.global }},
	{"Recent, global:", func(it BriefItem) bool { return it.Kind == BriefMemory && it.global }},
}

// sectionOf is the index of it's section in briefSections.
func sectionOf(it BriefItem) int {
	for i, sec := range briefSections {
		if sec.match(it) {
			return i
		}
	}
	return 0
}

// finish writes the briefing's text: the header, each section that has
// lines under its heading, and the last line.
func (b *briefWriter) finish() Briefing {
	if len(b.items) == 0 {
		return Briefing{LeftOut: b.left}
	}
	var t strings.Builder
	t.WriteString(b.header)
	var ordered []BriefItem
	for _, sec := range briefSections {
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
	t.WriteString(briefFooter(b.left))
	text := t.String()
	return Briefing{Text: text, Tokens: estimateTokens(text), Items: ordered, LeftOut: b.left}
}

package store

import (
	"cmp"
	"slices"

	"github.com/ihmt-dev/ihmt/pkg/brief"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/recall"
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

// BriefInput asks for a briefing.
type BriefInput struct {
	Caller Caller
	// MaxTokens is the budget; 0 means brief.DefaultTokens.
	MaxTokens int
}

// Brief builds the caller's briefing: global memories and the caller's
// project only, as a default search sees them.
func (s *Store) Brief(in BriefInput) (brief.Briefing, error) {
	budget, err := brief.Budget(in.MaxTokens)
	if err != nil {
		return brief.Briefing{}, err
	}
	rows, err := s.Facts(in.Caller, "", "", "", ScopeDefault)
	if err != nil {
		return brief.Briefing{}, err
	}
	facts := factItems(rows)
	cited := map[string]bool{}
	for _, f := range facts {
		cited[f.ID] = true
	}
	memories := s.recentItems(in.Caller, cited)
	if len(facts)+len(memories) == 0 {
		return brief.Briefing{}, nil
	}
	return brief.Lay(in.Caller.Project, budget, facts, memories, s.memoryLine), nil
}

// factItems are the memories that state the current facts, each once, as
// lines in their own words (read when it is their turn: memoryLine): this
// project's first, then the global ones; within each, the newest first. A
// pattern reads a fact's subject and value out of a sentence, and what it
// cut out ("sdk key · location") is no line to hand a model; the sentence
// it came from is.
func factItems(rows []FactRow) []brief.Item {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b FactRow) int {
		return cmp.Or(
			cmp.Compare(boolRank(a.Key.Scope == ""), boolRank(b.Key.Scope == "")),
			b.Entry.ValidFrom.Compare(a.Entry.ValidFrom),
			cmp.Compare(a.Key.Subject, b.Key.Subject),
			cmp.Compare(a.Key.Attribute, b.Key.Attribute),
			cmp.Compare(a.Entry.Leaf, b.Entry.Leaf))
	})
	out := make([]brief.Item, 0, len(rows))
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Entry.Leaf] {
			seen[r.Entry.Leaf] = true
			out = append(out, brief.Item{Kind: brief.Fact, ID: r.Entry.Leaf, Global: r.Key.Scope == ""})
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
func (s *Store) recentItems(c Caller, cited map[string]bool) []brief.Item {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, _, err := s.visible(c, ScopeDefault)
	if err != nil {
		return nil
	}
	now := recall.Visible(s.reader(), vis, recall.Moment{})
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
	out := make([]brief.Item, 0, len(docs))
	for _, d := range docs {
		// Only a memory that could be shown has its text read: the rest
		// are counted, not read.
		out = append(out, brief.Item{Kind: brief.Memory, ID: d.l.ID, Global: d.global})
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
	return brief.MemoryLine(l.ValidFrom, l.ID, l.Text)
}

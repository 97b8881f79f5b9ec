package leaf

import (
	"cmp"
	"slices"
)

// Join merges two versions of one memory (the same id) into the version
// every store that holds both keeps. Sync (pkg/gitsync) needs it: two
// machines change the same memory independently — one forgets it, the
// other links a correction to it, approves it — and each ends up with both
// versions, received in either order. Join is commutative, associative and
// idempotent, so every machine arrives at the same memory whatever order
// the versions came in, and no later sync can undo what an earlier one
// decided. The rule, field by field:
//
//   - What a memory is never changes: its text, scope and project are what
//     its id is derived from. Who saved it and when (recorded_at,
//     valid_from, agent, session, the fields a save sets) come from the
//     version recorded first; two machines that saved the same text at
//     once thus end with one memory, the earlier save's.
//   - Status only moves forward: active, then superseded, then forgotten,
//     then purged. A purge beats everything and its text is gone; a
//     forget beats any later change that is not a forget, so a forgotten
//     memory never comes back through a machine that had not heard of it.
//     Of two tombstones the earlier is kept.
//   - Trust only moves forward too: pending, asserted, verified, rejected
//     (each a person's decision over the one before; of an approval and a
//     rejection, the rejection stands). The review note goes with it.
//   - Links are a union: every correction either machine recorded, each
//     at the earliest time it was recorded, in time order; the probable
//     supersessions likewise, the more confident of two about one memory.
//
// A restore is the one change this order cannot express (forgotten back to
// active); see pkg/gitsync for what it means for sync.
func Join(a, b Leaf) Leaf {
	first, second := a, b
	if earlier(b.Header, a.Header) {
		first, second = b, a
	}
	out := first
	out.Header = cloneHeader(first.Header)
	if out.Text == "" {
		out.Text = second.Text
	}
	if statusRank(second.Status) > statusRank(out.Status) {
		out.Status = second.Status
	}
	out.Tombstone = joinTombstone(first, second, out.Status)
	if out.Status == StatusPurged {
		out.Text = ""
	}
	if trustRank(second.Trust) > trustRank(out.Trust) ||
		(second.Trust == out.Trust && second.ReviewNote > out.ReviewNote) {
		out.Trust, out.ReviewNote = second.Trust, second.ReviewNote
	}
	out.Corrects = joinLinks(first.Corrects, second.Corrects)
	out.CorrectedBy = joinLinks(first.CorrectedBy, second.CorrectedBy)
	out.Probable = joinProbable(first.Probable, second.Probable)
	return out
}

// earlier orders two versions by when they were recorded, then by the
// fields that tell two simultaneous saves apart, so that the choice of the
// first is the same on every machine.
func earlier(a, b Header) bool {
	if c := a.RecordedAt.Compare(b.RecordedAt); c != 0 {
		return c < 0
	}
	if c := a.ValidFrom.Compare(b.ValidFrom); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(a.Agent.Name+"\x00"+a.Agent.Version, b.Agent.Name+"\x00"+b.Agent.Version); c != 0 {
		return c < 0
	}
	return a.Session < b.Session
}

func statusRank(s string) int {
	switch s {
	case StatusSuperseded:
		return 1
	case StatusForgotten:
		return 2
	case StatusPurged:
		return 3
	}
	return 0
}

func trustRank(t string) int {
	switch t {
	case TrustAsserted:
		return 1
	case TrustVerified:
		return 2
	case TrustRejected:
		return 3
	}
	return 0
}

// joinTombstone keeps the earlier of two tombstones, and the purge time of
// whichever version was purged (the earlier, if both were).
func joinTombstone(a, b Leaf, status string) *Tombstone {
	if statusRank(status) < statusRank(StatusForgotten) {
		return nil
	}
	ta, tb := a.Tombstone, b.Tombstone
	switch {
	case ta == nil && tb == nil:
		return nil
	case ta == nil:
		ta, tb = tb, nil
	case tb != nil && tombBefore(*tb, *ta):
		ta, tb = tb, ta
	}
	out := *ta
	purgedAt := ta.PurgedAt
	if tb != nil && tb.PurgedAt != nil && (purgedAt == nil || tb.PurgedAt.Before(*purgedAt)) {
		purgedAt = tb.PurgedAt
	}
	if status == StatusPurged {
		out.PurgedAt = purgedAt
	} else {
		out.PurgedAt = nil
	}
	if out.PurgedAt != nil {
		t := *out.PurgedAt
		out.PurgedAt = &t
	}
	return &out
}

func tombBefore(a, b Tombstone) bool {
	if c := a.At.Compare(b.At); c != 0 {
		return c < 0
	}
	if a.By.Name != b.By.Name {
		return a.By.Name < b.By.Name
	}
	if a.Session != b.Session {
		return a.Session < b.Session
	}
	return a.Reason < b.Reason
}

// joinLinks is the union of two link lists, each id once at its earliest
// time, in time order (then by id). Nil when both are empty, as a header
// without links is written.
func joinLinks(a, b []Link) []Link {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	at := map[string]Link{}
	for _, k := range append(slices.Clone(a), b...) {
		if cur, ok := at[k.ID]; !ok || k.At.Before(cur.At) {
			at[k.ID] = k
		}
	}
	out := make([]Link, 0, len(at))
	for _, k := range at {
		out = append(out, k)
	}
	slices.SortFunc(out, func(x, y Link) int {
		if c := x.At.Compare(y.At); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	return out
}

// joinProbable is the union of two lists of probable supersessions, each
// memory once (the more confident inference, then the one that sorts first
// by direction), in the order of the first list, then the second's others.
func joinProbable(a, b []Probable) []Probable {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	best := map[string]Probable{}
	var order []string
	for _, p := range append(slices.Clone(a), b...) {
		cur, ok := best[p.ID]
		if !ok {
			order = append(order, p.ID)
		}
		if !ok || p.Confidence > cur.Confidence || (p.Confidence == cur.Confidence && !p.Newer && cur.Newer) {
			best[p.ID] = p
		}
	}
	slices.Sort(order)
	out := make([]Probable, 0, len(order))
	for _, id := range order {
		out = append(out, best[id])
	}
	return out
}

// cloneHeader copies h's slices and pointers, so that a joined version
// shares nothing with the versions it was joined from.
func cloneHeader(h Header) Header {
	h.Tags = slices.Clone(h.Tags)
	h.Corrects = slices.Clone(h.Corrects)
	h.CorrectedBy = slices.Clone(h.CorrectedBy)
	h.Probable = slices.Clone(h.Probable)
	if h.Tombstone != nil {
		t := *h.Tombstone
		h.Tombstone = &t
	}
	if h.Source != nil {
		s := *h.Source
		h.Source = &s
	}
	return h
}

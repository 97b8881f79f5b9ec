package timeline

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// visible reports whether a view sees an entry at all.
func (v View) visible(e *entry) bool { return v.validOK(e.info.valid) && v.recordOK(e.info.rec) }

// linkVisible reports whether a link to leaf new, recorded at rec, is in
// effect in v.
func (t *Timeline) linkVisible(rec time.Time, new string, v View) bool {
	info := t.leaves[new]
	return info != nil && v.recordOK(rec) && v.validOK(info.valid) && v.recordOK(info.rec)
}

// retracted returns the record time of the earliest link in effect that
// supersedes leaf, if any.
func (t *Timeline) retracted(leaf string, v View) (time.Time, bool) {
	var at time.Time
	found := false
	for n, rec := range t.links[leaf] {
		if t.linkVisible(rec, n, v) && (!found || rec.Before(at)) {
			at, found = rec, true
		}
	}
	return at, found
}

// counts reports whether e takes part in deciding the current value in v:
// visible and not retracted.
func (t *Timeline) counts(e *entry, v View) bool {
	if !v.visible(e) {
		return false
	}
	_, r := t.retracted(e.info.leaf, v)
	return !r
}

// currentIndex returns the index of s's current entry in v, or -1. The
// binary search skips what is not yet valid; the scan back past entries
// not yet recorded or retracted is usually one step.
func (t *Timeline) currentIndex(s *series, v View) int {
	hi := len(s.entries)
	if !v.AsOf.IsZero() {
		hi, _ = slices.BinarySearchFunc(s.entries, v.AsOf, func(e *entry, asOf time.Time) int {
			if e.info.valid.After(asOf) {
				return 1
			}
			return -1
		})
	}
	for i := hi - 1; i >= 0; i-- {
		if t.counts(s.entries[i], v) {
			return i
		}
	}
	return -1
}

// runStart returns the index of the first entry of the run of equal
// values that ends at index i: when the current value began.
func (t *Timeline) runStart(s *series, v View, i int) int {
	start := i
	for j := i - 1; j >= 0; j-- {
		e := s.entries[j]
		if !t.counts(e, v) {
			continue
		}
		if e.norm != s.entries[i].norm {
			break
		}
		start = j
	}
	return start
}

func (e *entry) public() Entry {
	return Entry{Key: e.s.key, Value: e.value, Phrase: e.phrase, Leaf: e.info.leaf, ValidFrom: e.info.valid, RecordedAt: e.info.rec}
}

// Current returns the current entry of key in v: the most recent
// statement of the newest value.
func (t *Timeline) Current(key Key, v View) (Entry, bool) {
	s := t.series[key]
	if s == nil {
		return Entry{}, false
	}
	i := t.currentIndex(s, v)
	if i < 0 {
		return Entry{}, false
	}
	return s.entries[i].public(), true
}

// Entries returns the statements leaf made, as filed: with the keys its
// "switched from" facts were resolved to, in the order they were added.
// Dates are the leaf's; ValidTo and SupersededAt are left to History.
func (t *Timeline) Entries(leaf string) []Entry {
	info := t.leaves[leaf]
	if info == nil {
		return nil
	}
	out := make([]Entry, len(info.entries))
	for i, e := range info.entries {
		out[i] = e.public()
	}
	return out
}

// Status says whether leaf is outdated in v. It is outdated when one of
// its facts holds a value other than its key's current value (a value
// that came back is current again, so A → B → A leaves the first A
// current), or when an explicit link to a newer leaf is in effect.
func (t *Timeline) Status(leaf string, v View) Status {
	var st Status
	st.Successors = t.linkSuccessors(leaf, v)
	st.Outdated = len(st.Successors) > 0
	info := t.leaves[leaf]
	if info == nil {
		return st
	}
	for _, e := range info.entries {
		if !t.counts(e, v) {
			continue
		}
		s := e.s
		ci := t.currentIndex(s, v)
		if ci < 0 || s.entries[ci].norm == e.norm {
			continue
		}
		cur, start := s.entries[ci], s.entries[t.runStart(s, v, ci)]
		st.Outdated = true
		for _, l := range []string{cur.info.leaf, start.info.leaf} {
			if !slices.Contains(st.Successors, l) {
				st.Successors = append(st.Successors, l)
			}
		}
		st.Notices = append(st.Notices, Notice(e.public(), start.public()))
	}
	return st
}

// Notice words what a reader of an outdated statement needs: what it
// said and when, and what was said since and when. Dates are valid times.
func Notice(old, new Entry) string {
	said := old.Phrase
	if said == "" {
		said = old.Value
	}
	return fmt.Sprintf("OUTDATED: On %s you said %s; on %s you said %s.",
		day(old.ValidFrom), strings.TrimRight(said, ". "), day(new.ValidFrom), strings.TrimRight(new.Value, ". "))
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// linkSuccessors follows the links in effect from leaf: the newest ends
// of the chains first (a leaf no link in effect supersedes), then the
// leaves between, each group newest first.
func (t *Timeline) linkSuccessors(leaf string, v View) []string {
	if len(t.links[leaf]) == 0 {
		return nil
	}
	seen := map[string]bool{leaf: true}
	var found []string
	queue := []string{leaf}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for next, rec := range t.links[n] {
			if !seen[next] && t.linkVisible(rec, next, v) {
				seen[next] = true
				found = append(found, next)
				queue = append(queue, next)
			}
		}
	}
	tip := func(l string) bool {
		for next, rec := range t.links[l] {
			if t.linkVisible(rec, next, v) {
				return false
			}
		}
		return true
	}
	slices.SortFunc(found, func(a, b string) int {
		ta, tb := tip(a), tip(b)
		if ta != tb {
			if ta {
				return -1
			}
			return 1
		}
		if c := t.leaves[b].valid.Compare(t.leaves[a].valid); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return found
}

// History returns every statement on key's timeline that v sees, in
// valid-time order. Each carries ValidTo and SupersededAt from the next
// different value (confirmations share the end of their run), and
// RetractedAt if an explicit link retracted it.
func (t *Timeline) History(key Key, v View) []Entry {
	s := t.series[key]
	if s == nil {
		return nil
	}
	var out []Entry
	var vis []*entry
	for _, e := range s.entries {
		if v.visible(e) {
			vis = append(vis, e)
		}
	}
	// Backwards: for each statement, the first later counting statement
	// of a different value.
	nextDiff := make([]*entry, len(vis))
	var next *entry     // nearest counting statement after the position
	var nextNext *entry // its own nextDiff
	for i := len(vis) - 1; i >= 0; i-- {
		e := vis[i]
		switch {
		case next == nil:
		case next.norm != e.norm:
			nextDiff[i] = next
		default:
			nextDiff[i] = nextNext
		}
		if t.counts(e, v) {
			next, nextNext = e, nextDiff[i]
		}
	}
	for i, e := range vis {
		x := e.public()
		if at, r := t.retracted(e.info.leaf, v); r {
			x.RetractedAt = at
		}
		if n := nextDiff[i]; n != nil {
			x.ValidTo = n.info.valid
			x.SupersededAt = later(e.info.rec, n.info.rec)
		}
		out = append(out, x)
	}
	return out
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Keys returns the keys of the scopes scopeVisible accepts (nil accepts
// all) whose subject contains subjectContains (ignoring case and
// accents; "" matches all), sorted.
func (t *Timeline) Keys(scopeVisible func(scope string) bool, subjectContains string) []Key {
	want := Fold(subjectContains)
	var out []Key
	for k := range t.series {
		if scopeVisible != nil && !scopeVisible(k.Scope) {
			continue
		}
		if want != "" && !strings.Contains(Fold(k.Subject), want) {
			continue
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Key) int {
		if keyLess(a, b) {
			return -1
		}
		if keyLess(b, a) {
			return 1
		}
		return 0
	})
	return out
}

// Conflicts returns every change of value on the timelines of the scopes
// scopeVisible accepts (nil accepts all), as things stand now with
// everything recorded: for each, the first statement of the old value,
// the first statement of the new one and when the memory learned of the
// change. Ordered by key, then by the change's valid time.
func (t *Timeline) Conflicts(scopeVisible func(string) bool) []Supersession {
	var out []Supersession
	for _, k := range t.Keys(scopeVisible, "") {
		hist := t.History(k, View{})
		var runStart *Entry
		for i := range hist {
			e := &hist[i]
			if !e.RetractedAt.IsZero() {
				continue
			}
			if runStart == nil {
				runStart = e
				continue
			}
			if Fold(e.Value) == Fold(runStart.Value) {
				continue
			}
			out = append(out, Supersession{Key: k, Old: *runStart, New: *e, RecordedAt: later(runStart.RecordedAt, e.RecordedAt)})
			runStart = e
		}
	}
	return out
}

package timeline

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// window is a View with its times as Unix nanoseconds too, so that
// leaves' dates, kept as numbers (leafInfo), are compared as numbers.
type window struct {
	View
	asOf, knownAt int64
}

func (v View) window() window { return window{v, bound(v.AsOf), bound(v.KnownAt)} }

// bound returns t as Unix nanoseconds, or, beyond their range, the
// nearest int64: a date kept as a number is after t exactly when it is
// greater than bound(t).
func bound(t time.Time) int64 {
	n := t.UnixNano()
	switch {
	case time.Unix(0, n).Equal(t):
		return n
	case t.Before(time.Unix(0, 0)):
		return math.MinInt64
	}
	return math.MaxInt64
}

// validAfter reports whether leaf li's valid time is after at, whose
// bound is n.
func (t *Timeline) validAfter(li int32, at time.Time, n int64) bool {
	if v := t.infos.at(li).valid; v != exotic {
		return v > n
	}
	return t.exotic[li][0].After(at)
}

// leafVisible reports whether a view sees leaf li's statements at all.
func (t *Timeline) leafVisible(li int32, w window) bool {
	info := t.infos.at(li)
	if info.valid == exotic {
		d := t.exotic[li]
		return w.validOK(d[0]) && w.recordOK(d[1])
	}
	return (w.AsOf.IsZero() || info.valid <= w.asOf) && (w.KnownAt.IsZero() || info.rec <= w.knownAt)
}

// visible reports whether a view sees an entry at all.
func (t *Timeline) visible(e *entry, w window) bool { return t.leafVisible(e.leaf, w) }

// linkVisible reports whether a link to leaf new, recorded at rec, is in
// effect in w.
func (t *Timeline) linkVisible(rec time.Time, new string, w window) bool {
	li, ok := t.leaves[new]
	return ok && w.recordOK(rec) && t.leafVisible(li, w)
}

// retracted returns the record time of the earliest link in effect that
// supersedes leaf, if any.
func (t *Timeline) retracted(leaf string, w window) (time.Time, bool) {
	var at time.Time
	found := false
	for n, rec := range t.links[leaf] {
		if t.linkVisible(rec, n, w) && (!found || rec.Before(at)) {
			at, found = rec, true
		}
	}
	return at, found
}

// counts reports whether e takes part in deciding the current value in w:
// visible and not retracted.
func (t *Timeline) counts(e *entry, w window) bool {
	if !t.visible(e, w) {
		return false
	}
	_, r := t.retracted(t.infos.at(e.leaf).leaf, w)
	return !r
}

// currentIndex returns the index of s's current entry in w, or -1. The
// binary search skips what is not yet valid; the scan back past entries
// not yet recorded or retracted is usually one step.
func (t *Timeline) currentIndex(s *series, w window) int {
	hi := len(s.entries)
	if !w.AsOf.IsZero() {
		hi, _ = slices.BinarySearchFunc(s.entries, w, func(e *entry, w window) int {
			if t.validAfter(e.leaf, w.AsOf, w.asOf) {
				return 1
			}
			return -1
		})
	}
	for i := hi - 1; i >= 0; i-- {
		if t.counts(s.entries[i], w) {
			return i
		}
	}
	return -1
}

// runStart returns the index of the first entry of the run of equal
// values that ends at index i: when the current value began.
func (t *Timeline) runStart(s *series, w window, i int) int {
	start := i
	for j := i - 1; j >= 0; j-- {
		e := s.entries[j]
		if !t.counts(e, w) {
			continue
		}
		if e.norm != s.entries[i].norm {
			break
		}
		start = j
	}
	return start
}

func (t *Timeline) public(e *entry) Entry {
	valid, rec := t.dates(e.leaf)
	return Entry{Key: e.s.key, Value: e.value, Phrase: e.phrase, Leaf: t.infos.at(e.leaf).leaf, ValidFrom: valid, RecordedAt: rec}
}

// Current returns the current entry of key in v: the most recent
// statement of the newest value.
func (t *Timeline) Current(key Key, v View) (Entry, bool) {
	s := t.series[key]
	if s == nil {
		return Entry{}, false
	}
	i := t.currentIndex(s, v.window())
	if i < 0 {
		return Entry{}, false
	}
	return t.public(s.entries[i]), true
}

// Entries returns the statements leaf made, as filed: with the keys its
// "switched from" facts were resolved to, in the order they were added.
// Dates are the leaf's; ValidTo and SupersededAt are left to History.
func (t *Timeline) Entries(leaf string) []Entry {
	li, ok := t.leaves[leaf]
	if !ok {
		return nil
	}
	info := t.infos.at(li)
	out := make([]Entry, len(info.entries))
	for i := range info.entries {
		out[i] = t.public(&info.entries[i])
	}
	return out
}

// Status says whether leaf is outdated in v. It is outdated when one of
// its facts holds a value other than its key's current value (a value
// that came back is current again, so A → B → A leaves the first A
// current), or when an explicit link to a newer leaf is in effect.
func (t *Timeline) Status(leaf string, v View) Status { return t.status(leaf, v, true) }

// Outdated is Status without its notices: what a ranking needs of each of
// its candidates, of which only the few it shows need the words.
func (t *Timeline) Outdated(leaf string, v View) Status { return t.status(leaf, v, false) }

func (t *Timeline) status(leaf string, v View, notices bool) Status {
	var st Status
	w := v.window()
	st.Successors = t.linkSuccessors(leaf, w)
	st.Outdated = len(st.Successors) > 0
	li, ok := t.leaves[leaf]
	if !ok {
		return st
	}
	info := t.infos.at(li)
	for i := range info.entries {
		e := &info.entries[i]
		if !t.counts(e, w) {
			continue
		}
		s := e.s
		ci := t.currentIndex(s, w)
		if ci < 0 || s.entries[ci].norm == e.norm {
			continue
		}
		cur, start := s.entries[ci], s.entries[t.runStart(s, w, ci)]
		st.Outdated = true
		for _, l := range []string{t.infos.at(cur.leaf).leaf, t.infos.at(start.leaf).leaf} {
			if !slices.Contains(st.Successors, l) {
				st.Successors = append(st.Successors, l)
			}
		}
		if notices {
			st.Notices = append(st.Notices, Notice(t.public(e), t.public(start)))
		}
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
func (t *Timeline) linkSuccessors(leaf string, w window) []string {
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
			if !seen[next] && t.linkVisible(rec, next, w) {
				seen[next] = true
				found = append(found, next)
				queue = append(queue, next)
			}
		}
	}
	tip := func(l string) bool {
		for next, rec := range t.links[l] {
			if t.linkVisible(rec, next, w) {
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
		if c := t.validFrom(t.leaves[b]).Compare(t.validFrom(t.leaves[a])); c != 0 {
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
	w := v.window()
	var out []Entry
	var vis []*entry
	for _, e := range s.entries {
		if t.visible(e, w) {
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
		if t.counts(e, w) {
			next, nextNext = e, nextDiff[i]
		}
	}
	for i, e := range vis {
		x := t.public(e)
		if at, r := t.retracted(x.Leaf, w); r {
			x.RetractedAt = at
		}
		if n := nextDiff[i]; n != nil {
			x.ValidTo = t.validFrom(n.leaf)
			x.SupersededAt = later(x.RecordedAt, t.recordedAt(n.leaf))
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
	slices.SortFunc(out, keyCompare)
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

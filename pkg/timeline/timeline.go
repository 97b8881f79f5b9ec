// Package timeline keeps what the memory knows about each fact over time,
// so that a correction changes the answer rather than merely sitting
// beside the memory it corrects.
//
// Facts (package facts) arrive with the leaf that stated them and two
// dates: when what the leaf says became true (valid time) and when the
// memory learned it (record time). Each (scope, subject, attribute) keeps
// its own timeline ordered by valid time, not by arrival, so a memory
// saved late about something old ("back in 2023 I lived in Madrid") is
// filed as history at once instead of becoming the current answer. The
// newest value is current; each older value ends where its successor
// begins; the same value again later is a confirmation, not a change.
//
// Every question is asked in a [View]: as things stood at a valid time
// (AsOf: "where did I live in 2024?"), as the memory believed at a record
// time (KnownAt: "what did the memory say last March?"), or both. Nothing
// is rewritten in place: a supersession, a retraction and the notices
// that describe them are computed from the entries and the view each
// time, which is why a value that reverts (A → B → A) is current again
// with no stale "updated to B" notice, and why forgetting a leaf
// ([Timeline.Remove]) leaves nothing of it behind.
//
// Timelines are partitioned by scope (global or one project), so a fact
// saved in one project never makes a memory of another project, or a
// global one, outdated.
//
// Besides the facts, explicit links (replaces, mark_outdated) say that
// one leaf supersedes another whatever their words. A linked-away leaf is
// outdated, and its facts are retracted: they stop counting as current
// values (the statement was wrong, so what was current before it is
// current again), while History still shows them, marked.
//
// A timeline lives in memory only (its owner fills it with every leaf's
// facts when it opens): an entry per fact stated, a leaf's id and dates held once for all
// its facts. A question reads only the timelines it names (Status, those
// of the leaf's facts). What it cannot do is read meaning: it knows only
// the facts package facts found, so a correction no pattern reads changes
// nothing here unless a link says so; and values are compared folded (case
// and accents aside), not by sense, so "NYC" after "New York" is a change
// of value.
//
// A Timeline is not safe for concurrent mutation: the store guards it
// with its own lock. Reads do not modify it, so concurrent reads are safe.
package timeline

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
)

// Key names one timeline: a subject's attribute within a scope.
type Key struct {
	// Scope is "" for global memories, else the project key. Timelines
	// never mix scopes.
	Scope     string
	Subject   string
	Attribute string
}

// String renders a key as SUBJECT::ATTRIBUTE, prefixed by the scope when
// it is not global.
func (k Key) String() string {
	s := k.Subject + "::" + k.Attribute
	if k.Scope != "" {
		s = k.Scope + " " + s
	}
	return s
}

// Source says which leaf stated some facts and when.
type Source struct {
	Leaf  string
	Scope string
	// ValidFrom is when what the leaf says became true.
	ValidFrom time.Time
	// RecordedAt is when the memory learned it.
	RecordedAt time.Time
}

// View selects what a question sees. The zero View sees everything, now.
type View struct {
	// AsOf is a valid time: facts whose ValidFrom is after it are not yet
	// true. Zero means now. The store passes the end of the day a caller
	// names, so a fact dated that day counts.
	AsOf time.Time
	// KnownAt is a record time: facts and links recorded after it are not
	// yet known. Zero means everything recorded.
	KnownAt time.Time
}

func (v View) validOK(t time.Time) bool  { return v.AsOf.IsZero() || !t.After(v.AsOf) }
func (v View) recordOK(t time.Time) bool { return v.KnownAt.IsZero() || !t.After(v.KnownAt) }

// Entry is one statement of a value, as a view sees it.
type Entry struct {
	Key    Key
	Value  string
	Phrase string
	Leaf   string
	// ValidFrom is when the leaf says the value became true; ValidTo is
	// when the next different value began (zero while current).
	ValidFrom time.Time
	ValidTo   time.Time
	// RecordedAt is when the memory learned it; SupersededAt is when the
	// memory learned of its successor (zero if it has none in the view):
	// the later of the successor's record time and, for a value saved
	// after its own successor, its own.
	RecordedAt   time.Time
	SupersededAt time.Time
	// RetractedAt is the record time of the explicit link that retracted
	// the leaf, if one is in the view; a retracted entry is never current.
	RetractedAt time.Time
}

// Status says whether a leaf is outdated in a view, by what, and how a
// reader should be told.
type Status struct {
	Outdated bool
	// Successors are the leaves that supersede it in this view, best
	// first: explicit links (the newest end of a chain first), then the
	// leaves holding the current values of its facts (the most recent
	// statement, then the one that made the change).
	Successors []string
	// Notices are ready to show, one per superseded fact: "OUTDATED: On
	// 2024-03-11 you said you live in Madrid; on 2025-09-02 you said
	// Valencia." A leaf outdated only by a link gets none: the store words
	// that notice, with an excerpt of the successor's text.
	Notices []string
}

// Supersession is one change of value on one timeline.
type Supersession struct {
	Key Key
	// Old is the first statement of the superseded value, New the first
	// statement of the value that replaced it.
	Old, New Entry
	// RecordedAt is when the memory learned of the change.
	RecordedAt time.Time
}

// entry is one statement as stored, in its leaf's entries. Its leaf and
// dates are its leaf's (Timeline.infos): a store holds hundreds of
// thousands of entries, and copying the leaf's id and two dates into each
// would double what one costs. For the same reason the folded value is
// an index of the scope's value (Timeline.values) rather than a string
// of its own.
type entry struct {
	leaf   int32 // index in Timeline.infos
	norm   int32 // index in Timeline.values: the value folded for comparison
	s      *series
	value  string
	phrase string
}

// compare orders entries by valid time, then record time, then leaf.
func (t *Timeline) compare(a, b *entry) int {
	ia, ib := t.infos.at(a.leaf), t.infos.at(b.leaf)
	if ia.valid != exotic && ib.valid != exotic {
		if c := cmp.Compare(ia.valid, ib.valid); c != 0 {
			return c
		}
		if c := cmp.Compare(ia.rec, ib.rec); c != 0 {
			return c
		}
	} else {
		av, ar := t.dates(a.leaf)
		bv, br := t.dates(b.leaf)
		if c := av.Compare(bv); c != 0 {
			return c
		}
		if c := ar.Compare(br); c != 0 {
			return c
		}
	}
	return strings.Compare(ia.leaf, ib.leaf)
}

// series is one key's timeline.
type series struct {
	key Key
	// entries are ordered by compare; each points into its leaf's
	// entries, which never grow once the leaf is added.
	entries []*entry
}

// leafInfo is what the timeline keeps about one leaf: of its Source, what
// views and entries need (the scope only decides where facts are filed).
// Leaves are held by index in Timeline.infos rather than an allocation
// each, and their entries by value, in one allocation per leaf.
type leafInfo struct {
	leaf string
	// valid and rec are the dates as Unix nanoseconds: a time.Time is
	// three words, and the store's dates (UTC, read from leaf headers)
	// need one. A date a number cannot give back exactly — another
	// location, a monotonic reading, beyond 1678–2262 — makes valid the
	// exotic mark and both dates are kept whole in Timeline.exotic.
	valid, rec int64
	entries    []entry
}

// exotic marks a leafInfo whose dates are in Timeline.exotic.
const exotic = math.MinInt64

// unixNano returns t as Unix nanoseconds if that gives t back exactly.
func unixNano(t time.Time) (int64, bool) {
	n := t.UnixNano()
	// == on purpose: time.Time's Equal would ignore the location and
	// the monotonic reading, which Entry returns and comparisons use.
	return n, n != exotic && time.Unix(0, n).UTC() == t
}

// dates returns leaf i's valid and record times.
func (t *Timeline) dates(i int32) (valid, rec time.Time) {
	info := t.infos.at(i)
	if info.valid == exotic {
		d := t.exotic[i]
		return d[0], d[1]
	}
	return time.Unix(0, info.valid).UTC(), time.Unix(0, info.rec).UTC()
}

// validFrom returns leaf i's valid time.
func (t *Timeline) validFrom(i int32) time.Time {
	if n := t.infos.at(i).valid; n != exotic {
		return time.Unix(0, n).UTC()
	}
	return t.exotic[i][0]
}

// recordedAt returns leaf i's record time.
func (t *Timeline) recordedAt(i int32) time.Time {
	if info := t.infos.at(i); info.valid != exotic {
		return time.Unix(0, info.rec).UTC()
	}
	return t.exotic[i][1]
}

// valueInfo is one folded value of one scope: which series hold it,
// each with how many of its entries do.
type valueInfo struct {
	norm string
	refs []valueRef
}

// valueRef counts how many entries of a series hold one folded value.
type valueRef struct {
	s *series
	n int
}

type scopedValue struct{ scope, norm string }

// Timeline holds every fact timeline and every explicit link.
type Timeline struct {
	series  map[Key]*series
	leaves  map[string]int32 // index in infos
	infos   slots[leafInfo]
	exotic  map[int32][2]time.Time
	byValue map[scopedValue]int32 // index in values: resolves "switched from X"
	values  slots[valueInfo]
	links   map[string]map[string]time.Time
	back    map[string]map[string]bool // new → olds
	nfacts  int
	nleaves int // leaves with at least one fact
}

// New returns an empty Timeline.
func New() *Timeline {
	return &Timeline{
		series:  map[Key]*series{},
		leaves:  map[string]int32{},
		exotic:  map[int32][2]time.Time{},
		byValue: map[scopedValue]int32{},
		links:   map[string]map[string]time.Time{},
		back:    map[string]map[string]bool{},
	}
}

// Add files the facts a leaf states. Adding a leaf the timeline already
// holds does nothing; to change what a leaf says, Remove it first. A leaf
// with no facts is still recorded, because a Link to it takes effect only
// once its dates are known.
//
// A fact naming the old value it replaces ("switched from Jest to
// Vitest": From "Jest", often with no subject) is filed under the key, in
// the same scope, whose value at src.ValidFrom is From (ignoring case and
// accents); among several, the one whose value was stated most recently.
// If none is known it starts a timeline of its own, {From, "switched_to"}
// (or its own key when it names one), so that a later switch from the new
// value continues it. A value more than 32 keys of the scope have held is
// too common to resolve and is treated as unknown. Resolution uses what
// is known when Add runs:
// rebuild by adding leaves in record order to get the same timelines
// back.
//
// When one leaf states several values for one key, the last one counts:
// "I lived in Madrid, then moved to Valencia" is about Valencia.
func (t *Timeline) Add(src Source, fs []facts.Fact) {
	if src.Leaf == "" {
		return
	}
	if _, ok := t.leaves[src.Leaf]; ok {
		return
	}
	li := t.newLeaf(src)
	type pending struct {
		key Key
		f   facts.Fact
	}
	var list []pending
	// A leaf usually states a handful of facts, and a scan of them finds a
	// repeated key for less than a map costs to make; a long text (up to
	// a MiB) may state thousands, and gets the map.
	const scanUpTo = 16
	var index map[Key]int
	for _, f := range fs {
		if strings.TrimSpace(f.Value) == "" {
			continue
		}
		key, ok := t.resolve(src, f)
		if !ok {
			continue
		}
		i, dup := -1, false
		if index != nil {
			i, dup = index[key]
		} else {
			i = slices.IndexFunc(list, func(p pending) bool { return p.key == key })
			dup = i >= 0
		}
		if dup {
			list[i].f = f
			continue
		}
		list = append(list, pending{key, f})
		switch {
		case index != nil:
			index[key] = len(list) - 1
		case len(list) > scanUpTo:
			index = make(map[Key]int, 2*len(list))
			for i, p := range list {
				index[p.key] = i
			}
		}
	}
	if len(list) == 0 {
		return
	}
	// Exactly the room insert needs: series point into this array.
	t.infos.at(li).entries = make([]entry, 0, len(list))
	for _, p := range list {
		t.insert(li, p.key, p.f)
	}
	t.nleaves++
}

// newLeaf gives a leaf its place in infos and returns its index.
func (t *Timeline) newLeaf(src Source) int32 {
	li := t.infos.add()
	info := t.infos.at(li)
	info.leaf = src.Leaf
	valid, ok1 := unixNano(src.ValidFrom)
	rec, ok2 := unixNano(src.RecordedAt)
	if ok1 && ok2 {
		info.valid, info.rec = valid, rec
	} else {
		info.valid = exotic
		t.exotic[li] = [2]time.Time{src.ValidFrom, src.RecordedAt}
	}
	t.leaves[src.Leaf] = li
	return li
}

// maxHolders bounds how many keys of one scope may ever have held a value
// for "switched from" that value to pick one of them. A value held that
// widely ("8080", "true", "main") names no key in particular, and
// checking them all would make one Add cost as much as the whole store.
const maxHolders = 32

// resolve finds the key a fact belongs to. A fact that names the value it
// replaces (From) goes where that value is current: first its own key,
// if From is current there; else the key in the scope, with the same
// attribute and subject where the fact names them, whose current value is
// From; else its own key, or a key of its own when it names none. So "we
// switched from Webpack to Vite for bundling" supersedes "we use Webpack
// for the frontend bundling" although the two name the use differently.
func (t *Timeline) resolve(src Source, f facts.Fact) (Key, bool) {
	own := Key{src.Scope, f.Subject, f.Attribute}
	if strings.TrimSpace(f.From) == "" {
		return own, f.Subject != "" && f.Attribute != ""
	}
	// A value no entry of the scope holds is current nowhere in it.
	from, known := t.byValue[scopedValue{src.Scope, Fold(f.From)}]
	at := View{AsOf: src.ValidFrom}.window()
	if s := t.series[own]; s != nil && known {
		if i := t.currentIndex(s, at); i >= 0 && s.entries[i].norm == from {
			return own, true
		}
	}
	var best *entry
	var refs []valueRef
	if known {
		refs = t.values.at(from).refs
	}
	if len(refs) > maxHolders {
		refs = nil // too common a value to say which key it means
	}
	for _, ref := range refs {
		s := ref.s
		if f.Attribute != "" && s.key.Attribute != f.Attribute ||
			f.Subject != "" && f.Attribute == "" && s.key.Subject != f.Subject {
			continue
		}
		i := t.currentIndex(s, at)
		if i < 0 || s.entries[i].norm != from {
			continue
		}
		if e := s.entries[i]; best == nil || t.compare(e, best) > 0 ||
			t.compare(e, best) == 0 && keyCompare(s.key, best.s.key) < 0 {
			best = e
		}
	}
	switch {
	case best != nil:
		return best.s.key, true
	case f.Subject != "":
		return Key{src.Scope, f.Subject, cmp.Or(f.Attribute, "is")}, true
	}
	subject := facts.NormalizeSubject(f.From)
	if subject == "" {
		return Key{}, false
	}
	return Key{src.Scope, subject, "switched_to"}, true
}

// keyCompare orders keys by scope, subject, then attribute.
func keyCompare(a, b Key) int {
	return cmp.Or(strings.Compare(a.Scope, b.Scope), strings.Compare(a.Subject, b.Subject),
		strings.Compare(a.Attribute, b.Attribute))
}

// insert adds one statement of leaf li to its key's timeline. Timelines
// arrive mostly in valid-time order, so the binary search usually lands
// at the end; a backdated statement costs a move of the entries after
// it, one copy even for the rare key with thousands of entries.
func (t *Timeline) insert(li int32, key Key, f facts.Fact) {
	s := t.series[key]
	if s == nil {
		s = &series{key: key}
		t.series[key] = s
	}
	value := strings.TrimSpace(f.Value)
	vi := t.holdValue(key.Scope, Fold(value), s)
	// The same text, held once: the folded value when it is the value,
	// else the phrase's copy (a phrase usually says the value), so that
	// the fact's own copy need not be kept.
	if norm := t.values.at(vi).norm; value == norm {
		value = norm
	} else if i := strings.Index(f.Phrase, value); i >= 0 {
		value = f.Phrase[i : i+len(value)]
	}
	info := t.infos.at(li)
	info.entries = append(info.entries, entry{leaf: li, norm: vi, s: s, value: value, phrase: f.Phrase})
	e := &info.entries[len(info.entries)-1]
	if n := len(s.entries); n == 0 || t.compare(s.entries[n-1], e) < 0 {
		s.entries = append(s.entries, e) // in order, the common case
	} else {
		i, _ := slices.BinarySearchFunc(s.entries, e, t.compare)
		s.entries = slices.Insert(s.entries, i, e)
	}
	t.nfacts++
}

// holdValue counts one more entry of s holding the folded value norm and
// returns the value's index in values.
func (t *Timeline) holdValue(scope, norm string, s *series) int32 {
	sv := scopedValue{scope, norm}
	vi, ok := t.byValue[sv]
	if !ok {
		vi = t.values.add()
		t.values.at(vi).norm = norm
		t.byValue[sv] = vi
	}
	v := t.values.at(vi)
	for i := range v.refs {
		if v.refs[i].s == s {
			v.refs[i].n++
			return vi
		}
	}
	v.refs = append(v.refs, valueRef{s, 1})
	return vi
}

// Remove takes a leaf out of every timeline and every link, as if it had
// never been added: this is what forgetting a memory does. Restoring it
// is Add and Link again.
func (t *Timeline) Remove(leaf string) {
	if li, ok := t.leaves[leaf]; ok {
		info := t.infos.at(li)
		for i := range info.entries {
			t.removeEntry(&info.entries[i])
		}
		if len(info.entries) > 0 {
			t.nleaves--
		}
		t.infos.remove(li)
		delete(t.exotic, li)
		delete(t.leaves, leaf)
	}
	for n := range t.links[leaf] {
		delete(t.back[n], leaf)
		if len(t.back[n]) == 0 {
			delete(t.back, n)
		}
	}
	delete(t.links, leaf)
	for o := range t.back[leaf] {
		delete(t.links[o], leaf)
		if len(t.links[o]) == 0 {
			delete(t.links, o)
		}
	}
	delete(t.back, leaf)
}

func (t *Timeline) removeEntry(e *entry) {
	s := e.s
	i, found := slices.BinarySearchFunc(s.entries, e, t.compare)
	if found && s.entries[i] == e {
		s.entries = slices.Delete(s.entries, i, i+1)
	}
	if len(s.entries) == 0 {
		delete(t.series, s.key)
	}
	t.nfacts--
	v := t.values.at(e.norm)
	for i := range v.refs {
		if v.refs[i].s == s {
			if v.refs[i].n--; v.refs[i].n == 0 {
				v.refs = slices.Delete(v.refs, i, i+1)
			}
			break
		}
	}
	if len(v.refs) == 0 {
		delete(t.byValue, scopedValue{s.key.Scope, v.norm})
		t.values.remove(e.norm)
	}
}

// Link records that leaf new supersedes leaf old (replaces,
// mark_outdated), learned at recordedAt. Linking the same pair again
// changes nothing, not even the record time. The link takes effect in a
// view once it is known (recordedAt ≤ KnownAt) and new is true (its
// ValidFrom ≤ AsOf) and held by the timeline (added, not removed).
func (t *Timeline) Link(old, new string, recordedAt time.Time) {
	if old == "" || new == "" || old == new {
		return
	}
	if _, ok := t.links[old][new]; ok {
		return
	}
	if t.links[old] == nil {
		t.links[old] = map[string]time.Time{}
	}
	t.links[old][new] = recordedAt
	if t.back[new] == nil {
		t.back[new] = map[string]bool{}
	}
	t.back[new][old] = true
}

// Shares reports whether leaves a and b state a fact on one key: then
// the timeline has compared their values, and its verdict on which is
// current is known, not guessed.
func (t *Timeline) Shares(a, b string) bool {
	la, ok := t.leaves[a]
	if !ok {
		return false
	}
	lb, ok := t.leaves[b]
	if !ok {
		return false
	}
	for i := range t.infos.at(la).entries {
		for j := range t.infos.at(lb).entries {
			if t.infos.at(la).entries[i].s == t.infos.at(lb).entries[j].s {
				return true
			}
		}
	}
	return false
}

// KeysOf returns the keys facts fs, saved as src, fall on (see resolve).
func (t *Timeline) KeysOf(src Source, fs []facts.Fact) []Key {
	var out []Key
	for _, f := range fs {
		if k, ok := t.resolve(src, f); ok {
			out = append(out, k)
		}
	}
	return out
}

// States reports whether leaf states a value on one of keys: then the
// timeline orders it against the facts those keys came from (the
// pattern-read facts are the certain kind of supersession).
func (t *Timeline) States(leaf string, keys []Key) bool {
	li, ok := t.leaves[leaf]
	if !ok || len(keys) == 0 {
		return false
	}
	for i := range t.infos.at(li).entries {
		if slices.Contains(keys, t.infos.at(li).entries[i].s.key) {
			return true
		}
	}
	return false
}

// Leaves returns how many leaves state at least one fact.
func (t *Timeline) Leaves() int { return t.nleaves }

// Facts returns how many fact statements the timelines hold.
func (t *Timeline) Facts() int { return t.nfacts }

// Fold returns the form values are compared in: lower case, accents
// removed, runs of white space made one space, trimmed. "  Málaga " and
// "malaga" are the same value; so are "PostgreSQL 17" and "postgresql 17".
func Fold(s string) string {
	if folded(s) {
		return s
	}
	return fold(s)
}

func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r >= 0x300 && r <= 0x36f: // combining accents
			continue
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == 0xa0 || r == '\v' || r == '\f':
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if r < 0x80 {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		b.WriteString(foldRune(r))
	}
	return b.String()
}

// folded reports whether s is already in the form Fold returns — ASCII,
// no upper case, words apart by single spaces — as most subjects and many
// values are, so Fold can return it without building a copy.
func folded(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	space := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80 || c >= 'A' && c <= 'Z' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			return false
		case c == ' ':
			if space {
				return false
			}
			space = true
		default:
			space = false
		}
	}
	return true
}

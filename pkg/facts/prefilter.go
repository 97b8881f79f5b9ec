package facts

import (
	"regexp/syntax"
	"slices"
	"strings"
)

// The prefilter keeps extraction linear in the size of the text. Running
// every pattern's regular expression on every sentence would cost
// patterns × text, and Go's regular expressions are slow next to a
// literal search; instead each pattern is reduced, once, to a few requirements —
// sets of literal strings one of which any match must contain: {"moved",
// "relocated"} and {" to "} — all the literals go into one Aho-Corasick
// automaton, and a single pass over the text says which sentences meet
// every requirement of which pattern. Only those run. The automaton compares ASCII letters without
// case and everything else exactly, so non-ASCII parts of literals are
// dropped from them ("mudé" is looked for as "mud"): the filter may let a
// sentence through in vain, never hold one back — except for the two
// exotic Unicode case variants of ASCII letters (the Kelvin sign and the
// long s), which the regular expressions would fold and the filter does not.

// maxLiterals bounds the literal set of one node; past it the node is
// treated as having none, which only costs speed.
const maxLiterals = 64

// exactSet returns every string re can match, lower-cased, when that set is
// finite and small; ok is false otherwise. Zero-width assertions match "".
func exactSet(re *syntax.Regexp) (set []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
			if n > 4 {
				return nil, false
			}
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, strings.ToLower(string(r)))
			}
		}
		return dedupe(set), true
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpBeginLine, syntax.OpBeginText,
		syntax.OpEndLine, syntax.OpEndText:
		return []string{""}, true
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpQuest:
		s, ok := exactSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		return dedupe(append(s, "")), true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			set = append(set, s...)
			if len(set) > maxLiterals {
				return nil, false
			}
		}
		return dedupe(set), true
	case syntax.OpConcat:
		set = []string{""}
		for _, sub := range re.Sub {
			s, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			if set, ok = product(set, s); !ok {
				return nil, false
			}
		}
		return set, true
	}
	return nil, false
}

// product concatenates every string of a with every string of b.
func product(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxLiterals {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out), true
}

func dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// required returns a set of literals one of which every match of re
// contains, or nil if it cannot tell.
func required(re *syntax.Regexp) []string {
	if s, ok := exactSet(re); ok {
		return usable(s)
	}
	if sub := wrapped(re); sub != nil {
		return required(sub)
	}
	switch re.Op {
	case syntax.OpAlternate:
		return unionOf(re.Sub, required)
	case syntax.OpConcat:
		// The best candidate of the whole concatenation wins.
		var best []string
		keep := func(c []string) {
			if better(c, best) {
				best = c
			}
		}
		concatRuns(re.Sub, keep, func(sub *syntax.Regexp) { keep(required(sub)) })
		return best
	}
	return nil
}

// wrapped returns the sub-expression re merely wraps: re is a capture, a
// plus or a repeat at least once, so every match of re holds a match of
// it, and what re requires or starts with is what it does. Anything else
// gives nil — an optional repeat too, which may match nothing of it.
func wrapped(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return re.Sub[0]
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return re.Sub[0]
		}
	}
	return nil
}

// unionOf returns the union of f over subs, the alternatives of an
// alternation, or nil if f knows nothing of one of them or the union is
// too large to be worth looking for.
func unionOf(subs []*syntax.Regexp, f func(*syntax.Regexp) []string) []string {
	var out []string
	for _, sub := range subs {
		s := f(sub)
		if s == nil {
			return nil
		}
		out = append(out, s...)
	}
	if out = dedupe(out); len(out) > maxLiterals {
		return nil
	}
	return out
}

// concatRuns walks the children of a concatenation. Runs of adjacent exact
// children concatenate into longer, more selective literals (" is " rather
// than "is"): each run, made usable, goes to lit (nil when it yields
// nothing), as long as its set stays small; every other child goes to
// other, in order.
func concatRuns(subs []*syntax.Regexp, lit func([]string), other func(*syntax.Regexp)) {
	run := []string{""}
	flush := func() {
		lit(usable(run))
		run = []string{""}
	}
	for _, sub := range subs {
		if s, ok := exactSet(sub); ok {
			if p, ok := product(run, s); ok {
				run = p
				continue
			}
			flush()
			run = s
			continue
		}
		flush()
		other(sub)
	}
	flush()
}

// usable reduces a literal set to what the automaton can look for — the
// longest ASCII run of each string — and returns nil if some string has
// nothing left, since then the set no longer proves anything.
func usable(set []string) []string {
	out := make([]string, 0, len(set))
	for _, s := range set {
		r := longestASCII(s)
		if strings.TrimSpace(r) == "" {
			return nil
		}
		out = append(out, r)
	}
	return dedupe(out)
}

func longestASCII(s string) string {
	best, start := "", -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] < 0x80 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

// better prefers the set whose shortest literal is longest (rarer in
// text), then the smaller set.
func better(a, b []string) bool {
	if a == nil {
		return false
	}
	if b == nil {
		return true
	}
	ma, mb := minLen(a), minLen(b)
	if ma != mb {
		return ma > mb
	}
	return len(a) < len(b)
}

func minLen(set []string) int {
	m := 8
	for _, s := range set {
		if len(s) < m {
			m = len(s)
		}
	}
	return m
}

// maxRequirements bounds how many literal sets one pattern is checked
// against; the most selective are kept.
const maxRequirements = 4

// requirements returns literal sets each of which has a member in every
// match of re (so all must hit for re to match), most selective first.
func requirements(re *syntax.Regexp) [][]string {
	var out [][]string
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if sub := wrapped(re); sub != nil {
			walk(sub)
			return
		}
		if re.Op == syntax.OpConcat {
			concatRuns(re.Sub, func(c []string) {
				if c != nil {
					out = append(out, c)
				}
			}, walk)
			return
		}
		if c := required(re); c != nil {
			out = append(out, c)
		}
	}
	walk(re)
	// Most selective first; drop duplicates.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && better(out[j], out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	// A set with a one- or two-letter literal ("i" of "I've") is met by
	// almost every sentence: it filters nothing and costs a hit at every
	// occurrence, so it is dropped unless nothing better is known.
	kept := out[:0]
	for i, set := range out {
		if i == 0 || minLen(set) >= 3 {
			kept = append(kept, set)
		}
	}
	if len(kept) > maxRequirements {
		kept = kept[:maxRequirements]
	}
	return kept
}

// automaton is an Aho-Corasick matcher over lower-cased ASCII literals,
// compiled to a dense transition table over byte classes.
type automaton struct {
	class      [256]uint8
	width      int     // number of byte classes
	delta      []int32 // state*width + class → state
	out        [][]int32
	lenOf      []int
	owners     [][]owner // literal → the requirements of sentence patterns it meets
	lineOwners [][]owner // literal → the requirements of line patterns it meets
}

// owner is one requirement a literal meets: requirement bit of pattern pat.
type owner struct {
	pat   int
	bit   uint8
	check bool // met only where what follows the literal may be the pattern's value
}

// newAutomaton builds the matcher for the given literals; owners[i] lists
// the requirements literal i meets.
func newAutomaton(lits []string, owners, lineOwners [][]owner) *automaton {
	a := &automaton{owners: owners, lineOwners: lineOwners, lenOf: make([]int, len(lits))}
	next := 1
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			if a.class[l[i]] == 0 {
				a.class[l[i]] = uint8(next)
				next++
			}
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		a.class[c-'a'+'A'] = a.class[c]
	}
	a.width = next
	// Build the trie; -1 marks a missing edge until the failure links fill it.
	newState := func() int32 {
		for i := 0; i < a.width; i++ {
			a.delta = append(a.delta, -1)
		}
		a.out = append(a.out, nil)
		return int32(len(a.out) - 1)
	}
	newState()
	for id, l := range lits {
		a.lenOf[id] = len(l)
		s := int32(0)
		for i := 0; i < len(l); i++ {
			c := int32(a.class[l[i]])
			if a.delta[s*int32(a.width)+c] < 0 {
				n := newState()
				a.delta[s*int32(a.width)+c] = n
			}
			s = a.delta[s*int32(a.width)+c]
		}
		a.out[s] = append(a.out[s], int32(id))
	}
	// Breadth-first: failure links, outputs inherited along them, and the
	// missing edges replaced by the failure target's edges.
	fail := make([]int32, len(a.out))
	queue := []int32{}
	for c := 0; c < a.width; c++ {
		if t := a.delta[c]; t > 0 {
			fail[t] = 0
			queue = append(queue, t)
		} else {
			a.delta[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		a.out[s] = append(a.out[s], a.out[fail[s]]...)
		for c := 0; c < a.width; c++ {
			i := s*int32(a.width) + int32(c)
			if t := a.delta[i]; t >= 0 {
				fail[t] = a.delta[fail[s]*int32(a.width)+int32(c)]
				queue = append(queue, t)
			} else {
				a.delta[i] = a.delta[fail[s]*int32(a.width)+int32(c)]
			}
		}
	}
	return a
}

// scan calls hit(start, end, literal) for every occurrence of a literal in
// text, in order of end offset.
func (a *automaton) scan(text string, hit func(start, end int, lit int32)) {
	s := int32(0)
	w := int32(a.width)
	for i := 0; i < len(text); i++ {
		s = a.delta[s*w+int32(a.class[text[i]])]
		for _, id := range a.out[s] {
			hit(i+1-a.lenOf[id], i+1, id)
		}
	}
}

// startSet returns the strings one of which every match of re starts
// with (lower case, cut to their leading ASCII run), and whether re begins
// with \b; nil if it cannot tell. Matching is then tried only where one of
// them occurs instead of at every offset: a pattern that begins with its
// subject ("the staging database is…") would otherwise try its whole
// determiner alternation at every byte of every sentence.
func startSet(re *syntax.Regexp) (set []string, boundary bool) {
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 && re.Sub[0].Op == syntax.OpWordBoundary {
		sub := *re
		sub.Sub = re.Sub[1:]
		set, _ = startSet(&sub)
		return set, true
	}
	set = prefixSet(re)
	for i, s := range set {
		j := 0
		for j < len(s) && s[j] < 0x80 {
			j++
		}
		if j == 0 {
			return nil, false
		}
		set[i] = s[:j]
	}
	return dedupe(set), false
}

// prefixSet returns the strings one of which every match of re starts
// with, or nil.
func prefixSet(re *syntax.Regexp) []string {
	if sub := wrapped(re); sub != nil {
		return prefixSet(sub)
	}
	switch re.Op {
	case syntax.OpConcat:
		return prefixSeq(re.Sub)
	case syntax.OpAlternate:
		return unionOf(re.Sub, prefixSet)
	}
	if s, ok := exactSet(re); ok && !containsEmptyString(s) {
		return s
	}
	return nil
}

// prefixSeq is prefixSet of a concatenation. An optional first element
// ("(?:now )?use") makes the set a union: the match starts either with it
// or with what follows.
func prefixSeq(subs []*syntax.Regexp) []string {
	if len(subs) == 0 {
		return nil
	}
	s, ok := exactSet(subs[0])
	if !ok {
		return prefixSet(subs[0])
	}
	var nonEmpty []string
	for _, x := range s {
		if x != "" {
			nonEmpty = append(nonEmpty, x)
		}
	}
	if len(nonEmpty) == len(s) {
		// Extend by what follows when that stays small: longer prefixes
		// are found at fewer places.
		if rest := prefixSeq(subs[1:]); rest != nil {
			if p, ok := product(s, rest); ok {
				return p
			}
		}
		return s
	}
	rest := prefixSeq(subs[1:])
	if rest == nil {
		return nil
	}
	out := dedupe(append(nonEmpty, rest...))
	if len(out) > maxLiterals {
		return nil
	}
	return out
}

// firstClass returns the character class every match of re starts with,
// as rune ranges, when re starts with one (a capitalised name:
// \p{Lu}); nil otherwise.
func firstClass(re *syntax.Regexp) []rune {
	for {
		if sub := wrapped(re); sub != nil {
			re = sub
			continue
		}
		switch re.Op {
		case syntax.OpConcat:
			if len(re.Sub) == 0 {
				return nil
			}
			re = re.Sub[0]
		case syntax.OpCharClass:
			return re.Rune
		default:
			return nil
		}
	}
}

func containsEmptyString(set []string) bool {
	for _, s := range set {
		if s == "" {
			return true
		}
	}
	return false
}

// valuePrefixes returns the strings one of which immediately precedes the
// value group in every match (" is ", " are "), lower case and ASCII, or
// nil if the regex does not say. Before running such a pattern, the words
// after each occurrence can be checked for looking like a value at all.
func valuePrefixes(re *syntax.Regexp, valueGroup int) []string {
	var found []string
	count := 0
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if re.Op == syntax.OpConcat {
			for i, sub := range re.Sub {
				if sub.Op == syntax.OpCapture && sub.Cap == valueGroup {
					count++
					// The nearest few strings are enough, and fewer are
					// faster to look for: stop before the set grows past 8.
					acc := []string{""}
					for j := i - 1; j >= 0; j-- {
						s, ok := exactSet(re.Sub[j])
						if !ok {
							break
						}
						p, ok := product(s, acc)
						if !ok || len(p) > 8 && !containsEmptyString(acc) {
							break
						}
						acc = p
					}
					found = acc
				}
			}
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	walk(re)
	if count != 1 {
		return nil
	}
	for _, s := range found {
		if strings.TrimSpace(s) == "" || longestASCII(s) != s {
			return nil
		}
	}
	return found
}

// leadFollowers returns, when re is a concatenation that begins with a
// capture group (after an optional \b), that group's number and the
// strings one of which must follow it (ASCII, lower case). A match
// starting at a word can then only end its leading group at a word end
// followed by one of them, which is checked before the regex runs: most
// words of a sentence are not followed by " listens on".
func leadFollowers(re *syntax.Regexp) (group int, followers []string) {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return 0, nil
	}
	subs := re.Sub
	if subs[0].Op == syntax.OpWordBoundary {
		subs = subs[1:]
	}
	if len(subs) < 2 || subs[0].Op != syntax.OpCapture {
		return 0, nil
	}
	f := prefixSeq(subs[1:])
	if f == nil {
		return 0, nil
	}
	for i, x := range f {
		if r := longestASCII(x); r == "" || !strings.HasPrefix(x, r) {
			return 0, nil
		} else {
			f[i] = r
		}
	}
	return subs[0].Cap, dedupe(f)
}

// afterWords finds which of a few strings occur right after a word: the
// strings that must follow a pattern's leading group (" is ", " listens
// on") or precede its value. Each starts at a word's end, inside its
// trailing punctuation ("Ana, is") or, for strings that begin with a
// letter, at the word's start; indexing them by their first three bytes
// makes the check a map lookup per word instead of a search per string.
type afterWords struct {
	keys  []uint32   // first three bytes
	lists [][]string // the strings with each key
	short []string   // shorter than three bytes
}

func key3(s string, i int) uint32 {
	return uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2])
}

func newAfterWords(set []string) *afterWords {
	if set == nil {
		return nil
	}
	a := &afterWords{}
	for _, s := range set {
		if len(s) < 3 {
			a.short = append(a.short, s)
			continue
		}
		k := key3(s, 0)
		i := slices.Index(a.keys, k)
		if i < 0 {
			i = len(a.keys)
			a.keys = append(a.keys, k)
			a.lists = append(a.lists, nil)
		}
		a.lists[i] = append(a.lists[i], s)
	}
	return a
}

// candidates returns the strings that may start at offset i of s.
func (a *afterWords) candidates(s string, i int) []string {
	if i+3 > len(s) {
		return nil
	}
	k := key3(s, i)
	for j, x := range a.keys {
		if x == k {
			return a.lists[j]
		}
	}
	return nil
}

// match returns whether one of the strings starts at offset i of s.
func (a *afterWords) match(s string, i int) bool {
	for _, x := range a.short {
		if strings.HasPrefix(s[i:], x) {
			return true
		}
	}
	for _, x := range a.candidates(s, i) {
		if strings.HasPrefix(s[i:], x) {
			return true
		}
	}
	return false
}

// after reports whether one of the strings starts where word w ends (or
// inside its trailing punctuation, or at its start).
func (a *afterWords) after(s string, w word) bool {
	if a.match(s, w.end) || a.match(s, w.start) {
		return true
	}
	for j := w.end - 1; j > w.start && strings.IndexByte(",;:.!?)'\"*", s[j]) >= 0; j-- {
		if a.match(s, j) {
			return true
		}
	}
	return false
}

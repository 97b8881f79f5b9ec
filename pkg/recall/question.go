package recall

import (
	"math/bits"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// What a question asks about, beyond its words: the names it gives, the
// kind of value it wants, the concepts it touches. "Not found" is decided
// from these: a question about a tool the memory has never heard of, or
// for a phone number nobody stored, is not answered by a memory that
// shares its other words (see judge).

// question is what a search knows of its question.
type question struct {
	text   string
	asked  asked
	wants  lexicon.Type
	names  []string // the capitalised words it names, as terms
	naming []string // the same, as written
	// bare are the names given alone: "Marta", not "Marta Gil".
	bare []string
	// period is the month or year the question names, if any.
	period     struct{ start, end time.Time }
	periodName string
	// owns is what it asks of whom ("Yerba's microchip number").
	owns ownership
	// projects are the projects the question names, by group.
	projects []index.Group
	// held, when it wants a kind of value, tells whether a memory holds
	// one, each memory's text read once per search (holdsMemo); nil when it
	// wants none.
	held func(index.Doc) bool
	// from is the project the question is asked from, "" when asked from
	// none or from one with no memories of its own (a directory never
	// worked in): then it is asked from the global part.
	from string
}

func (s *searcher) questionOf(text string, terms []string, from string) question {
	q := question{text: text, asked: s.askedOf(text, terms), wants: s.lex.Asks(text)}
	if g, ok := s.r.Group(from); ok && g != 0 && s.ix.GroupLen(g) > 0 {
		q.from = from
	}
	if start, end, ok := dates.Period(text, s.r.Now()); ok {
		q.period.start, q.period.end = start, end
		q.periodName = periodName(start, end)
	}
	q.projects = s.projectsNamed(terms)
	q.owns = ownershipIn(text)
	q.naming = namesIn(text)
	for _, n := range q.naming {
		q.names = append(q.names, strings.Join(tokenize.Words(n), " "))
	}
	q.bare = bareNames(text, q.names)
	q.held = s.holdsMemo(q)
	return q
}

// namesIn returns the words of text that name something: capitalised
// (or with a capital inside, "GraphQL") where a sentence does not start,
// of three letters or more (not "I", "Dr", an initial), not in quotes, not
// a day or a month (time is the moment's business).
func namesIn(text string) []string {
	var out []string
	midSentence(text, func(w string, quoted bool) {
		if !quoted && len([]rune(w)) > 2 && hasUpper(w) && !lexicon.IsDateWord(w) {
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
		}
	})
	return out
}

// midSentence calls fn with each word of text that does not open a
// sentence, without the punctuation around it, and whether it stands in
// quotes (a title in quotes, "The Four Seasons", is capitalised as a
// title, not as names).
func midSentence(text string, fn func(w string, quoted bool)) {
	opening, quoted := true, false
	for _, raw := range strings.Fields(text) {
		w := strings.TrimFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if strings.ContainsAny(raw[:1], "\"“«") {
			quoted = true
		}
		if w != "" && !opening {
			fn(w, quoted)
		}
		if strings.ContainsAny(raw[len(raw)-1:], "\"”»") {
			quoted = false
		}
		if w != "" {
			// The next word opens a sentence after one that ends one
			// ("…yes or no? Answer in a word.").
			opening = strings.ContainsAny(raw[len(raw)-1:], ".?!")
		}
	}
}

// bareNames returns those of names (terms) that text gives alone, not
// next to another of them ("Marta" in "what does Marta do?", not in "what
// does Marta Gil do?").
func bareNames(text string, names []string) []string {
	words := strings.Fields(text)
	term := func(i int) string {
		if i < 0 || i >= len(words) {
			return ""
		}
		w := strings.TrimFunc(words[i], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		return strings.Join(tokenize.Words(w), " ")
	}
	var out []string
	for i := range words {
		t := term(i)
		if slices.Contains(names, t) && !slices.Contains(names, term(i-1)) && !slices.Contains(names, term(i+1)) {
			out = append(out, t)
		}
	}
	return out
}

func hasUpper(w string) bool {
	for _, r := range w {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// unknownName returns the first name the question gives that no memory
// the caller may see holds, as written; a word that asks for a kind of
// value ("URL", "IP") is what is asked, not a name.
func (s *searcher) unknownName(q question, vis func(index.Group) bool) string {
	for i, n := range q.names {
		if n == "" || strings.Contains(n, " ") || slices.Contains(q.wants.Cue, n) {
			continue
		}
		if !s.seen(n, vis) {
			return q.naming[i]
		}
	}
	return ""
}

// unseen reports whether half or more of terms are in no memory the
// caller may see: what the question is about was never stored ("stadium
// tickets for the kubernetes cluster"). One unseen word of a long question
// is more often its own wording of what is stored ("which assertion
// library…" of "std testing + go-cmp, no testify").
func (s *searcher) unseen(terms []string, vis func(index.Group) bool) bool {
	n := 0
	for _, t := range terms {
		if !s.seen(t, vis) {
			n++
		}
	}
	return n > 0 && 2*n >= len(terms)
}

// seen reports whether a memory the caller may see holds term t.
func (s *searcher) seen(t string, vis func(index.Group) bool) bool {
	return s.ix.Holds(t, vis)
}

// holds reports whether a ranked memory holds a value of the kind the
// question wants, about whom the question names.
func (s *searcher) holds(q question, r ranked) bool {
	for _, n := range q.names {
		if !s.ix.Contains(r.doc, n) && !slices.Contains(q.wants.Cue, n) {
			return false // the value is someone else's: "Quino's email"
		}
	}
	return s.lex.Holds(q.wants, s.r.Text(r.doc).Text)
}

// holdsMemo returns, when the question wants a kind of value, a function
// telling whether a memory holds one, each memory's text read once; nil
// when it wants none.
func (s *searcher) holdsMemo(q question) func(index.Doc) bool {
	if q.wants.Name == "" {
		return nil
	}
	seen := map[index.Doc]bool{}
	return func(d index.Doc) bool {
		h, ok := seen[d]
		if !ok {
			h = s.holds(q, ranked{doc: d})
			seen[d] = h
		}
		return h
	}
}

// preferHolding moves to the top the first memory near the best that
// holds the kind of value the question wants, when the best holds none:
// "which port…" is answered by the memory with a port in it. It reports
// whether the top memory now holds one.
func (s *searcher) preferHolding(order []ranked, q question, tr *tracer) bool {
	if q.wants.Name == "" || len(order) == 0 {
		return true
	}
	if q.held(order[0].doc) {
		return true
	}
	for i := 1; i < min(len(order), holdingWindow); i++ {
		r := order[i]
		if !r.current || r.score < holdingShare*order[0].score {
			continue
		}
		if q.held(r.doc) {
			copy(order[1:i+1], order[:i])
			order[0] = r
			tr.moved(r.doc, "holding", "moved first: it holds a ", q.wants.Name)
			return true
		}
	}
	return false
}

// holdingWindow memories within holdingShare of the best's score may
// stand in for it when it holds no value of the kind asked.
const (
	holdingWindow = 5
	holdingShare  = 0.35
)

// Two referents of one name: "what does Marta do?" when one memory is
// about Marta Gil and another about Marta Quintero is a question for the
// person, however the scores fall. A memory's referent of a name is the
// name with the capitalised words that follow it ("Marta Gil"), or, for a
// name given as an alias in parentheses or quotes, the capitalised words
// before them ("Samir Haddad ('Sam' on Slack)"); a bare name ("Marta
// said…") refers to no one in particular and matches either.

// referentWindow: memories scoring within this share of the best are
// asked whom they mean.
const referentWindow = 0.3

// referents returns the positions in order of the memories naming a
// referent of a name the question gives, when they name two or more
// different ones.
func (s *searcher) referents(order []ranked, q question) []int {
	if len(q.bare) == 0 || len(order) < 2 {
		return nil
	}
	for _, name := range q.bare {
		// A best memory that does not name them was ranked by the
		// question's other words ("prefers" of "what does Nico prefer?"):
		// then the memories that name them, wherever they rank, tell whom
		// it may mean, by a full name wherever the text gives one.
		scan := !s.ix.Contains(order[0].doc, name)
		pool := order[:min(len(order), verdict.MaxCandidates+1)]
		if scan {
			pool = order
		}
		var seen []string
		var at []int
		plain := -1 // the first memory naming them by the name alone
		for i, r := range pool {
			if len(at) == verdict.MaxCandidates {
				break
			}
			if !scan && r.score < referentWindow*order[0].score || !s.ix.Contains(r.doc, name) || !s.sameKind(order[0], r) {
				continue
			}
			u := s.nameUse(r.doc, name)
			ref := u.ref
			if scan && (ref == "" || ref == name) {
				ref = u.full
			}
			if ref == "" || ref == name {
				if plain < 0 && u.capital {
					plain = i
				}
				continue
			}
			if !slices.Contains(seen, ref) {
				seen = append(seen, ref)
			}
			at = append(at, i)
		}
		// The name alone, in a part of the store where no full name was
		// given ("my brother Martín" among personal memories, "Martín
		// Quiroga" in a project's), is someone else still.
		if len(seen) >= 1 && plain >= 0 && len(at) < verdict.MaxCandidates && s.apartFromAll(order, plain, at) && s.unlike(order, plain, at, q) {
			seen = append(seen, name)
			at = append(at, plain)
		}
		if len(seen) >= 2 {
			return at
		}
	}
	return nil
}

// nameUse is how a memory's text gives a name (a term): the referent it
// names (referent); when that is the name alone, the first full name it
// gives anywhere (namedIn) and whether it writes the name as a name at all
// (capitalised).
type nameUse struct {
	ref, full string
	capital   bool
}

func nameUseOf(text, name string) nameUse {
	u := nameUse{ref: referent(text, name)}
	if u.ref == "" || u.ref == name {
		u.full, u.capital = namedIn(text, name), capitalised(text, name)
	}
	return u
}

// unlike reports whether the memory at plain shares no word beyond the
// question's and the name's with any of the memories at full: "Lunch with
// Marta to go over the kelpie alerting rules" is about "Marta Gil, who
// owns kelpie's alerting rules", wherever each is kept; "Cumpleaños de mi
// hermano Martín" shares nothing with "Martín Quiroga is the SRE".
func (s *searcher) unlike(order []ranked, plain int, full []int, q question) bool {
	mine := map[string]bool{}
	for _, t := range tokenize.Terms(s.r.Text(order[plain].doc).Text) {
		if !q.asked.terms[t] && !tokenize.IsStopWord(t) {
			mine[t] = true
		}
	}
	return all(full, func(i int) bool {
		return !slices.ContainsFunc(tokenize.Terms(s.r.Text(order[i].doc).Text), func(t string) bool { return mine[t] })
	})
}

// namedIn returns, as terms, the first full name text gives for name (a
// term): the name and the capitalised words right after it, within one
// sentence ("Nico Albornoz" of "…en la clínica: Nico Albornoz
// (administración e IT)"); "" when it gives the name alone.
func namedIn(text, name string) string {
	words := strings.Fields(text)
	for i, w := range words {
		if core, poss := nameCore(w); !writesAsName(core, name) || poss || strings.ContainsAny(w[len(w)-1:], ".,;:!?)") {
			continue
		}
		run := []string{name}
		for _, next := range words[i+1:] {
			c, poss := nameCore(next)
			if c == "" || !unicode.IsUpper([]rune(c)[0]) || !unicode.IsLetter([]rune(next)[0]) {
				break
			}
			run = append(run, strings.Join(tokenize.Words(c), " "))
			if poss || strings.ContainsAny(next[len(next)-1:], ".,;:!?)") {
				break
			}
		}
		if len(run) > 1 {
			return strings.Join(run, " ")
		}
	}
	return ""
}

// capitalised reports whether text writes name (a term) as a name, with a
// capital: "Windows", not the "window" of "outside that window".
func capitalised(text, name string) bool {
	return slices.ContainsFunc(strings.Fields(text), func(w string) bool {
		core, _ := nameCore(w)
		return writesAsName(core, name)
	})
}

// nameCore is a word without what surrounds it and its possessive 's, and
// whether it had one.
func nameCore(w string) (core string, possessive bool) {
	core = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
	bare := strings.TrimSuffix(strings.TrimSuffix(core, "'s"), "’s")
	return bare, bare != core
}

// writesAsName reports whether core, a word's core, is name (a term)
// written with a capital.
func writesAsName(core, name string) bool {
	return core != "" && unicode.IsUpper([]rune(core)[0]) && strings.Join(tokenize.Words(core), " ") == name
}

// apartFromAll reports whether order[i] sits in a part of the tree
// (leaf.Header.Part) none of the memories at sits in.
func (s *searcher) apartFromAll(order []ranked, i int, at []int) bool {
	g := s.leaf(order[i].doc).Part()
	return !slices.ContainsFunc(at, func(j int) bool { return s.leaf(order[j].doc).Part() == g })
}

// referent returns whom text means by name (a term), when the text is
// about them — the name opens it ("Marta Gil is the SRE…"), or is given as
// an alias right after the name that does ("Samir Haddad ('Sam' on
// Slack)…"): the name and its surname as terms ("marta gil"), or the name
// alone when it stands bare. A name mentioned in passing ("…pushes to Alex
// Pardo's NAS", "React Testing Library") says nothing of whom the question
// means: "".
func referent(text, name string) string {
	words := strings.Fields(text)
	opening := len(strings.Fields(capitalRun(words, false)))
	for i, w := range words[:min(len(words), opening+3)] {
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		core = strings.TrimSuffix(strings.TrimSuffix(core, "'s"), "’s")
		if core == "" || strings.Join(tokenize.Words(core), " ") != name {
			continue
		}
		switch {
		case i == 0 && opening > 1:
			return capitalRun(words[:opening], false)
		case i == 0:
			return name
		case i >= opening && strings.ContainsAny(w[:1], "('\"‘“"):
			return capitalRun(words[:opening], false)
		}
	}
	return ""
}

// capitalRun returns, as terms, the run of capitalised words at the end
// (fromEnd) or the start of words.
func capitalRun(words []string, fromEnd bool) string {
	var run []string
	for k := range words {
		i := k
		if fromEnd {
			i = len(words) - 1 - k
		}
		w := strings.TrimFunc(words[i], func(r rune) bool { return !unicode.IsLetter(r) })
		if w == "" || !unicode.IsUpper([]rune(w)[0]) {
			break
		}
		run = append(run, strings.Join(tokenize.Words(w), " "))
	}
	if fromEnd {
		slices.Reverse(run)
	}
	return strings.Join(run, " ")
}

// covers reports whether rival holds every query term best holds — its
// light words aside when lightAside is set, and a term that
// asks for a kind of value ("port") counting as held when rival holds such
// a value (":9187").
func (s *searcher) covers(rival, best ranked, q Query, lightAside bool) bool {
	asked := best.matched
	if lightAside {
		asked = substantive(asked, q.terms, q.exp.namedTerms())
	}
	missing := asked &^ rival.matched
	if missing == 0 {
		return true
	}
	if q.ask.held == nil || !q.ask.held(rival.doc) {
		return false
	}
	for i, t := range q.terms {
		if missing&(1<<i) != 0 && !slices.Contains(q.ask.wants.Cue, t) {
			return false
		}
	}
	return true
}

func periodName(start, end time.Time) string {
	if end.Sub(start) > 32*24*time.Hour {
		return start.Format("2006")
	}
	return start.Format("January 2006")
}

// late reports whether a memory is about something after the period the
// question names: it became true after the period ended, and its text
// names a date, none within it. "What caused the outage in June 2024?" is
// not answered by "the outage after the 2024-10-25 deploy".
func (s *searcher) late(q question, r ranked) bool {
	if q.periodName == "" {
		return false
	}
	l := s.leaf(r.doc)
	if !l.ValidFrom.After(q.period.end) {
		return false
	}
	// Only a text that names its own time is known to be about another
	// one: "last summer" in a memory of next year may well be the period.
	text := s.r.Text(r.doc).Text
	if _, end, ok := dates.Opening(text); ok {
		text = text[end:] // the date it opens with is its own dating
	}
	if t, _, _, ok := dates.Find(text); ok {
		return t.Before(q.period.start) || t.After(q.period.end)
	}
	if start, end, ok := dates.Period(text, l.ValidFrom); ok {
		return start.After(q.period.end) || end.Before(q.period.start)
	}
	return false
}

// projectsNamed returns the projects whose name (the last part of the
// project key: "kelpie" in github.com/brightkelp/kelpie) is among the
// query's terms.
func (s *searcher) projectsNamed(terms []string) []index.Group {
	var out []index.Group
	for g, key := range s.r.Projects() {
		if key == "" {
			continue
		}
		name := tokenize.Terms(key[strings.LastIndexAny(key, "/:")+1:])
		if len(name) > 0 && all(name, func(t string) bool { return slices.Contains(terms, t) }) {
			out = append(out, index.Group(g))
		}
	}
	return out
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

// elsewhere reports whether a ranked memory belongs to a project other
// than those the question names (a global memory never does).
func (s *searcher) elsewhere(q question, r ranked) bool {
	if len(q.projects) == 0 {
		return false
	}
	l := s.leaf(r.doc)
	if l.Scope == leaf.ScopeGlobal {
		return false
	}
	return !slices.Contains(q.projects, s.groupOf(l))
}

// home reports whether r is in the part of the store the question is
// asked from: its project's memories, or the global ones when asked from
// none. Two things of one name in two other parts are two referents ("the
// staging database" of two projects, asked from outside both); of one at
// home and one elsewhere, the one at home is what the asker means.
func (s *searcher) home(r ranked, q question) bool {
	l := s.leaf(r.doc)
	if q.from == "" {
		return l.Scope == leaf.ScopeGlobal
	}
	return l.Scope != leaf.ScopeGlobal && l.Project == q.from
}

// preferHome moves to the top the first memory at home near the best when
// the best is from elsewhere and the one at home holds every query word
// the best holds: "What's the config file called?" asked in a project
// means the project's config file, not the laptop's ~/.ssh/config, when
// both answer it in as many words.
func (s *searcher) preferHome(order []ranked, q question, tr *tracer) {
	best := order[0]
	if q.from == "" || len(order) < 2 || s.home(best, q) || bits.OnesCount64(best.matched) < 2 {
		return // one word in common ("where do I live?") says too little of what is meant
	}
	for i := 1; i < min(len(order), holdingWindow); i++ {
		r := order[i]
		if !verdict.NearTie(best.score, r.score) {
			return
		}
		if r.current && s.home(r, q) && r.matched&best.matched == best.matched && KindOf(&s.leaf(r.doc).Header) == KindStated {
			copy(order[1:i+1], order[:i])
			order[0] = r
			tr.moved(r.doc, "prefer_home", "moved first: at home, in a near tie", "")
			return
		}
	}
}

// untimed returns the query's terms without the words that only point at
// a time ("back then", "these days": the moment says when), unless nothing
// else is left.
func (s *searcher) untimed(query string, terms []string) []string {
	when := s.lex.TimeWords(query)
	if len(when) == 0 {
		return terms
	}
	out := slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return when[t] })
	if len(out) == 0 {
		return terms
	}
	return out
}

// about reports whether r's text opens with one of terms: what a memory
// names first is what it is about. It reads the text.
func (s *searcher) about(r ranked, terms []string) bool {
	lead := tokenize.Terms(s.r.Text(r.doc).Text)
	return slices.ContainsFunc(lead[:min(len(lead), leadTerms)], func(t string) bool { return slices.Contains(terms, t) })
}

// leadTerms is how many of a text's first terms are what it opens with.
const leadTerms = 3

// topical reports whether memory d is about a concept the question asks
// about.
func (s *searcher) topical(d index.Doc, q question) bool {
	return q.asked.concepts != 0 && s.lex.ConceptsWith(q.asked.concepts, func(t string) bool { return s.ix.Contains(d, t) }) != 0
}

// Package lexicon knows what a sentence is about and what a question asks
// for, in English and Spanish, from a data file a person can read and
// extend (lexicon.json, embedded; a store's own lexicon.json adds to it).
//
// Three lists, each matched on the stemmed words of pkg/tokenize, so that
// "lives", "lived" and "living" are one entry and a phrase matches whatever
// the case and accents:
//
//   - concepts: the attributes people state about themselves and their
//     projects (where they live, who they work for, their editor, a
//     project's database, port, CI…). Two memories about the same concept
//     may be two versions of one fact even when they share no other word
//     ("I live in Zaragoza", "finally unpacked in the new flat in
//     Valencia"); a concept may name the detector of its values (a
//     version, a port), and two memories that both state one are two
//     statements of it.
//   - change cues: the words that say something changed ("now", "no
//     longer", "switched", "ya no", "pasamos a").
//   - answer types: what a question wants (a phone number, a port, a
//     price, a time, a person) and a detector for whether a text holds such
//     a value, so "what is Priya's phone number?" is not answered by a
//     memory about Priya that holds none.
//
// A query is also given the words that may stand for its own (Expand):
// the glossary's (glossary.json, curated EN↔ES), WordNet's synonyms of
// common English words (wordnet.txt, a distilled subset shipped with its
// licence, WORDNET-LICENSE), FreeDict's English↔Spanish translations when
// the system has them (GPL, so never shipped: read where dictd packages
// install them, freedict.go) and a guess at the word's spelling in the
// other language ("evento" for "event", cognate.go). Each says its source;
// pkg/store weighs and bounds them.
//
// What it cannot do is understand: a concept is a list of words, so a
// sentence about where someone else lives is about residence too, and the
// store decides with the rest of the evidence (partition, dates, shared
// words). The lists are general vocabulary, never the names of one
// person's world.
package lexicon

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

//go:embed lexicon.json
var builtin []byte

//go:embed glossary.json
var glossary []byte

// Set is a set of concepts, by their position in the lexicon.
type Set uint64

// Has reports whether s and o share a concept.
func (s Set) Has(o Set) bool { return s&o != 0 }

// maxConcepts is what a Set holds.
const maxConcepts = 64

// spec is the data file.
type spec struct {
	Comment    string        `json:"comment,omitempty"`
	Concepts   []conceptSpec `json:"concepts"`
	ChangeCues []string      `json:"change_cues"`
	Types      []typeSpec    `json:"types"`
	// Heads are nouns that, after a type's cue ("API key limit") or
	// before it with "of" between ("límite por clave de API"), make the cue
	// a modifier: the question asks for the head, not for the cue's value.
	Heads []string `json:"heads,omitempty"`
	// TimePhrases point at a time ("back then", "these days"): the view's
	// business (as_of, now), not words a memory would hold.
	TimePhrases []string `json:"time_phrases,omitempty"`
	// PastPhrases point at a time before now ("back then", "used to",
	// "por aquel entonces"): a question that holds one asks about how
	// things were (AsksPast).
	PastPhrases []string `json:"past_phrases,omitempty"`
	// Events are the words of a mishap and its repair ("incident",
	// "fixed", "se cayó"): a text that holds one and no change cue tells
	// of a happening (Event).
	Events []string `json:"events,omitempty"`
	// Removals say a thing is gone ("deleted", "uninstalled",
	// "desinstalado"): see Removed.
	Removals []string `json:"removal_cues,omitempty"`
	// Groups are the glossary: words that mean the same.
	Groups [][]string `json:"groups,omitempty"`
}

type conceptSpec struct {
	Name string `json:"name"`
	// Value names the detector of the concept's values (a version, a
	// port): two memories about the concept that both hold one are two
	// statements of its value.
	Value string `json:"value,omitempty"`
	// Shown: a value alone says what a text is about (an IP address is a
	// host's, a price per hour a rate), without any of the words.
	Shown bool     `json:"shown_by_value,omitempty"`
	Words []string `json:"words"`
}

type typeSpec struct {
	Name     string   `json:"name"`
	Cues     []string `json:"cues"`
	Detector string   `json:"detector"`
}

// Lexicon is a compiled lexicon. It is immutable and safe for concurrent
// use.
type Lexicon struct {
	concepts []string
	valued   []func(string) bool     // by concept: its value detector, if any
	extract  []func(string) []string // by concept: its values' finder, if any
	shown    Set                     // the concepts a value alone shows
	hosts    Set                     // the concepts whose values are hosts
	words    phrases                 // value: concept index
	byConcep [][][]string            // concept index → its phrases' words
	cues     phrases
	types    []answerType
	asks     phrases // value: type index
	heads    map[string]bool
	times    phrases
	past     phrases
	events   phrases
	removals phrases
	// same holds the glossary: its phrases (value: group index), and each
	// group's one-word members as terms.
	same    phrases
	members [][]string
	// synonyms are WordNet's (wordnet.go); trans FreeDict's, when the
	// system has them (freedict.go).
	synonyms related
	trans    *Translations
}

// Default returns the built-in lexicon.
func Default() *Lexicon {
	x, err := compile(builtin, nil)
	if err != nil {
		panic("lexicon: built-in lexicon.json: " + err.Error())
	}
	return x
}

// Load returns the built-in lexicon with the entries of the file at path
// added (a missing file means the built-in one alone) and the FreeDict
// translations of the first of FreeDictDirs that holds them. FreeDict is
// an optional extra: a broken dictionary is left out rather than keep a
// store from opening (`ihmt doctor` names the problem).
//
// A problem with the person's file — not a regular file, over
// MaxFileBytes, not JSON, wrong types, too deep, too many concepts — is an
// error, and the lexicon returned with it is the built-in one (with
// FreeDict): a daemon logs the error and serves, it does not stop over a
// file that only adds words (`ihmt doctor` and `ihmt status` show it).
func Load(path string) (*Lexicon, error) { return load(path, FreeDictDirs) }

// FileName is a person's lexicon file in the store directory.
const FileName = "lexicon.json"

// Check reports the problem of the person's lexicon file at path (nil:
// none, or no file), as Load would meet it, without reading FreeDict: what
// `ihmt doctor` and `ihmt status` show while the daemon serves with the
// built-in lexicon.
func Check(path string) error {
	_, err := load(path, nil)
	return err
}

// MaxFileBytes bounds a person's lexicon.json: the built-in one is a
// fraction of it.
const MaxFileBytes = 1 << 20

func load(path string, dictDirs []string) (*Lexicon, error) {
	x, problem := Default(), error(nil)
	if extra, err := ReadFile(path); err != nil {
		problem = fmt.Errorf("lexicon %s: %w", path, err)
	} else if extra != nil {
		if own, err := compile(builtin, extra); err != nil {
			problem = fmt.Errorf("lexicon %s: %w", path, err)
		} else {
			x = own
		}
	}
	if t, err := FindFreeDict(dictDirs); err == nil && t != nil {
		x.trans = t
	}
	return x, problem
}

// ReadFile reads a person's lexicon file at path: nil for none; an error
// unless it is a regular file (a symlink to one is followed) of at most
// MaxFileBytes. It opens without blocking, so a FIFO there cannot hold up
// a start, and checks what it opened, so a symlink to /dev/zero is not
// read without bound.
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s): a lexicon is a JSON file", fi.Mode().Type())
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes, over the %d a lexicon file may have", fi.Size(), MaxFileBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("over the %d bytes a lexicon file may have", MaxFileBytes)
	}
	return data, nil
}

// compile reads the built-in file and, if given, a person's, whose
// entries join the built-in ones of the same name.
func compile(base, extra []byte) (*Lexicon, error) {
	var sp, words spec
	if err := json.Unmarshal(base, &sp); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(glossary, &words); err != nil {
		return nil, err
	}
	sp.Groups = words.Groups
	builtins := len(sp.Concepts)
	if extra != nil {
		var more spec
		if err := json.Unmarshal(extra, &more); err != nil {
			return nil, fmt.Errorf("not a lexicon file: %w", err)
		}
		sp.merge(more)
		if n := len(sp.Concepts); n > maxConcepts {
			// Counted as the person wrote them: their own new concepts
			// (one that adds to a built-in concept is not new).
			return nil, fmt.Errorf("%d new concepts of your own, and the lexicon holds at most %d beside the %d built-in ones: remove %d",
				n-builtins, maxConcepts-builtins, builtins, n-maxConcepts)
		}
	}
	return build(sp, builtins)
}

func (sp *spec) merge(o spec) {
	for _, c := range o.Concepts {
		if i := indexOf(sp.Concepts, func(x conceptSpec) bool { return x.Name == c.Name }); i >= 0 {
			sp.Concepts[i].Words = append(sp.Concepts[i].Words, c.Words...)
			sp.Concepts[i].Value = cmp.Or(c.Value, sp.Concepts[i].Value)
			sp.Concepts[i].Shown = sp.Concepts[i].Shown || c.Shown
			continue
		}
		sp.Concepts = append(sp.Concepts, c)
	}
	sp.ChangeCues = append(sp.ChangeCues, o.ChangeCues...)
	sp.Events = append(sp.Events, o.Events...)
	sp.Removals = append(sp.Removals, o.Removals...)
	sp.PastPhrases = append(sp.PastPhrases, o.PastPhrases...)
	sp.Groups = append(sp.Groups, o.Groups...)
	for _, t := range o.Types {
		if i := indexOf(sp.Types, func(x typeSpec) bool { return x.Name == t.Name }); i >= 0 {
			sp.Types[i].Cues = append(sp.Types[i].Cues, t.Cues...)
			continue
		}
		sp.Types = append(sp.Types, t)
	}
}

func indexOf[T any](xs []T, f func(T) bool) int {
	for i, x := range xs {
		if f(x) {
			return i
		}
	}
	return -1
}

// build compiles a spec whose first builtins concepts are the built-in
// ones, so that a problem names the person's concept by its place in
// their own file.
func build(sp spec, builtins int) (*Lexicon, error) {
	if len(sp.Concepts) > maxConcepts {
		return nil, fmt.Errorf("%d concepts, at most %d", len(sp.Concepts), maxConcepts)
	}
	x := &Lexicon{words: phrases{}, cues: phrases{}, asks: phrases{}, same: phrases{}, times: phrases{}, past: phrases{}, events: phrases{}, removals: phrases{}, synonyms: synonyms()}
	for i, g := range sp.Groups {
		var one []string
		for _, w := range g {
			if words := x.same.add(w, i); len(words) == 1 && !tokenize.IsStopWord(words[0]) {
				one = append(one, words[0])
			}
		}
		x.members = append(x.members, one)
	}
	for i, c := range sp.Concepts {
		if c.Name == "" || len(c.Words) == 0 {
			return nil, fmt.Errorf("concept %d of your own: a concept needs a name and words", i+1-builtins)
		}
		x.concepts = append(x.concepts, c.Name)
		var holds func(string) bool
		if c.Value != "" {
			if holds = detectors[c.Value]; holds == nil {
				return nil, fmt.Errorf("concept %q: unknown value detector %q (known: %s)", c.Name, c.Value, detectorNames())
			}
		}
		x.valued = append(x.valued, holds)
		x.extract = append(x.extract, extractors[c.Value])
		if c.Value == "host" {
			x.hosts |= 1 << i
		}
		if c.Shown {
			if holds == nil {
				return nil, fmt.Errorf("concept %q: shown_by_value needs a value detector", c.Name)
			}
			x.shown |= 1 << i
		}
		x.byConcep = append(x.byConcep, nil)
		for _, w := range c.Words {
			if words := x.words.add(w, i); words != nil {
				x.byConcep[i] = append(x.byConcep[i], words)
			}
		}
	}
	for _, c := range sp.ChangeCues {
		x.cues.add(c, 0)
	}
	for _, e := range sp.Events {
		x.events.add(e, 0)
	}
	for _, r := range sp.Removals {
		x.removals.add(r, 0)
	}
	for _, p := range sp.TimePhrases {
		x.times.add(p, 0)
	}
	for _, p := range sp.PastPhrases {
		x.past.add(p, 0)
	}
	x.heads = map[string]bool{}
	for _, h := range sp.Heads {
		for _, w := range stems(h) {
			x.heads[w] = true
		}
	}
	for i, t := range sp.Types {
		d, ok := detectors[t.Detector]
		if !ok {
			return nil, fmt.Errorf("type %q: unknown detector %q (known: %s)", t.Name, t.Detector, detectorNames())
		}
		x.types = append(x.types, answerType{name: t.Name, holds: d})
		for _, c := range t.Cues {
			x.asks.add(c, i)
		}
	}
	return x, nil
}

// Concepts returns the concepts text is about: by their words, or by a
// value that shows one.
func (x *Lexicon) Concepts(text string) Set {
	var s Set
	x.words.each(stems(text), func(i int) { s |= 1 << i })
	return s | x.Shown(x.shown&^s, text)
}

// Shown returns the concepts of within whose value text holds, of those a
// value alone shows.
func (x *Lexicon) Shown(within Set, text string) Set {
	var s Set
	for i, holds := range x.valued {
		if within&x.shown&(1<<i) != 0 && holds(text) {
			s |= 1 << i
		}
	}
	return s
}

// ConceptsWith returns the concepts of within that a text is about, asking
// has whether the text holds each word: for a text known only by its
// index entry. A phrase counts when the text holds all its words, in any
// order, so this can only find more than Concepts would.
func (x *Lexicon) ConceptsWith(within Set, has func(term string) bool) Set {
	var s Set
	for i, ps := range x.byConcep {
		if within&(1<<i) == 0 {
			continue
		}
		for _, words := range ps {
			if all(words, has) {
				s |= 1 << i
				break
			}
		}
	}
	return s
}

func all(words []string, has func(string) bool) bool {
	for _, w := range words {
		if !has(w) {
			return false
		}
	}
	return true
}

// BothHold reports whether texts a and b both hold a value of one of the
// concepts of s that have values ("Python 3.11", "Python 3.13").
func (x *Lexicon) BothHold(s Set, a, b string) bool {
	for i, holds := range x.valued {
		if holds != nil && s&(1<<i) != 0 && holds(a) && holds(b) {
			return true
		}
	}
	return false
}

// Named returns the set of the concepts named; unknown names are left out
// (a lexicon file edited since a memory was saved may have dropped one).
func (x *Lexicon) Named(names []string) Set {
	var s Set
	for _, n := range names {
		if i := slices.Index(x.concepts, n); i >= 0 {
			s |= 1 << i
		}
	}
	return s
}

// Names returns the names of the concepts in s.
func (x *Lexicon) Names(s Set) []string {
	var out []string
	for i, n := range x.concepts {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// ChangeCue reports whether text says that something changed. A cue
// that is the object of a preposition of time ("after the Fedora 42
// upgrade", "tras la actualización") tells when something else happened,
// not that what the text states changed.
func (x *Lexicon) ChangeCue(text string) bool {
	words := stems(text)
	found := false
	x.cues.eachAt(words, func(_, at int, _ []string) { found = found || !timed(words, at) })
	return found
}

// timedWindow is how many words may stand between a preposition of time
// and the cue it governs ("after the Fedora 42 upgrade").
const timedWindow = 3

// timed reports whether the word at words[at] is governed by a preposition
// of time a few words before it, with no subject in between: "after the
// upgrade" is, "after the outage we upgraded" is not.
func timed(words []string, at int) bool {
	for i := at - 1; i >= max(0, at-timedWindow-1); i-- {
		switch {
		case timeWords[words[i]]:
			return true
		case subjectWords[words[i]]:
			return false
		}
	}
	return false
}

// timeWords are the prepositions of time, subjectWords the pronouns that
// open a clause of its own, as terms.
var timeWords, subjectWords = termSet("after", "before", "during", "following", "tras", "durante", "después", "antes"),
	termSet("i", "we", "you", "he", "she", "they", "it", "yo", "nosotros", "nosotras", "ellos", "ellas", "ella")

func termSet(ws ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		for _, t := range stems(w) {
			m[t] = true
		}
	}
	return m
}

// TimeWords returns the words of query that only point at a time ("back",
// "then" of "back then"; "days" of "these days"), as terms.
func (x *Lexicon) TimeWords(query string) map[string]bool {
	out := map[string]bool{}
	x.times.eachMatch(stems(query), func(_ int, words []string) {
		for _, w := range words {
			out[w] = true
		}
	})
	return out
}

// AsksPast reports whether query points at a time before now ("which
// editor was I using back then?"): it asks how things were, not how they
// are.
func (x *Lexicon) AsksPast(query string) bool {
	found := false
	x.past.each(stems(query), func(int) { found = true })
	return found
}

// Type is what a question asks for; the zero Type asks for nothing in
// particular.
type Type struct {
	i    int // 1 + index in Lexicon.types
	Name string
	// Cue is the stemmed words of the question that asked for it.
	Cue []string
}

// Asks returns what query asks for: the type of its longest cue, the
// first one on a tie.
func (x *Lexicon) Asks(query string) Type {
	terms := stems(query)
	// "When do we rotate the token?" asks for a time, "why…" for a reason,
	// "how…" for a way: a value's name later in such a question is what
	// it is about, not what it asks for (a cue that opens it, "how much",
	// still asks).
	opener := len(terms) > 0 && otherAnswers[terms[0]]
	var best Type
	x.asks.eachAt(terms, func(i, at int, words []string) {
		if opener && at != 0 || x.modifies(terms, at, len(words)) {
			return
		}
		if len(words) > len(best.Cue) {
			best = Type{i: i + 1, Name: x.types[i].name, Cue: words}
		}
	})
	return best
}

// otherAnswers are the question words, as terms, that ask for something
// other than a stored value: a time, a reason, a way.
var otherAnswers = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"when", "why", "how", "cuándo", "cuando", "por qué", "cómo", "como"} {
		if t := stems(w); len(t) > 0 {
			m[t[0]] = true
		}
	}
	return m
}()

// Holds reports whether text holds a value of type t; every text holds a
// value of the zero Type.
func (x *Lexicon) Holds(t Type, text string) bool {
	if t.i == 0 {
		return true
	}
	return x.types[t.i-1].holds(text)
}

type answerType struct {
	name  string
	holds func(string) bool
}

// stems returns text's words in order, stop words included (phrases such
// as "no longer" and "is gone" are made of them), compounds whole ("Click
// House" is about a house, "ClickHouse" is not).
func stems(text string) []string { return tokenize.Words(text) }

// phrases maps a phrase's first stem to the phrases starting with it.
type phrases map[string][]phrase

type phrase struct {
	words []string
	value int
}

func (p phrases) add(text string, value int) []string {
	words := stems(strings.TrimSpace(text))
	if len(words) == 0 {
		return nil
	}
	p[words[0]] = append(p[words[0]], phrase{words: words, value: value})
	// A compound in a text ("ClickHouse") is read whole and unstemmed
	// (tokenize.Words): the one-word entry "clickhouse" meets it so too.
	if low := strings.ToLower(strings.TrimSpace(text)); len(words) == 1 && low != words[0] && !strings.ContainsAny(low, " -") {
		p[low] = append(p[low], phrase{words: []string{low}, value: value})
	}
	return words
}

// each calls fn with the value of every phrase found in terms.
func (p phrases) each(terms []string, fn func(value int)) {
	p.eachMatch(terms, func(v int, _ []string) { fn(v) })
}

func (p phrases) eachMatch(terms []string, fn func(value int, words []string)) {
	p.eachAt(terms, func(v, _ int, words []string) { fn(v, words) })
}

// eachAt is eachMatch, with the position each phrase starts at.
func (p phrases) eachAt(terms []string, fn func(value, at int, words []string)) {
	for i, t := range terms {
		for _, ph := range p[t] {
			if matchAt(terms, i, ph.words) {
				fn(ph.value, i, ph.words)
			}
		}
	}
}

// modifies reports whether the n words at terms[at:] name what a head
// noun is of ("the API key limit", "el límite de peticiones por clave de
// API"), so the question asks for the head.
func (x *Lexicon) modifies(terms []string, at, n int) bool {
	if at+n < len(terms) && x.heads[terms[at+n]] {
		return true
	}
	for ; at >= 2 && ofWords[terms[at-1]]; at -= 2 {
		if x.heads[terms[at-2]] {
			return true
		}
	}
	return false
}

// ofWords join a Spanish head to what it is of.
var ofWords = map[string]bool{"de": true, "del": true, "por": true, "para": true}

func matchAt(terms []string, i int, words []string) bool {
	if i+len(words) > len(terms) {
		return false
	}
	for j, w := range words {
		if terms[i+j] != w {
			return false
		}
	}
	return true
}

// Expansion is a word added to a query for one of its own: the same
// meaning in other words or in the other language.
type Expansion struct {
	Term string
	// For is the query term it stands for, by position in the terms
	// given to Expand.
	For int
	// Source says where the word comes from, and so what it is worth.
	Source Source
}

// Expand returns the words that mean what query's words and phrases mean
// (the glossary, then the other words of the concepts the query is about,
// WordNet's synonyms and FreeDict's translations), as terms not among
// terms, each with the query term it stands for ("reunión" for
// "meeting") and its source. Only one-word members are added, so a
// phrase's common words ("de" of "copia de seguridad") never join a
// query. Nothing here is bounded: the caller keeps what it can afford
// (pkg/store keeps a few per term, the rarest in its memories).
func (x *Lexicon) Expand(query string, terms []string) []Expansion {
	seen := setOf(terms)
	out := x.glossary(query, terms, seen, nil)
	x.words.eachMatch(stems(query), func(c int, words []string) {
		at := slices.Index(terms, words[len(words)-1])
		if at < 0 {
			return
		}
		for _, ws := range x.byConcep[c] {
			if len(ws) == 1 && !seen[ws[0]] && !tokenize.IsStopWord(ws[0]) {
				seen[ws[0]] = true
				out = append(out, Expansion{Term: ws[0], For: at, Source: FromConcept})
			}
		}
	})
	out = x.synonyms.expandTerms(terms, FromSynonyms, seen, out)
	if x.trans != nil {
		out = x.trans.words.expandTerms(terms, FromTranslation, seen, out)
	}
	for i, t := range terms {
		for _, c := range cognates(t) {
			if !seen[c] {
				seen[c] = true
				out = append(out, Expansion{Term: c, For: i, Source: FromCognate})
			}
		}
	}
	return out
}

// Glossary returns what Expand does of the glossary alone: the words its
// groups give for text's words and phrases, as terms not among terms.
func (x *Lexicon) Glossary(text string, terms []string) []Expansion {
	return x.glossary(text, terms, setOf(terms), nil)
}

func setOf(terms []string) map[string]bool {
	m := make(map[string]bool, len(terms))
	for _, t := range terms {
		m[t] = true
	}
	return m
}

func (x *Lexicon) glossary(query string, terms []string, seen map[string]bool, out []Expansion) []Expansion {
	x.same.eachMatch(stems(query), func(g int, words []string) {
		at := slices.Index(terms, words[0])
		if at < 0 {
			for _, w := range words {
				if at = slices.Index(terms, w); at >= 0 {
					break
				}
			}
		}
		if at < 0 {
			return
		}
		for _, m := range x.members[g] {
			if !seen[m] {
				seen[m] = true
				out = append(out, Expansion{Term: m, For: at})
			}
		}
	})
	return out
}

// WithTranslations returns x with t's translations added to what Expand
// returns; a nil t is none.
func (x *Lexicon) WithTranslations(t *Translations) *Lexicon {
	y := *x
	y.trans = t
	return &y
}

// Translations returns the FreeDict dictionaries x uses, nil for none.
func (x *Lexicon) Translations() *Translations { return x.trans }

// ValuesAgree reports whether texts a and b hold the same values of the
// concepts of s that have comparable values, and one at least: two
// statements of one value ("pins Rust 1.82", "the CI image is
// rust:1.82"), not a value and the one that replaced it.
func (x *Lexicon) ValuesAgree(s Set, a, b string) bool {
	agree := false
	for i, find := range x.extract {
		if find == nil || s&(1<<i) == 0 {
			continue
		}
		va, vb := valueSet(find(a)), valueSet(find(b))
		if len(va) == 0 || len(vb) == 0 {
			continue
		}
		if !maps.Equal(va, vb) {
			return false
		}
		agree = true
	}
	return agree
}

func valueSet(vs []string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

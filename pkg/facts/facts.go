// Package facts finds the durable facts in a memory's text: where the user
// lives, who they work for, which editor and shell they use, what a
// project's staging database runs, who reviews what, a patient's diagnosis.
//
// A fact is what a later memory can contradict. The timeline package files
// facts by subject and attribute so that "I moved to Valencia" can make
// "I live in Madrid" outdated although the two texts share no word that
// matters; this package only has to say, for each text, which (subject,
// attribute, value) triples it states, and how a notice should say them.
//
// # Patterns, not a model
//
// Extraction is done by regular expressions read from a data file. They
// are predictable (a person can see why a fact was or was not found),
// cheap enough to run on every save, and extensible without a rebuild:
// the built-in patterns are embedded from patterns.json in this package,
// and [Load] adds a user's own file to them. The price is recall: a
// statement phrased in a way no pattern anticipates yields no fact, and
// then only an explicit link (replaces, mark_outdated) relates a
// correction to what it corrects. Precision matters more than recall here,
// because a wrong fact makes a right memory look outdated. So the patterns
// are deliberately narrow:
//
//   - Sentences are read one at a time; questions are skipped, and a match
//     with a negation or a hypothesis among the three words before it, in
//     the same clause ("not", "never", "if", "maybe", "no", "si", "tal
//     vez"), is dropped: "ya no vivo en Madrid" states nothing about now.
//   - "X is Y" / "X es Y" counts only when X starts with a determiner or
//     possessive (the, our, my, this, these, those, el, la, los, las, mi,
//     mis, nuestro, nuestra, este, esa, ...) and Y looks like a value: a
//     capitalised word, something with a digit (a version, a port), an
//     identifier or host name ("db2.internal"), a quoted word, or one of
//     the file's terms ("zsh"). So "the staging database is PostgreSQL 17"
//     is a fact and "the test is flaky" is not. After "is now", "ahora
//     es", "pasó a ser", "has become" Y may be any short phrase ("the build
//     is now green"): the sentence announces a change.
//   - The value stops at the value: "I live in Valencia now, since June"
//     records "Valencia". Values are cut at the file's stop words (time
//     words, clause starters), at punctuation, and, unless the pattern
//     takes lists ("our stack is Go, PostgreSQL and htmx"), at commas and
//     conjunctions; leftover trailing articles and prepositions are
//     trimmed, and a leading lower-case article is dropped ("the
//     Netherlands" → "Netherlands", while "The Hague" keeps its "The").
//   - Where two patterns find values in the same place, the earlier
//     pattern in the file wins, so specific patterns ("my editor is X")
//     precede generic ones ("my X is Y").
//
// Values (and the old values of "switched from X to Y") are always
// substrings of the text, as written; subjects are normalised
// ([NormalizeSubject]) so that "The staging database" and "our staging
// database" are one subject, and the person the memory belongs to is
// "user". Phrases are English whatever the language of the text, because
// the notices they go into are.
//
// # What a text is
//
// Not every text states something about the user or a project. Code does
// not (its strings and test tables describe programs), and a document a
// person keeps — a README — quotes and gives examples as often as it
// states. [Extractor.ExtractKind] reads a text as what it is ([Kind]): a
// memory someone saved (every sentence but fenced code), a document's
// prose (its own statements only: code spans, quotations, block quotes
// and example sentences are blanked first, by [Statements]) or code
// (nothing). The store tells it each leaf's kind from the leaf's header.
//
// # Speed
//
// Go's regular expressions are slow next to a literal search and there are
// dozens of patterns, so most of this package is about not running them.
// One Aho-Corasick pass over the text finds, for each sentence, which
// patterns have all their required literals ("moved" or "relocated", and
// " to "), and where a value must follow a literal (" is "), whether what
// follows could be one at all; a pattern then runs only at the words where
// a match can start, anchored, and only within a window of 400 bytes, so
// that a megabyte-long line without a full stop costs linear time (the
// benchmarks give the figures).
//
// # The data file
//
// A pattern file is one JSON object. Every field except patterns is
// optional, and a user's file needs only what it adds:
//
//	{
//	  "terms": ["jujutsu"],
//	  "kinds": {"vcs": "vcs", "version control": "vcs"},
//	  "roles": ["release captain"],
//	  "stops": ["for the time being"],
//	  "patterns": [
//	    {
//	      "name": "vcs.en",
//	      "lang": "en",
//	      "regex": "(?i)\\bI (?:now )?version (?:my code )?with (?P<value>.+)",
//	      "subject": "user",
//	      "attribute": "vcs",
//	      "phrase": "you version with {value}",
//	      "value": "term",
//	      "examples": ["I now version my code with Jujutsu."]
//	    },
//	    {"name": "moved_to.en", "disabled": true}
//	  ]
//	}
//
// With it, "I now version my code with jujutsu" is a fact, the default
// "my KIND is X" pattern knows "my version control is Jujutsu", "Marta is
// the release captain" names a role, and "I moved to ..." no longer counts.
//
// Top-level fields:
//
//   - macros: named regular-expression fragments, used in patterns as
//     {{name}}. A user macro with a default's name adds alternatives to it.
//   - terms: words that are values even in lower case (tools, shells,
//     editors, systems: "zsh", "pnpm"); they make "X is Y" count, and keep
//     "I moved to Neovim" from being a move to a place.
//   - kinds: what a kind group may capture ("text editor", "sistema
//     operativo"), mapped to the attribute it names ("editor", "os"). A
//     kind group that captures anything else is no match.
//   - roles: words and phrases a value of kind "role" must contain
//     ("lead", "reviewer", "jefa", "scrum master").
//   - stops: fragments (regular expressions, case-insensitive, matched as
//     whole words after white space) at which a value ends: "now",
//     "since", "desde", "last (?:week|month)". The word "#" stands for
//     any number: "on #" stops at "on 2025-09-02".
//   - conjunctions: likewise, except in list patterns: "and", "y", "with".
//   - list_breaks: likewise, even in list patterns: "and the", "y la".
//
// Pattern fields:
//
//   - name (required, unique): a user pattern with a default's name
//     replaces it, and "disabled": true removes it.
//   - regex (required): Go RE2 syntax, matched against one sentence (or,
//     with "line": true, one whole line), starting at a word. Named
//     groups: value (required), subject, from, kind; a name may repeat in
//     alternatives. Write (?i) for case-insensitive matching and
//     (?-i:...) inside it for a case-sensitive part (names). Go's \b
//     knows only ASCII letters, so after an accented letter write a space
//     instead. Literal spaces (rather than \s+) give the prefilter longer
//     literals to look for.
//   - subject: the subject when the regex has no subject group or it did
//     not take part ("user", "patient").
//   - subject_kind: what a captured subject must look like: "any"
//     (default, at most six words), "det" (a determiner and at most six
//     words), "token" (one word, like "nginx" or "api-gateway"), "name"
//     (one to four capitalised words: a person).
//   - attribute: the attribute, unless a kind group names it. Without one
//     (and with a from group) the timeline decides from the old value.
//   - phrase: how a notice says the fact, with {subject}, {value}, {from}
//     and {kind} as written in the text.
//   - value: what the value must look like: "any" (default), "term" (as
//     for "X is Y" above), "name" (capitalised), "org" (a name that is not
//     a known term: an employer), "place" (likewise, and without digits),
//     "number", "role" (contains one of the roles).
//   - list: the value may be a list (commas and conjunctions kept).
//   - raw: the value is the rest of the sentence or line, only trimmed.
//   - line: match whole lines (headers like "Diagnóstico: ...").
//   - max_words: longest acceptable value (default 8, lists 16, raw 80);
//     a longer one is a clause, not a value, and the match is dropped.
//   - stops: more stop fragments for this pattern only.
//   - names: this pattern names, for the rest of the text, the fixed
//     subject given here: "Paciente: Juan Pérez" makes later clinical
//     headers facts about "juan pérez" rather than "patient".
//   - examples: sentences the pattern must extract from; [Load] checks
//     them, and the tests check the defaults'.
//   - lang, comment: for people.
//
// User patterns come before the defaults, so they win where both match.
package facts

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// Fact is one (subject, attribute, value) statement found in a text.
type Fact struct {
	// Subject is normalised: lower case, accents kept, leading articles and
	// possessives stripped ("the staging database" → "staging database");
	// the person the memory belongs to is "user". Empty when only From
	// identifies what changed, for the timeline to resolve.
	Subject string
	// Attribute says what about the subject: "lives_in", "employer",
	// "editor", "shell", "os", "stack", "tool", "is", "port", "location",
	// "role", "diagnosis", "treatment", "medication", ... Empty when only
	// From identifies it.
	Attribute string
	// Value is as written in the text, trimmed: "I live in Valencia now."
	// gives "Valencia".
	Value string
	// From is the old value a "switched from X to Y" names; empty otherwise.
	From string
	// Phrase is how a notice says the fact: "you live in Valencia", "the
	// staging database is PostgreSQL 17".
	Phrase string
}

// Extractor finds facts with a fixed set of patterns. It is immutable and
// safe for concurrent use.
type Extractor struct {
	patterns       []*pattern
	auto           *automaton
	alwaysSentence []int // patterns with no literal to filter on
	alwaysLine     []int
	terms          map[string]bool
	kinds          map[string]string // kind as written, lower case → attribute
	kindWords      int               // longest kind, in words
	roles          map[string]bool   // role words and phrases, lower case
	roleWords      int
	stopper        stopper
	digest         string // of the pattern files: see Digest
}

// CodeVersion changes whenever this package's code would extract other
// facts from the same patterns, or Fact changes shape; Digest includes it.
const CodeVersion = 2

// Digest identifies what Extract does: the patterns and CodeVersion. A
// store can keep facts it extracted and reuse them while the digest holds.
func (x *Extractor) Digest() string { return x.digest }

func digestOf(files ...[]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "code %d\n", CodeVersion)
	for _, f := range files {
		fmt.Fprintf(h, "%d\n", len(f))
		h.Write(f)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

//go:embed patterns.json
var defaultFile []byte

var defaultSpec = sync.OnceValues(func() (*fileSpec, error) {
	return parseFile("patterns.json", defaultFile)
})

var defaultExtractor = sync.OnceValue(func() *Extractor {
	f, err := defaultSpec()
	if err != nil {
		panic(err) // the embedded file is tested; this is a build defect
	}
	x, err := compile(f, "patterns.json", 0)
	if err != nil {
		panic(err)
	}
	x.digest = digestOf(defaultFile)
	return x
})

// Default returns the extractor of the built-in patterns.
func Default() *Extractor { return defaultExtractor() }

// Load returns the built-in patterns extended with those in userFile. A
// missing file is not an error (the result is [Default]); a malformed one
// is, and the error names the file and, for a bad pattern, its index in
// the file's patterns array.
func Load(userFile string) (*Extractor, error) {
	data, err := os.ReadFile(userFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("facts: %w", err)
	}
	user, err := parseFile(userFile, data)
	if err != nil {
		return nil, err
	}
	def, err := defaultSpec()
	if err != nil {
		return nil, err
	}
	x, err := compile(merge(def, user), userFile, len(user.Patterns))
	if err != nil {
		return nil, err
	}
	x.digest = digestOf(defaultFile, data)
	return x, nil
}

// candidate is one match that passed its pattern's checks, before the
// matches of one line are reconciled.
type candidate struct {
	prio       int // pattern index: lower wins an overlap
	at         int // match start, for text order
	vlo, vhi   int // value span, for overlaps
	fact       Fact
	subjText   string // subject as written, for the phrase
	valueText  string
	fromText   string
	kindText   string
	fixed      bool   // Subject is the pattern's fixed subject
	names      string // for a names pattern: which fixed subject it names
	phraseTmpl string
}

// Extract returns the facts text states, in text order, without
// duplicates. It never fails: text it cannot read yields no facts.
func (x *Extractor) Extract(text string) []Fact {
	if text == "" || !utf8.ValidString(text) {
		return nil
	}
	lines := splitLines(text)
	var sents []sentence
	for i, l := range lines {
		sents = appendSentences(sents, text, l, i)
	}
	// Which patterns may match where, from one pass of the automaton.
	sentSpans := make([]span, len(sents))
	for i := range sents {
		sentSpans[i] = sents[i].span
	}
	sentMarks, lineMarks := x.marks(text, sentSpans, lines)

	var out []Fact
	seen := map[string]bool{}
	context := map[string][2]string{} // fixed subject → normalised name, name as written
	var cands []candidate
	var pats []int
	g := &segment{x: x}
	sm, lm, s := 0, 0, 0
	for l, line := range lines {
		cands = cands[:0]
		// Line patterns.
		pats = append(pats[:0], x.alwaysLine...)
		for lm < len(lineMarks) && lineMarks[lm].seg == l {
			pats = append(pats, lineMarks[lm].pat)
			lm++
		}
		sort.Ints(pats)
		g.reset(text[line.start:line.end])
		for _, pi := range pats {
			cands = x.run(cands, pi, g, line.start)
		}
		// Sentence patterns, sentence by sentence.
		for ; s < len(sents) && sents[s].line == l; s++ {
			pats = append(pats[:0], x.alwaysSentence...)
			for sm < len(sentMarks) && sentMarks[sm].seg == s {
				pats = append(pats, sentMarks[sm].pat)
				sm++
			}
			if sents[s].question {
				continue
			}
			sort.Ints(pats)
			g.reset(text[sents[s].start:sents[s].end])
			for _, pi := range pats {
				cands = x.run(cands, pi, g, sents[s].start)
			}
		}
		out = x.reconcile(out, cands, seen, context)
	}
	return out
}

// mark says that pattern pat may match segment seg.
type mark struct{ seg, pat int }

// marks runs the automaton over text and returns, in segment order, the
// (segment, pattern) pairs where every requirement of the pattern met a
// literal inside the segment, for sentence patterns over sents and line
// patterns over lines.
func (x *Extractor) marks(text string, sents, lines []span) (sentMarks, lineMarks []mark) {
	st := newTracker(text, sents, len(x.patterns))
	lt := newTracker(text, lines, len(x.patterns))
	x.auto.scan(text, func(start, end int, lit int32) {
		if o := x.auto.owners[lit]; len(o) > 0 {
			st.hit(x, start, end, o)
		}
		if o := x.auto.lineOwners[lit]; len(o) > 0 {
			lt.hit(x, start, end, o)
		}
	})
	return st.finish(x), lt.finish(x)
}

// tracker settles the requirements met in one kind of segment. Literal
// hits arrive in order of their end, so segments settle one after the
// other. A requirement met only where a value may follow is checked when
// its segment settles, and only for patterns whose other requirements are
// met: checking at every hit of " in " would cost more than it saves.
type tracker struct {
	text    string
	spans   []span
	cur     int
	got     []uint8 // requirement bits met in the current segment, by pattern
	touched []int
	pending []pendingCheck
	out     []mark
}

// pendingCheck is a hit of a checked requirement: pattern pat's value may
// start at pos.
type pendingCheck struct{ pat, pos int }

func newTracker(text string, spans []span, patterns int) *tracker {
	return &tracker{text: text, spans: spans, got: make([]uint8, patterns)}
}

func (t *tracker) settle(x *Extractor) {
	for _, pi := range t.touched {
		p := x.patterns[pi]
		if t.got[pi] == uint8(1)<<len(p.reqs)-1 && t.checked(x, pi) {
			t.out = append(t.out, mark{t.cur, pi})
		}
		t.got[pi] = 0
	}
	t.touched = t.touched[:0]
	t.pending = t.pending[:0]
}

// checked reports whether pattern pi has no checked requirement, or one of
// its hits in the current segment is followed by what may be a value.
func (t *tracker) checked(x *Extractor, pi int) bool {
	p := x.patterns[pi]
	if !p.checkFirst {
		return true
	}
	for _, c := range t.pending {
		if c.pat == pi && x.mayBeValue(p, t.text, c.pos, t.spans[t.cur].end) {
			return true
		}
	}
	return false
}

func (t *tracker) hit(x *Extractor, start, end int, owners []owner) {
	for t.cur < len(t.spans) && t.spans[t.cur].end < end {
		t.settle(x)
		t.cur++
	}
	if t.cur >= len(t.spans) || start < t.spans[t.cur].start {
		return
	}
	for _, o := range owners {
		if o.check {
			t.pending = append(t.pending, pendingCheck{o.pat, end})
		}
		if t.got[o.pat] == 0 {
			t.touched = append(t.touched, o.pat)
		}
		t.got[o.pat] |= 1 << o.bit
	}
}

// finish settles the last segment and orders each segment's patterns by
// priority.
func (t *tracker) finish(x *Extractor) []mark {
	if t.cur < len(t.spans) {
		t.settle(x)
	}
	out := t.out
	for i, j := 0, 0; i < len(out); i = j {
		for j = i; j < len(out) && out[j].seg == out[i].seg; j++ {
		}
		seg := out[i:j]
		for a := 1; a < len(seg); a++ {
			for b := a; b > 0 && seg[b].pat < seg[b-1].pat; b-- {
				seg[b], seg[b-1] = seg[b-1], seg[b]
			}
		}
	}
	return out
}

// reconcile keeps, of the candidates of one line, those whose values do
// not overlap the value of a higher-priority pattern, and appends their
// facts in text order.
func (x *Extractor) reconcile(out []Fact, cands []candidate, seen map[string]bool, context map[string][2]string) []Fact {
	if len(cands) == 0 {
		return out
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].prio != cands[j].prio {
			return cands[i].prio < cands[j].prio
		}
		return cands[i].at < cands[j].at
	})
	// Accepted value spans never overlap, so kept sorted by start only a
	// neighbour can overlap a new one: a long line stays linear-logarithmic.
	kept := cands[:0]
	var taken []span
	for _, c := range cands {
		i := sort.Search(len(taken), func(k int) bool { return taken[k].start >= c.vlo })
		if i < len(taken) && taken[i].start < c.vhi || i > 0 && taken[i-1].end > c.vlo {
			continue
		}
		taken = slices.Insert(taken, i, span{c.vlo, c.vhi})
		kept = append(kept, c)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].at != kept[j].at {
			return kept[i].at < kept[j].at
		}
		return kept[i].prio < kept[j].prio
	})
	for _, c := range kept {
		if c.names != "" {
			context[c.names] = [2]string{c.fact.Subject, c.subjText}
			continue
		}
		if c.fixed {
			if n, ok := context[c.fact.Subject]; ok {
				c.fact.Subject, c.subjText = n[0], n[1]
			}
		}
		c.fact.Phrase = render(c.phraseTmpl, c)
		key := c.fact.Subject + "\x00" + c.fact.Attribute + "\x00" + strings.ToLower(c.fact.Value) + "\x00" + strings.ToLower(c.fact.From)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c.fact)
	}
	return out
}

// render fills a phrase template. Without a template the phrase is built
// from the attribute.
func render(tmpl string, c candidate) string {
	if tmpl == "" {
		attr := strings.ReplaceAll(c.fact.Attribute, "_", " ")
		switch {
		case c.fact.Subject == "user" && attr != "":
			return "your " + attr + " is " + c.valueText
		case attr == "" && c.fromText != "":
			return "you switched from " + c.fromText + " to " + c.valueText
		default:
			return c.subjText + "'s " + attr + " is " + c.valueText
		}
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		switch tmpl[i+1 : i+j] {
		case "subject":
			b.WriteString(c.subjText)
		case "value":
			b.WriteString(c.valueText)
		case "from":
			b.WriteString(c.fromText)
		case "kind":
			b.WriteString(c.kindText)
		}
		tmpl = tmpl[i+j+1:]
	}
}

// runOne runs pattern pi alone on one sentence, for checking examples.
func (x *Extractor) runOne(pi int, text string) []candidate {
	var cands []candidate
	for _, l := range splitLines(text) {
		if x.patterns[pi].spec.Line {
			cands = x.run(cands, pi, &segment{s: text[l.start:l.end], x: x}, l.start)
			continue
		}
		for _, s := range appendSentences(nil, text, l, 0) {
			cands = x.run(cands, pi, &segment{s: text[s.start:s.end], x: x}, s.start)
		}
	}
	return cands
}

// run appends the candidates pattern pi finds in segment g, which starts
// at offset base of the text. Every word where a match may start is tried,
// not just the leftmost match, because the leftmost is not always the
// right one: in "el problema es que la base de datos es PostgreSQL" the
// first "X es Y" is "el problema es que…", the one wanted starts at "la
// base". A pattern whose start cannot be predicted (a user's) runs
// unanchored, window by window, retried from the next word after a match
// that fails its checks.
func (x *Extractor) run(cands []candidate, pi int, g *segment, base int) []candidate {
	r := &runner{x: x, p: x.patterns[pi], pi: pi, g: g, base: base, cands: cands}
	if r.p.startsAt != nil {
		r.anchored()
	} else {
		r.windows()
	}
	return r.cands
}

// runner is one run of a pattern over a segment.
type runner struct {
	x     *Extractor
	p     *pattern
	pi    int
	g     *segment
	base  int // the segment's offset in the text
	cands []candidate
}

// anchored tries the anchored regex only where a match can start: at a
// word that begins like the pattern and ends, within the leading group's
// length, before one of the strings that must follow it.
func (r *runner) anchored() {
	p, g, seg := r.p, r.g, r.g.s
	lower := g.lowered()
	next := 0
	for _, i := range r.x.startCandidates(p, g) {
		if i < next {
			continue
		}
		if p.starts != nil {
			if c := p.byFirst[lower[i]]; c == nil || !hasAnyPrefix(lower[i:], c) {
				continue
			}
			if p.boundary && i > 0 && isWordByte(seg[i-1]) == isWordByte(seg[i]) {
				continue
			}
		} else if first, _ := utf8.DecodeRuneInString(seg[i:]); !inClass(first, p.class) {
			continue
		}
		if i > 0 && g.blocked(i) {
			continue
		}
		m := p.startsAt.FindStringSubmatchIndex(seg[i:windowEnd(seg, i)])
		if m == nil {
			continue
		}
		shift(m, i)
		if r.accept(m) {
			next = m[1]
		}
	}
}

// windows runs the unanchored regex window by window, retried from the
// next word after a match that fails its checks.
func (r *runner) windows() {
	p, seg := r.p, r.g.s
	for pos := 0; pos < len(seg); {
		end := windowEnd(seg, pos)
		m := p.re.FindStringSubmatchIndex(seg[pos:end])
		if m == nil {
			if end == len(seg) {
				break
			}
			pos = nextWord(seg, pos+(end-pos)/2) // windows overlap by half
			continue
		}
		shift(m, pos)
		if r.accept(m) {
			pos = max(m[1], m[0]+1)
			if pos < len(seg) && seg[pos-1] != ' ' {
				pos = nextWord(seg, pos)
			}
			continue
		}
		if p.anchored {
			break
		}
		pos = nextWord(seg, m[0])
	}
}

// accept builds the candidate of match m, keeping it if it passes its
// checks, and reports whether it did.
func (r *runner) accept(m []int) bool {
	p, seg := r.p, r.g.s
	if p.tailGroup > 0 && m[2*p.tailGroup] >= 0 {
		// The value runs to the end of the segment, or of its first
		// maxTail bytes: no value is that long, and cleaning a
		// megabyte-long tail for every match would be quadratic.
		end := min(len(seg), m[2*p.tailGroup]+maxTail)
		if i := strings.IndexByte(seg[m[2*p.tailGroup+1]:end], '\n'); i >= 0 {
			end = m[2*p.tailGroup+1] + i
		}
		m[2*p.tailGroup+1], m[1] = end, end
	}
	c, ok := r.x.build(p, r.pi, r.g, m)
	if ok {
		c.at += r.base
		c.vlo += r.base
		c.vhi += r.base
		r.cands = append(r.cands, c)
	}
	return ok
}

// shift moves the offsets of match m, found in a slice starting at by, to
// the segment's.
func shift(m []int, by int) {
	for k := range m {
		if m[k] >= 0 {
			m[k] += by
		}
	}
}

// startCandidates returns, in order, the offsets of g where p may start
// matching: word starts (past opening punctuation). With followers, only
// the words at most p.leadWords before one of them.
func (x *Extractor) startCandidates(p *pattern, g *segment) []int {
	lower := g.lowered()
	ws := g.words()
	out := g.ints[:0]
	add := func(k, limit int) {
		for k < limit {
			r, n := utf8.DecodeRuneInString(lower[k:limit])
			if !strings.ContainsRune("([{\"'`*_¿¡«“‘", r) {
				break
			}
			k += n
		}
		if k < limit {
			out = append(out, k)
		}
	}
	if p.followers == nil {
		for _, w := range ws {
			add(w.start, w.end)
		}
		g.ints = out
		return out
	}
	for wi, w := range ws {
		if !p.followers.after(lower, w) {
			continue
		}
		// The follower may start this word's end or, for one that begins
		// with a letter, the word itself: then the group ended a word
		// earlier.
		for k := wi; k >= 0 && k >= wi-p.leadWords; k-- {
			add(ws[k].start, ws[k].end)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	g.ints = out
	return out
}

func inClass(r rune, ranges []rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if r < ranges[i] {
			return false
		}
		if r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// window is how far past its start a match may reach before its last
// group (a value running to the end of the sentence is extended in code).
// A statement of a fact is a few dozen words; the bound keeps a
// megabyte-long "sentence" (a minified file, a log line) from costing
// time quadratic in its length.
const window = 400

// maxTail bounds a value that runs to the end of its sentence or line.
const maxTail = 2000

// windowEnd returns where the window starting at i ends: at a space when
// one is near, so that no word is cut.
func windowEnd(s string, i int) int {
	if len(s)-i <= window {
		return len(s)
	}
	if j := strings.LastIndexByte(s[i:i+window], ' '); j > window/2 {
		return i + j
	}
	return i + window
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isWordByte mirrors Go's ASCII \b: letters, digits and underscore; any
// byte of a multi-byte rune is not a word character.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// group returns the span of the first participating group among idx.
func group(m []int, idx []int) (int, int, bool) {
	for _, i := range idx {
		if m[2*i] >= 0 && m[2*i+1] > m[2*i] {
			return m[2*i], m[2*i+1], true
		}
	}
	return 0, 0, false
}

// build checks one match and turns it into a candidate.
func (x *Extractor) build(p *pattern, pi int, g *segment, m []int) (candidate, bool) {
	if m[0] > 0 && g.blocked(m[0]) {
		return candidate{}, false
	}
	c := candidate{prio: pi, at: m[0], phraseTmpl: p.spec.Phrase}
	if p.spec.Names != "" {
		if !x.takeNames(&c, p, g, m) {
			return candidate{}, false
		}
		return c, true
	}
	// Value first: it is what most often disqualifies a match.
	if !x.takeValue(&c, p, g, m) || !x.takeSubject(&c, p, g, m) || !x.takeFrom(&c, p, g, m) || !x.takeKind(&c, p, g, m) {
		return candidate{}, false
	}
	if c.fact.Attribute == "" && c.fact.From == "" {
		return candidate{}, false
	}
	if c.fact.Subject == "" && c.fact.From == "" {
		return candidate{}, false
	}
	return c, true
}

// takeNames fills c for a "names" pattern: the subject it names.
func (x *Extractor) takeNames(c *candidate, p *pattern, g *segment, m []int) bool {
	lo, hi, ok := group(m, p.subject)
	if !ok {
		return false
	}
	if lo, hi, ok = x.subjectSpan(p, g, lo, hi); !ok {
		return false
	}
	c.names, c.subjText, c.vlo, c.vhi = p.spec.Names, g.s[lo:hi], lo, hi
	c.fact.Subject = NormalizeSubject(c.subjText)
	return true
}

// takeValue fills c's value from match m, cleaned; false if there is none
// that passes.
func (x *Extractor) takeValue(c *candidate, p *pattern, g *segment, m []int) bool {
	vlo, vhi, ok := group(m, p.value)
	if !ok || !x.mayBeValue(p, g.s, vlo, vhi) {
		return false
	}
	vlo, vhi = x.clean(p, g, vlo, vhi, true)
	if vlo >= vhi || !x.valueOK(p, g, vlo, vhi) {
		return false
	}
	c.vlo, c.vhi = vlo, vhi
	c.fact.Value = g.s[vlo:vhi]
	c.valueText = c.fact.Value
	return true
}

// takeSubject fills c's subject: the one match m captured, normalised, or
// the pattern's own; false if a captured one is not a subject.
func (x *Extractor) takeSubject(c *candidate, p *pattern, g *segment, m []int) bool {
	lo, hi, ok := group(m, p.subject)
	if !ok {
		if p.spec.Subject != "" {
			c.fact.Subject = p.spec.Subject
			c.subjText = p.spec.Subject
			c.fixed = true
		}
		return true
	}
	if lo, hi, ok = x.subjectSpan(p, g, lo, hi); !ok {
		return false
	}
	c.subjText = g.s[lo:hi]
	if fw := g.wordsIn(lo, hi); len(fw) > 0 && determiners[fw[0].lower] {
		r, n := utf8.DecodeRuneInString(c.subjText)
		c.subjText = strings.ToLower(string(r)) + c.subjText[n:]
	}
	c.fact.Subject = NormalizeSubject(c.subjText)
	return c.fact.Subject != ""
}

// takeFrom fills c's old value ("switched from X"), if match m has one;
// false if it is no value or the same as the new one.
func (x *Extractor) takeFrom(c *candidate, p *pattern, g *segment, m []int) bool {
	lo, hi, ok := group(m, p.from)
	if !ok {
		return true
	}
	seg := g.s
	lo, hi = x.clean(p, g, lo, hi, true)
	if lo >= hi || len(g.wordsIn(lo, hi)) > p.maxWords || pronouns[strings.ToLower(seg[lo:hi])] {
		return false
	}
	c.fact.From = seg[lo:hi]
	c.fromText = c.fact.From
	return !strings.EqualFold(c.fact.From, c.fact.Value)
}

// takeKind fills c's attribute: the pattern's, or the one the kind match
// m captured names; false if a captured kind names none.
func (x *Extractor) takeKind(c *candidate, p *pattern, g *segment, m []int) bool {
	c.fact.Attribute = p.spec.Attribute
	lo, hi, ok := group(m, p.kind)
	if !ok {
		return true
	}
	hi, c.fact.Attribute = x.kindAt(g, lo, hi)
	if c.fact.Attribute == "" {
		return false
	}
	c.kindText = g.s[lo:hi]
	if r, n := utf8.DecodeRuneInString(c.kindText); strings.ToLower(c.kindText[n:]) == c.kindText[n:] {
		c.kindText = strings.ToLower(string(r)) + c.kindText[n:]
	}
	return true
}

// mayBeValue rejects, before any cleaning, a raw value text[lo:hi] that
// cannot pass p's value check. The cleaned value is a part of the raw one
// that starts at its first word (after filler like "now" and a
// lower-case article) and has at most p.maxWords words, so if that word
// is lower case and those words hold no digit, identifier punctuation or
// quote, no cleaning will make it a term. It runs for every occurrence of
// the strings before a value in a sentence that could otherwise match
// ("the build is simpler" ends here) and must be cheap: it looks at a few
// words and allocates nothing.
func (x *Extractor) mayBeValue(p *pattern, text string, lo, hi int) bool {
	switch p.valueKind {
	case "term", "name", "org", "place":
	case "number":
		return lo < hi && text[lo] >= '0' && text[lo] <= '9'
	default:
		return true
	}
	v := text[lo:hi]
	if v != "" && (v[0] >= 'A' && v[0] <= 'Z' || v[0] >= '0' && v[0] <= '9') {
		return true // the common case of a value, decided at once
	}
	// Map lookups of string(buf[:n]) do not allocate.
	var buf [24]byte
	lower := func(w string) int {
		if len(w) > len(buf) {
			return 0
		}
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		return len(w)
	}
	for {
		v = strings.TrimLeft(v, " \t")
		w := v
		if i := strings.IndexByte(v, ' '); i >= 0 {
			w = v[:i]
		}
		if w == "" || len(w) == len(v) {
			break
		}
		n := lower(w)
		if !leadingJunk[string(buf[:n])] && !(w == string(buf[:n]) && articles[string(buf[:n])]) {
			break
		}
		v = v[len(w):]
	}
	r, _ := utf8.DecodeRuneInString(v)
	if !unicode.IsLower(r) {
		return true
	}
	if p.valueKind != "term" {
		return false
	}
	// One pass over the words that can end up in the value: a digit, a
	// quote or identifier punctuation makes a term.
	first := len(v)
	for i, n := 0, 0; i < len(v) && n <= p.maxWords; i++ {
		switch c := v[i]; {
		case c == ' ':
			n++
			first = min(first, i)
		case c >= '0' && c <= '9', c == '`', c == '"', c == '\'':
			return true
		case c == ',' || c == ';':
			first = min(first, i)
		case strings.IndexByte("./_@:+#-", c) >= 0:
			if i > 0 && i+1 < len(v) && isAlnum(v[i-1]) && isAlnum(v[i+1]) {
				return true
			}
		}
	}
	n := lower(trimPunct(v[:first]))
	return x.terms[string(buf[:n])]
}

// articles are the articles a value may start with.
var articles = words.Set("value_articles")

// kindAt looks up the kind a kind group captured in the file's kinds.
// When the group ends the regex it may have stopped early ("text" of "text
// editor"), so the longest known run of words starting where it starts
// wins. It returns the end of the kind and its attribute, or "" if the
// words name no known kind.
func (x *Extractor) kindAt(g *segment, lo, hi int) (int, string) {
	if a, ok := x.kinds[strings.Join(strings.Fields(strings.ToLower(g.s[lo:hi])), " ")]; ok {
		return hi, a
	}
	ws := g.words()
	i := sort.Search(len(ws), func(k int) bool { return ws[k].start >= lo })
	end, attr := hi, ""
	var b strings.Builder
	for j := i; j < len(ws) && j < i+x.kindWords; j++ {
		if j > i {
			b.WriteByte(' ')
		}
		b.WriteString(ws[j].lower)
		if a, ok := x.kinds[b.String()]; ok {
			end, attr = ws[j].start+len(strings.TrimRightFunc(g.s[ws[j].start:ws[j].end], isPunct)), a
		}
	}
	return end, attr
}

// isRole reports whether the words of v include a known role.
func (x *Extractor) isRole(ws []word) bool {
	for i := range ws {
		var b strings.Builder
		for j := i; j < len(ws) && j < i+x.roleWords; j++ {
			if j > i {
				b.WriteByte(' ')
			}
			b.WriteString(ws[j].lower)
			if x.roles[b.String()] {
				return true
			}
		}
	}
	return false
}

// subjectSpan cleans and checks a captured subject.
func (x *Extractor) subjectSpan(p *pattern, g *segment, lo, hi int) (int, int, bool) {
	seg := g.s
	lo, hi = x.clean(p, g, lo, hi, false)
	ws := g.wordsIn(lo, hi)
	if len(ws) == 0 {
		return 0, 0, false
	}
	switch p.subjectKind {
	case "det":
		// A lazily matched subject may have started too early: keep what
		// follows the last word no noun phrase contains.
		for i := len(ws) - 1; i >= 1; i-- {
			if breakers[ws[i].lower] {
				ws = ws[i+1:]
				break
			}
		}
		if len(ws) < 2 || len(ws) > 7 || !determiners[ws[0].lower] {
			return 0, 0, false
		}
		for _, w := range ws[1:] {
			if pronouns[w.lower] || determiners[w.lower] {
				return 0, 0, false
			}
		}
	case "token":
		if len(ws) != 1 || pronouns[ws[0].lower] || stripWords[ws[0].lower] || notNames[ws[0].lower] || ws[0].lower == "" {
			return 0, 0, false
		}
	case "name":
		for len(ws) > 0 && notNames[ws[0].lower] {
			ws = ws[1:]
		}
		if len(ws) == 0 || len(ws) > 4 {
			return 0, 0, false
		}
		for _, w := range ws {
			if !startsUpper(seg[w.start:w.end]) || pronouns[w.lower] {
				return 0, 0, false
			}
		}
	default:
		n := 0
		for n < len(ws)-1 && stripWords[ws[n].lower] {
			n++
		}
		if len(ws)-n > 6 || pronouns[ws[n].lower] && n == len(ws)-1 {
			return 0, 0, false
		}
	}
	return ws[0].start, ws[len(ws)-1].end, true
}

// clean narrows a captured group to the value it holds: cut at the first
// stop, punctuation or (outside lists) conjunction; trim quotes, emphasis
// and sentence punctuation; drop trailing articles and prepositions, and
// for values leading filler ("now") and a leading lower-case article.
func (x *Extractor) clean(p *pattern, g *segment, lo, hi int, isValue bool) (int, int) {
	seg := g.s
	lo, hi = trimValue(seg, lo, hi)
	if isValue {
		for {
			ws := g.wordsIn(lo, hi)
			if len(ws) < 2 || !leadingJunk[ws[0].lower] {
				break
			}
			lo = ws[1].start
		}
	}
	if !p.spec.Raw {
		hi = g.firstStop(p, lo, hi)
		v := seg[lo:hi]
		cut := len(v)
		punct := ";([{|"
		if !p.spec.List {
			punct += ","
		}
		if i := strings.IndexAny(v, punct); i >= 0 {
			cut = i
		}
		for _, sep := range []string{": ", ". ", " - ", " – ", " — ", "—"} {
			if i := strings.Index(v[:cut], sep); i >= 0 {
				cut = i
			}
		}
		hi = lo + cut
	}
	for {
		lo, hi = trimValue(seg, lo, hi)
		ws := g.wordsIn(lo, hi)
		if len(ws) == 0 {
			return lo, lo
		}
		if last := ws[len(ws)-1]; !p.spec.Raw && len(ws) > 1 && trailingJunk[last.lower] && seg[last.start:last.end] == last.lower {
			hi = ws[len(ws)-2].end
			continue
		}
		break
	}
	if isValue {
		for _, a := range leadingArticles {
			if hi-lo > len(a) && strings.HasPrefix(seg[lo:hi], a) {
				lo += len(a)
				break
			}
		}
	}
	return lo, hi
}

// valueOK checks a cleaned value against its pattern's expectations.
func (x *Extractor) valueOK(p *pattern, g *segment, lo, hi int) bool {
	seg := g.s
	v := seg[lo:hi]
	ws := g.wordsIn(lo, hi)
	if len(ws) == 0 || len(ws) > p.maxWords {
		return false
	}
	first := ws[0].lower
	if pronouns[first] && (len(ws) == 1 || p.valueKind != "any") {
		return false
	}
	if !strings.ContainsFunc(v, func(r rune) bool {
		return r >= '0' && r <= '9' || r > 0x7f || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}) {
		return false
	}
	switch p.valueKind {
	case "term":
		quoted := lo > 0 && strings.IndexByte("`\"'", seg[lo-1]) >= 0
		return quoted || startsUpper(v) || hasDigit(v) || codeLike(v) || x.terms[first] || x.terms[strings.ToLower(v)]
	case "name":
		return startsUpper(v)
	case "org":
		return startsUpper(v) && !x.terms[first] && !x.terms[strings.ToLower(v)]
	case "place":
		return startsUpper(v) && !hasDigit(v) && !x.terms[first] && !x.terms[strings.ToLower(v)]
	case "number":
		return strings.Trim(v, "0123456789") == ""
	case "role":
		return x.isRole(ws)
	}
	return true
}

package facts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
)

// fileSpec is the patterns data file; the package comment documents it.
type fileSpec struct {
	Comment     string            `json:"comment,omitempty"`
	Macros      map[string]string `json:"macros,omitempty"`
	Terms       []string          `json:"terms,omitempty"`
	Kinds       map[string]string `json:"kinds,omitempty"`
	Roles       []string          `json:"roles,omitempty"`
	Stops       []string          `json:"stops,omitempty"`
	Conjunction []string          `json:"conjunctions,omitempty"`
	ListBreaks  []string          `json:"list_breaks,omitempty"`
	Patterns    []patternSpec     `json:"patterns"`

	// After merge: how many of Stops, Conjunction and ListBreaks are the
	// defaults' (they come first), so errors can name the right file.
	defStops, defConj, defBreaks int
}

// patternSpec is one pattern of the data file.
type patternSpec struct {
	Name        string   `json:"name"`
	Lang        string   `json:"lang,omitempty"`
	Comment     string   `json:"comment,omitempty"`
	Regex       string   `json:"regex"`
	Subject     string   `json:"subject,omitempty"`
	SubjectKind string   `json:"subject_kind,omitempty"`
	Attribute   string   `json:"attribute,omitempty"`
	Phrase      string   `json:"phrase,omitempty"`
	Value       string   `json:"value,omitempty"`
	List        bool     `json:"list,omitempty"`
	Raw         bool     `json:"raw,omitempty"`
	Line        bool     `json:"line,omitempty"`
	MaxWords    int      `json:"max_words,omitempty"`
	Stops       []string `json:"stops,omitempty"`
	Names       string   `json:"names,omitempty"`
	Examples    []string `json:"examples,omitempty"`
	Disabled    bool     `json:"disabled,omitempty"`
}

// pattern is a compiled patternSpec, with what the prefilter and the
// matcher learned from its regular expression.
type pattern struct {
	spec        patternSpec
	valueKind   string
	subjectKind string
	maxWords    int
	stopper     *stopper // the pattern's own stops, if any

	// Group numbers, by name (a name may repeat).
	subject, value, from, kind []int

	// Prefilter: every match contains a member of each of reqs. With
	// checkFirst, reqs[0] is valuePre and counts only where a value may
	// follow.
	reqs       [][]string
	checkFirst bool
	valuePre   []string // the value always follows one of these (lower case); nil: unknown

	// Matching. A regex that starts with ^ (anchored) runs once; one whose
	// matches start with one of starts (or, lacking those, with a rune of
	// class) runs as startsAt at each word that does; any other runs as re.
	re        *regexp.Regexp
	anchored  bool
	starts    []string      // ASCII lower case
	byFirst   [256][]string // starts by first byte
	boundary  bool          // the regex begins with \b
	class     []rune        // rune ranges
	startsAt  *regexp.Regexp
	followers *afterWords // what must follow the leading group of a match
	leadWords int         // the leading group's longest acceptable length, in words
	tailGroup int         // the last group, (?P<name>.+), matched as one rune and extended in code; 0: none
}

// checkable are the value kinds mayBeValue can rule out from the first
// word.
var checkable = map[string]bool{"term": true, "name": true, "org": true, "place": true, "number": true}

var (
	valueKinds   = map[string]bool{"": true, "any": true, "term": true, "name": true, "org": true, "place": true, "number": true, "role": true}
	subjectKinds = map[string]bool{"": true, "any": true, "det": true, "token": true, "name": true}
	placeholders = map[string]bool{"subject": true, "value": true, "from": true, "kind": true}
	macroRef     = regexp.MustCompile(`\{\{([A-Za-z0-9_]+)\}\}`)
)

// parseFile decodes a data file strictly: an unknown field is a typo that
// would otherwise silently disable what the user meant to add.
func parseFile(name string, data []byte) (*fileSpec, error) {
	var f fileSpec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, fmt.Errorf("facts: %s: line %d: %w", name, line, err)
		}
		return nil, fmt.Errorf("facts: %s: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("facts: %s: trailing data after the JSON object", name)
	}
	return &f, nil
}

// merge adds the user's file to the defaults: user patterns come first so
// they win where they overlap a default one, and one named like a default
// pattern replaces it (with "disabled": true, removes it); a macro the
// user defines under an existing name adds alternatives to it; terms,
// roles and stops add up; kinds map more names (or remap existing ones).
func merge(def, user *fileSpec) *fileSpec {
	out := &fileSpec{Macros: map[string]string{}, Kinds: map[string]string{}}
	for k, v := range def.Macros {
		out.Macros[k] = v
	}
	for k, v := range user.Macros {
		if old, ok := out.Macros[k]; ok {
			v = old + "|" + v
		}
		out.Macros[k] = v
	}
	for k, v := range def.Kinds {
		out.Kinds[k] = v
	}
	for k, v := range user.Kinds {
		out.Kinds[k] = v
	}
	out.Terms = append(append([]string{}, def.Terms...), user.Terms...)
	out.Roles = append(append([]string{}, def.Roles...), user.Roles...)
	out.Stops = append(append([]string{}, def.Stops...), user.Stops...)
	out.Conjunction = append(append([]string{}, def.Conjunction...), user.Conjunction...)
	out.ListBreaks = append(append([]string{}, def.ListBreaks...), user.ListBreaks...)
	out.defStops, out.defConj, out.defBreaks = len(def.Stops), len(def.Conjunction), len(def.ListBreaks)
	mine := map[string]bool{}
	for _, p := range user.Patterns {
		mine[p.Name] = true
	}
	out.Patterns = append([]patternSpec{}, user.Patterns...)
	for _, p := range def.Patterns {
		if !mine[p.Name] {
			out.Patterns = append(out.Patterns, p)
		}
	}
	return out
}

// expand replaces {{name}} macro references, which may nest.
func expand(s string, macros map[string]string) (string, error) {
	for depth := 0; strings.Contains(s, "{{"); depth++ {
		if depth > 8 {
			return "", errors.New("macros nest too deeply (a macro refers to itself?)")
		}
		var missing string
		s = macroRef.ReplaceAllStringFunc(s, func(ref string) string {
			name := ref[2 : len(ref)-2]
			v, ok := macros[name]
			if !ok {
				missing = name
				return ref
			}
			return "(?:" + v + ")"
		})
		if missing != "" {
			return "", fmt.Errorf("unknown macro {{%s}}", missing)
		}
	}
	return s, nil
}

// compile builds an Extractor from a merged file. name is the file the
// user patterns came from, for error messages; nUser is how many of
// f.Patterns came from it (they come first).
func compile(f *fileSpec, name string, nUser int) (*Extractor, error) {
	x := &Extractor{terms: map[string]bool{}, kinds: map[string]string{}}
	for _, t := range f.Terms {
		x.terms[strings.ToLower(strings.TrimSpace(t))] = true
	}
	for k, v := range f.Kinds {
		k = strings.Join(strings.Fields(strings.ToLower(k)), " ")
		x.kinds[k] = v
		x.kindWords = max(x.kindWords, len(strings.Fields(k)))
	}
	x.roles = map[string]bool{}
	for _, r := range f.Roles {
		r = strings.Join(strings.Fields(strings.ToLower(r)), " ")
		x.roles[r] = true
		x.roleWords = max(x.roleWords, len(strings.Fields(r)))
	}
	for _, l := range []struct {
		field string
		frags []string
		def   int
		kind  stopKind
	}{
		{"stops", f.Stops, f.defStops, stopAlways},
		{"conjunctions", f.Conjunction, f.defConj, stopConjunction},
		{"list_breaks", f.ListBreaks, f.defBreaks, stopAlways},
	} {
		if err := x.stopper.add(l.frags[:l.def], l.kind, f.Macros); err != nil {
			return nil, fmt.Errorf("facts: default patterns: %s%w", l.field, err)
		}
		if err := x.stopper.add(l.frags[l.def:], l.kind, f.Macros); err != nil {
			return nil, fmt.Errorf("facts: %s: %s%w", name, l.field, err)
		}
	}
	seen := map[string]int{}
	for i, ps := range f.Patterns {
		where := func(err error) error {
			file, idx := name, i
			if i >= nUser {
				file, idx = "default patterns", i-nUser
			}
			return fmt.Errorf("facts: %s: patterns[%d] %q: %w", file, idx, ps.Name, err)
		}
		if _, dup := seen[ps.Name]; dup && ps.Name != "" {
			return nil, where(errors.New("duplicate name"))
		}
		seen[ps.Name] = i
		if ps.Disabled {
			continue
		}
		p, err := compilePattern(ps, f.Macros)
		if err != nil {
			return nil, where(err)
		}
		x.patterns = append(x.patterns, p)
		if i < nUser {
			for _, ex := range ps.Examples {
				if len(x.runOne(len(x.patterns)-1, ex)) == 0 {
					return nil, where(fmt.Errorf("example %q extracts nothing", ex))
				}
			}
		}
	}
	x.buildPrefilter()
	return x, nil
}

// compilePattern checks a pattern of the file and compiles it with what
// the prefilter and the anchored runs need. Its errors name the field at
// fault.
func compilePattern(ps patternSpec, macros map[string]string) (*pattern, error) {
	if err := checkSpec(ps); err != nil {
		return nil, err
	}
	src, err := expand(ps.Regex, macros)
	if err != nil {
		return nil, fmt.Errorf("regex: %w", err)
	}
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("regex: %w", err)
	}
	p := &pattern{spec: ps, maxWords: ps.MaxWords, valueKind: ps.Value, subjectKind: ps.SubjectKind}
	if err := p.groups(parsed); err != nil {
		return nil, err
	}
	if err := checkPhrase(ps.Phrase); err != nil {
		return nil, err
	}
	if p.maxWords == 0 {
		p.maxWords = defaultMaxWords(ps)
	}
	if len(ps.Stops) > 0 {
		p.stopper = &stopper{}
		if err := p.stopper.add(ps.Stops, stopAlways, macros); err != nil {
			return nil, fmt.Errorf("stops%w", err)
		}
	}
	parsed = parsed.Simplify()
	src = p.analyse(parsed, src)
	if err := p.compile(parsed, src); err != nil {
		return nil, fmt.Errorf("regex: %w", err)
	}
	return p, nil
}

// checkSpec checks the fields of a pattern that need no regex.
func checkSpec(ps patternSpec) error {
	if ps.Name == "" {
		return errors.New("name is required")
	}
	if ps.Regex == "" {
		return errors.New("regex is required")
	}
	if !valueKinds[ps.Value] {
		return fmt.Errorf("value %q: want one of any, term, name, org, place, number, role", ps.Value)
	}
	if !subjectKinds[ps.SubjectKind] {
		return fmt.Errorf("subject_kind %q: want one of any, det, token, name", ps.SubjectKind)
	}
	return nil
}

// groups records the regex's named groups and checks the pattern has the
// ones its fields do not stand in for.
func (p *pattern) groups(parsed *syntax.Regexp) error {
	for i, n := range parsed.CapNames() {
		switch n {
		case "subject":
			p.subject = append(p.subject, i)
		case "value":
			p.value = append(p.value, i)
		case "from":
			p.from = append(p.from, i)
		case "kind":
			p.kind = append(p.kind, i)
		case "":
		default:
			return fmt.Errorf("regex: unknown group name %q (want subject, value, from or kind)", n)
		}
	}
	ps := p.spec
	switch {
	case ps.Names != "":
		if len(p.subject) == 0 {
			return errors.New(`a "names" pattern needs a subject group`)
		}
	case len(p.value) == 0:
		return errors.New("regex: a (?P<value>...) group is required")
	case ps.Attribute == "" && len(p.kind) == 0 && len(p.from) == 0:
		return errors.New(`attribute is required unless the regex has a kind or from group`)
	case ps.Subject == "" && len(p.subject) == 0 && len(p.from) == 0:
		return errors.New(`subject is required unless the regex has a subject or from group`)
	}
	return nil
}

// defaultMaxWords is how many words a value of ps may run to when ps does
// not say.
func defaultMaxWords(ps patternSpec) int {
	switch {
	case ps.Raw:
		return 80
	case ps.List:
		return 16
	default:
		return 8
	}
}

// analyse reads from the simplified regex what the prefilter needs: whether
// it is anchored, what the value must start with, the literals a match
// must contain. It returns src rewritten for a trailing value group.
func (p *pattern) analyse(parsed *syntax.Regexp, src string) string {
	p.anchored = startsAnchored(parsed)
	if len(p.value) == 1 {
		p.valuePre = valuePrefixes(parsed, p.value[0])
	}
	p.reqs = requirements(parsed)
	if tail := trailingAny(parsed); tail != nil {
		// A group that runs to the end of the sentence ((?P<value>.+)) is
		// matched as one character and extended in code: Go's backtracker
		// spends time on every character of it, and the cleaning that
		// follows decides where the value really ends anyway. The rewrite
		// is textual (printing a parsed expression back folds every case
		// range again, which is slow), so it applies to the usual spelling.
		if suffix := "(?P<" + tail.Name + ">.+)"; strings.HasSuffix(src, suffix) {
			src = src[:len(src)-len(".+)")] + ".)"
			p.tailGroup = tail.Cap
		}
	}
	return src
}

// compile compiles src: for a pattern that can be tried only where a match
// can start (the words it starts with, or the class of its first
// character), in its anchored form alone, with what follows its leading
// group; otherwise as it is.
func (p *pattern) compile(parsed *syntax.Regexp, src string) (err error) {
	if p.anchored {
		p.re, err = regexp.Compile(src)
		return err
	}
	if p.starts, p.boundary = startSet(parsed); p.starts != nil {
		for _, s := range p.starts {
			p.byFirst[s[0]] = append(p.byFirst[s[0]], s)
		}
	} else {
		p.class = firstClass(parsed)
	}
	p.leaders(parsed)
	if p.starts != nil || p.class != nil {
		// Only the anchored form is needed: run tries it where a match
		// can start.
		p.startsAt, err = regexp.Compile(`^(?:` + src + `)`)
		return err
	}
	p.re, err = regexp.Compile(src)
	return err
}

// leaders records the words that may follow the regex's leading subject or
// value group, and how many words that group may take.
func (p *pattern) leaders(parsed *syntax.Regexp) {
	g, f := leadFollowers(parsed)
	if f == nil {
		return
	}
	switch {
	case slices.Contains(p.subject, g):
		p.followers = newAfterWords(f)
		switch p.subjectKind {
		case "token":
			p.leadWords = 1
		case "name":
			p.leadWords = 4
		default:
			p.leadWords = 7
		}
	case slices.Contains(p.value, g):
		p.followers, p.leadWords = newAfterWords(f), p.maxWords
	}
}

// trailingAny returns the capture group that ends every match of re when
// it is (?P<name>.+).
func trailingAny(re *syntax.Regexp) *syntax.Regexp {
	if re.Op != syntax.OpConcat || len(re.Sub) == 0 {
		return nil
	}
	last := re.Sub[len(re.Sub)-1]
	if last.Op != syntax.OpCapture || last.Sub[0].Op != syntax.OpPlus || last.Sub[0].Sub[0].Op != syntax.OpAnyCharNotNL {
		return nil
	}
	return last
}

// startsAnchored reports whether re can only match at the start of its
// input (or of a line).
func startsAnchored(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpBeginLine, syntax.OpBeginText:
			return true
		case syntax.OpConcat, syntax.OpCapture:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		default:
			return false
		}
	}
}

// checkPhrase rejects placeholders the renderer would leave in the text.
func checkPhrase(s string) error {
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return fmt.Errorf("phrase: unclosed {")
		}
		if name := s[i+1 : i+j]; !placeholders[name] {
			return fmt.Errorf("phrase: unknown placeholder {%s} (want {subject}, {value}, {from} or {kind})", name)
		}
		s = s[i+j+1:]
	}
}

// buildPrefilter compiles the literals of every pattern into one automaton;
// patterns without literals run on every sentence (or line).
func (x *Extractor) buildPrefilter() {
	index := map[string]int{}
	var lits []string
	var owners, lineOwners [][]owner
	for pi, p := range x.patterns {
		if len(p.reqs) == 0 {
			if p.spec.Line {
				x.alwaysLine = append(x.alwaysLine, pi)
			} else {
				x.alwaysSentence = append(x.alwaysSentence, pi)
			}
			continue
		}
		reqs := p.reqs
		checked := -1
		if p.valuePre != nil && checkable[p.valueKind] {
			// The strings before the value are a requirement met only
			// where what follows could pass the value check: "the build
			// is simpler" does not even reach the regex.
			reqs = append([][]string{p.valuePre}, reqs...)
			if len(reqs) > maxRequirements {
				reqs = reqs[:maxRequirements]
			}
			checked = 0
			p.reqs = reqs
			p.checkFirst = true
		}
		if p.valueKind == "role" && len(reqs) < maxRequirements {
			// A role value must name a role: that is one more literal to
			// look for before running the regex.
			var words []string
			for r := range x.roles {
				words = append(words, r)
			}
			if set := usable(words); set != nil {
				sort.Strings(set)
				reqs = append(reqs, set)
				p.reqs = reqs
			}
		}
		for bit, set := range reqs {
			for _, l := range set {
				id, ok := index[l]
				if !ok {
					id = len(lits)
					index[l] = id
					lits = append(lits, l)
					owners = append(owners, nil)
					lineOwners = append(lineOwners, nil)
				}
				o := owner{pat: pi, bit: uint8(bit), check: bit == checked}
				if p.spec.Line {
					lineOwners[id] = append(lineOwners[id], o)
				} else {
					owners[id] = append(owners[id], o)
				}
			}
		}
	}
	x.auto = newAutomaton(lits, owners, lineOwners)
}

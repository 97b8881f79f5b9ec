package facts

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
)

// Stops end a value: "I live in Valencia now, since June" stops at "now".
// In a stop, the word "#" stands for any number ("on #" stops at "on
// 2025-09-02", "# years ago" at "3 years ago").
// There are a couple of hundred of them, and every captured group is cut
// at the first, so they are matched word by word rather than as one large
// regular expression (which Go runs as an NFA at a fraction of the
// speed): a fragment whose regular expression matches a finite set of
// phrases ("last (?:week|month)") is expanded into those phrases and
// looked up by first word; only the few others ("\d+ years ago") stay
// regular expressions, and run only on a segment that contains one of
// their literals.

// stopKind says where a stop applies.
type stopKind uint8

const (
	stopAlways      stopKind = iota // every non-raw value
	stopConjunction                 // values of patterns that do not take lists
)

type stopPhrase struct {
	rest []string // the words after the first
	kind stopKind
}

type stopRegexp struct {
	re   *regexp.Regexp // (?i)(?:^|\s)(frag)(?:[^\p{L}\p{N}_]|$): group 1 is the stop
	lits []string       // one of these occurs in every match (lower case); nil: unknown
	kind stopKind
}

// stopper finds stops in a segment.
type stopper struct {
	phrases map[string][]stopPhrase // by first word
	regexps []stopRegexp
}

// add compiles stop fragments (regular expressions, case-insensitive).
func (st *stopper) add(frags []string, kind stopKind, macros map[string]string) error {
	if st.phrases == nil {
		st.phrases = map[string][]stopPhrase{}
	}
	for i, fr := range frags {
		src, err := expand(fr, macros)
		if err != nil {
			return fmt.Errorf("[%d] %q: %w", i, fr, err)
		}
		re, err := syntax.Parse("(?i)"+src, syntax.Perl)
		if err != nil {
			return fmt.Errorf("[%d] %q: %w", i, fr, err)
		}
		re = re.Simplify()
		if set, ok := exactSet(re); ok && !containsEmpty(set) {
			for _, s := range set {
				ws := strings.Fields(s)
				if len(ws) == 0 {
					continue
				}
				st.phrases[ws[0]] = append(st.phrases[ws[0]], stopPhrase{ws[1:], kind})
			}
			continue
		}
		cre, err := regexp.Compile(`(?i)(?:^|\s)(` + src + `)(?:[^\p{L}\p{N}_]|$)`)
		if err != nil {
			return fmt.Errorf("[%d] %q: %w", i, fr, err)
		}
		st.regexps = append(st.regexps, stopRegexp{re: cre, lits: required(re), kind: kind})
	}
	return nil
}

func containsEmpty(set []string) bool {
	for _, s := range set {
		if strings.TrimSpace(s) == "" {
			return true
		}
	}
	return false
}

// stop is a stop found in a segment: the offset of its first word.
type stop struct {
	pos  int
	kind stopKind
}

// find returns the stops of seg (whose words are ws) in offset order.
func (st *stopper) find(seg string, ws []word) []stop {
	var out []stop
	for i, w := range ws {
		phrases := st.phrases[w.lower]
		if w.lower != "" && w.lower[0] >= '0' && w.lower[0] <= '9' {
			phrases = st.phrases["#"]
		}
		for _, ph := range phrases {
			if i+len(ph.rest) >= len(ws) {
				continue
			}
			ok := true
			for k, r := range ph.rest {
				if w := ws[i+1+k].lower; w != r && !(r == "#" && w != "" && w[0] >= '0' && w[0] <= '9') {
					ok = false
					break
				}
			}
			// Words are compared whole: "now" never stops "nowhere".
			if ok {
				out = append(out, stop{w.start, ph.kind})
				break
			}
		}
	}
	if len(st.regexps) > 0 {
		var lower string
		for _, r := range st.regexps {
			if r.lits != nil {
				if lower == "" {
					lower = asciiLower(seg)
				}
				if !containsAny(lower, r.lits) {
					continue
				}
			}
			for _, m := range r.re.FindAllStringSubmatchIndex(seg, -1) {
				out = append(out, stop{m[2], r.kind})
			}
		}
		sortStops(out)
	}
	return out
}

// asciiLower lower-cases ASCII letters only, keeping offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

func sortStops(s []stop) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].pos < s[j-1].pos; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// segment is one sentence or line being read, with what several matches
// on it share, computed once.
type segment struct {
	s        string
	x        *Extractor
	lower    string // ASCII lower case, same offsets
	ws       []word
	buf      []word
	ints     []int
	stops    []stop
	hasWords bool
	analysed bool
}

func (g *segment) lowered() string {
	if g.lower == "" {
		g.lower = asciiLower(g.s)
	}
	return g.lower
}

// wordsIn returns the words of g.s[lo:hi], from the segment's words cut
// to the range. The slice is reused by the next call.
func (g *segment) wordsIn(lo, hi int) []word {
	ws := g.words()
	i := sort.Search(len(ws), func(i int) bool { return ws[i].end > lo })
	g.buf = g.buf[:0]
	for ; i < len(ws) && ws[i].start < hi; i++ {
		w := ws[i]
		if w.start < lo || w.end > hi {
			w.start, w.end = max(w.start, lo), min(w.end, hi)
			if w.start >= w.end {
				continue
			}
			w.lower = strings.ToLower(strings.TrimFunc(g.s[w.start:w.end], isPunct))
		}
		g.buf = append(g.buf, w)
	}
	return g.buf
}

func (g *segment) words() []word {
	if !g.hasWords {
		g.ws = appendWords(g.ws[:0], g.s, g.lowered(), 0, len(g.s))
		g.hasWords = true
	}
	return g.ws
}

// reset makes g the segment s, keeping its buffers: one segment value
// serves every sentence of a text.
func (g *segment) reset(s string) {
	*g = segment{s: s, x: g.x, ws: g.ws[:0], buf: g.buf[:0], ints: g.ints[:0], stops: g.stops[:0]}
}

// blocked reports whether a blocker occurs among the three words before
// offset i, within the same clause: "if the API listens on port 8080" and
// "perhaps the API listens…" are blocked, "No, I live in Madrid" is not.
func (g *segment) blocked(i int) bool {
	ws := g.words()
	n := sort.Search(len(ws), func(k int) bool { return ws[k].end > i })
	for k := n - 1; k >= 0 && k >= n-3; k-- {
		if strings.IndexByte(",;:", g.s[ws[k].end-1]) >= 0 {
			return false
		}
		if blockers[ws[k].lower] {
			return true
		}
		if ws[k].lower == "vez" && k > 0 && ws[k-1].lower == "tal" { // "tal vez"
			return true
		}
	}
	return false
}

func (g *segment) analyse() {
	if !g.analysed {
		g.stops = g.x.stopper.find(g.s, g.words())
		g.analysed = true
	}
}

// firstStop returns the offset of the first stop in [lo,hi) that applies
// to p, or hi.
func (g *segment) firstStop(p *pattern, lo, hi int) int {
	g.analyse()
	first := sort.Search(len(g.stops), func(k int) bool { return g.stops[k].pos >= lo })
	for _, st := range g.stops[first:] {
		if st.pos >= hi {
			break
		}
		if st.pos >= lo && (st.kind == stopAlways || !p.spec.List) {
			return st.pos
		}
	}
	if p.stopper != nil {
		i := sort.Search(len(g.ws), func(k int) bool { return g.ws[k].start >= lo })
		j := i
		for j < len(g.ws) && g.ws[j].end <= hi {
			j++
		}
		for _, st := range p.stopper.find(g.s, g.ws[i:j]) {
			if st.pos >= lo && st.pos < hi {
				return st.pos
			}
		}
	}
	return hi
}

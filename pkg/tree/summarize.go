package tree

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Sizes of what the default summarizer writes, in bytes.
const (
	titleLen         = 100
	excerptLen       = 240
	branchExcerptLen = 300
	leafKeywords     = 10
	branchKeywords   = 16
)

// Extractive is the default Summarizer: offline, deterministic, and made
// only of the children's own words, so a person reading a branch sees
// sentences they wrote, and tests can assert the tree's shape.
//
// Terms are ranked by frequency × rarity. Frequency: in a leaf, how often
// the term occurs; in a branch, how much the children use it (their title
// and keywords count double, one child's share is capped so a chatty child
// does not name the branch). Rarity comes from Rarity when set — the tree
// sets it to an inverse document frequency over every leaf's keywords, so
// words common across the whole memory ("use", "file") do not crowd out the
// ones that tell branches apart — and otherwise from the siblings alone
// (1 + ln(children/df)).
//
// A leaf is described by its title (or its first sentence that is words,
// not key or certificate material), the start of its text as the excerpt
// and its top terms as keywords (tokenize decides what a term is and drops
// English and Spanish stop words). A branch's title says what its children
// have in common: its top terms — those two or more children share first
// — as the children wrote them ("PostgreSQL", not the stem "postgresql"),
// never one child's sentence; a branch whose terms no child wrote out
// falls back to the sentence covering most of them.
type Extractive struct {
	// Rarity weighs a term by how rare it is in the whole memory; nil
	// weighs terms by their rarity among a branch's children only.
	Rarity func(term string) float64
}

// Describe implements Summarizer.
func (x Extractive) Describe(it Item) ChildSummary {
	text := collapseSpace(it.Text)
	title := collapseSpace(it.Title)
	if title == "" || material(title) {
		title = firstSentence(it.Text)
	}
	return ChildSummary{
		ID:       it.ID,
		Title:    clipText(title, titleLen),
		Excerpt:  clipText(text, excerptLen),
		Keywords: leafTerms(leafKeywords, x.Rarity, it.Title, it.Text),
		Tags:     slices.Clone(it.Tags),
	}
}

// leafTerms returns the n informative terms of texts that rank highest by
// count × rarity (or count alone); ties go to the longer term (longer words
// are rarer), then to the first seen. Each text is tokenized on its own, so
// a leaf's text is read from the tokenizer's memo of what was just saved.
func leafTerms(n int, rarity func(string) float64, texts ...string) []string {
	type count struct {
		n, first int
	}
	counts := make(map[string]*count)
	pos := 0
	for _, text := range texts {
		tokenize.Each(text, func(t string) {
			pos++
			if !informative(t) {
				return
			}
			c := counts[t]
			if c == nil {
				c = &count{first: pos}
				counts[t] = c
			}
			c.n++
		})
	}
	terms := make([]string, 0, len(counts))
	score := make(map[string]float64, len(counts))
	for t, c := range counts {
		terms = append(terms, t)
		score[t] = float64(c.n)
		if rarity != nil {
			score[t] *= rarity(t)
		}
	}
	slices.SortFunc(terms, func(a, b string) int {
		ca, cb := counts[a], counts[b]
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return cmp.Compare(ca.first, cb.first)
	})
	if len(terms) > n {
		terms = terms[:n]
	}
	return terms
}

// informative reports whether a term is worth a keyword: not a stop word,
// not a single character, not a short number.
func informative(t string) bool {
	if len(t) < 2 || tokenize.IsStopWord(t) {
		return false
	}
	if len(t) < 4 && strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		return false
	}
	return true
}

// Summarize implements Summarizer.
func (x Extractive) Summarize(group string, children []ChildSummary) (string, []string) {
	stats, sentences := childStats(children)
	score := x.branchScores(stats, len(children))
	terms := topKeys(score, branchKeywords)
	if title := sharedTitle(stats, score, sentences); title != "" {
		return clipText(title, titleLen), terms
	}
	return clipText(bestSentence(sentences, terms, score), titleLen), terms
}

// titleTerms is how many terms a branch's title names.
const titleTerms = 4

// sharedTitle names a branch by what its children share: its best terms
// that two or more children use, then its best others, up to titleTerms,
// each as a child wrote it, joined by commas. A name — a word written
// with a capital inside a sentence, or with a digit ("Madrid", "GitHub",
// "Postgres 15") — counts double here: it says what a group is about
// better than the common words its members share. Terms no child's title
// or excerpt spells out (a stem from deeper in a text), light words and
// noise (hashes, encoded keys) are left out; "" when no term is left.
func sharedTitle(stats map[string]*termStat, score map[string]float64, sentences []sentence) string {
	written, named := surfaces(sentences)
	weight := make(map[string]float64, len(score))
	for t, sc := range score {
		weight[t] = sc
		if named[t] {
			weight[t] = 2 * sc
		}
	}
	ranked := topKeys(weight, len(weight))
	var words []string
	for _, shared := range []bool{true, false} {
		for _, t := range ranked {
			w, ok := written[t]
			if len(words) == titleTerms || !ok || (stats[t].df >= 2) != shared || noise(t) || tokenize.IsLight(t) || slices.Contains(words, w) {
				continue
			}
			words = append(words, w)
		}
	}
	return strings.Join(words, ", ")
}

// surfaces maps each term of the sentences to the word that spelled it
// first, as written: "postgresql" → "PostgreSQL", "kubernet" →
// "Kubernetes". A compound ("parseHTTPRequest") spells its joined term
// only, not its parts. named holds the terms some sentence writes as a
// name: with a capital letter other than at the sentence's start, or with
// a digit.
func surfaces(sentences []sentence) (written map[string]string, named map[string]bool) {
	written, named = make(map[string]string), make(map[string]bool)
	for _, s := range sentences {
		for i, w := range strings.FieldsFunc(s.text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			var terms []string
			tokenize.Each(w, func(t string) { terms = append(terms, t) })
			if len(terms) == 0 {
				continue
			}
			t := terms[len(terms)-1] // the word's own term, or a compound's joined one
			if len(terms) > 2 && t != strings.ToLower(w) {
				continue
			}
			if _, seen := written[t]; !seen {
				written[t] = w
			}
			capital := strings.IndexFunc(w, unicode.IsUpper)
			if capital > 0 || capital == 0 && i > 0 || strings.IndexFunc(w, unicode.IsDigit) >= 0 {
				named[t] = true
			}
		}
	}
	return written, named
}

// noise reports whether a term is material rather than a word: a long
// run of letters and digits mixed (a hash, a key's base64, an id).
func noise(t string) bool {
	if len(t) >= 30 {
		return true
	}
	digits := strings.IndexFunc(t, unicode.IsDigit) >= 0
	letters := strings.IndexFunc(t, unicode.IsLetter) >= 0
	return len(t) >= 12 && digits && letters
}

// material reports whether a line is key or certificate material, or an
// encoded blob, rather than words a title could be made of: PEM armour
// ("-----BEGIN CERTIFICATE-----"), or a line that is mostly one long run
// without spaces.
func material(line string) bool {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "-----") && strings.HasSuffix(line, "-----") {
		return true
	}
	longest := 0
	for _, f := range strings.Fields(line) {
		longest = max(longest, len(f))
	}
	return longest >= 40 && longest*2 >= len(line)
}

// termStat is how much a branch's children use a term: tf sums their
// capped weights, df counts the children using it.
type termStat struct {
	tf float64
	df int
}

// sentence is a child's title or excerpt sentence, a candidate for the
// branch's title, with its informative terms.
type sentence struct {
	text  string
	terms []string
}

// childStats weighs the terms of a branch's children and collects their
// sentences, in order.
func childStats(children []ChildSummary) (map[string]*termStat, []sentence) {
	stats := make(map[string]*termStat)
	var sentences []sentence
	for _, c := range children {
		w, ss := childWeights(c)
		sentences = append(sentences, ss...)
		for t, x := range w {
			st := stats[t]
			if st == nil {
				st = &termStat{}
				stats[t] = st
			}
			st.tf += min(x, 6) // one chatty child does not name the branch
			st.df++
		}
	}
	return stats, sentences
}

// childWeights weighs one child's terms (its keywords and title count
// double, its tags once) and returns its sentences: the title, then the
// excerpt's.
func childWeights(c ChildSummary) (map[string]float64, []sentence) {
	w := make(map[string]float64)
	for _, k := range c.Keywords {
		w[k] += 2
	}
	var sentences []sentence
	for i, s := range append([]string{c.Title}, splitSentences(c.Excerpt)...) {
		weight := 1.0
		if i == 0 {
			weight = 2 // the title
		}
		var terms []string
		tokenize.Each(s, func(t string) {
			if informative(t) {
				w[t] += weight
				terms = append(terms, t)
			}
		})
		if s != "" {
			sentences = append(sentences, sentence{s, terms})
		}
	}
	for _, tag := range c.Tags {
		tokenize.Each(tag, func(t string) {
			if informative(t) {
				w[t]++
			}
		})
	}
	return w, sentences
}

// branchScores scores each term by use × rarity, the rarity Rarity's or,
// without it, the term's among the n children.
func (x Extractive) branchScores(stats map[string]*termStat, n int) map[string]float64 {
	score := make(map[string]float64, len(stats))
	for t, st := range stats {
		if x.Rarity != nil {
			score[t] = st.tf * x.Rarity(t)
		} else {
			score[t] = st.tf * (1 + math.Log(float64(n)/float64(st.df)))
		}
	}
	return score
}

// bestSentence returns the branch's title: the sentence covering the most
// of the top terms (by score), the shorter on a tie, then the first.
func bestSentence(sentences []sentence, terms []string, score map[string]float64) string {
	top := make(map[string]float64, len(terms))
	for _, t := range terms {
		top[t] = score[t]
	}
	best, bestScore := -1, 0.0
	for i, s := range sentences {
		seen := make(map[string]bool)
		var sc float64
		for _, t := range s.terms {
			if !seen[t] {
				seen[t] = true
				sc += top[t]
			}
		}
		if best < 0 || sc > bestScore || (sc == bestScore && len(s.text) < len(sentences[best].text)) {
			best, bestScore = i, sc
		}
	}
	if best < 0 {
		return ""
	}
	return sentences[best].text
}

// collapseSpace trims s and collapses every run of white space into one
// space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// firstSentence returns the first sentence of text's first line that is
// words: not blank, not key or certificate material. "" when none is.
func firstSentence(text string) string {
	for line := range strings.Lines(text) {
		line = collapseSpace(line)
		if line == "" || material(line) {
			continue
		}
		if s := splitSentences(line); len(s) > 0 {
			return s[0]
		}
		return line
	}
	return ""
}

// splitSentences cuts s after '.', '!' or '?' followed by a space. Not
// after ';': "Redis is gone; Valkey runs the cache" is one thought, and its
// first half alone says the opposite of the whole.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			if s[i+1] == ' ' {
				if p := strings.TrimSpace(s[start : i+1]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}

// clipText cuts s to at most n bytes, at a word boundary when there is one
// in the second half, and marks the cut with an ellipsis.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}

// topKeys returns the n keys with the highest values, ties by key.
func topKeys[V cmp.Ordered](m map[string]V, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}

package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// What a question asks of whom. "What's Yerba's microchip number?", "the
// address of Dr. Sosa's office", "el cumpleaños de Vale" ask for a thing
// (microchip number, address, cumpleaños) of an owner by name (Yerba,
// Sosa, Vale). When memories name the owner but none of them holds the
// thing — in the question's words, the words added for them (a
// translation, a synonym) or a concept of the lexicon the thing is (an
// employer is who one "works at") — the thing was never stored, however
// much else is stored about the owner: the answer is not found, naming the
// near miss. A thing that is a kind of value the lexicon knows (a phone
// number, a port) is left to the answer-type check, which knows such a
// value when it sees one.

// ownership is what a question asks of whom, as terms; the zero value asks
// of no one in particular.
type ownership struct {
	thing, owner []string
	// words are the thing's words as written (for its concepts); phrase is
	// the thing and its owner as the question words them, for the
	// near-miss message.
	words, phrase string
}

// ownerLinks join a thing to its owner; englishOwnerLinks as often say
// what a thing shows or where it is.
var (
	ownerLinks        = words.Set("owner_links")
	englishOwnerLinks = words.Set("english_owner_links")
)

// maxOwnedWords bounds the words of a thing or an owner.
const maxOwnedWords = 3

// ownershipIn reads what text asks of whom by name: "B's A", "el A de B",
// and "the A of B's C" (whose owner is B).
func ownershipIn(text string) ownership {
	words := strings.Fields(text)
	for i, w := range words {
		link := strings.ToLower(w)
		if !ownerLinks[link] || i == 0 {
			continue
		}
		thing := phraseBefore(words, i)
		owner, ownerAt := phraseAfter(words, i+1)
		if len(thing) == 0 || len(owner) == 0 || ownerAt > i+1 {
			continue // "the copy of the NAS": the owner is a kind of thing, not one by name
		}
		start, end := i-len(thing), ownerAt+len(owner)
		if o, at, ok := possessiveAt(words, ownerAt); ok {
			// "the name of Mateo's school" asks about his school: a memory
			// of it holds the name, in no word of the question.
			of, ofAt := phraseAfter(words, at+1)
			owner, thing, end = o, append(thing, of...), max(at+1, ofAt+len(of))
		} else if englishOwnerLinks[link] {
			// "the painting of Aragorn", "the part of Tokyo": English says
			// whose with an 's; an "of" is as often what a thing shows or
			// where it is. Spanish has only "de".
			continue
		}
		if o := named(owner); len(o) > 0 {
			return owned(thing, o, words[start:end])
		}
	}
	for i := 1; i < len(words); i++ { // a question's first word is capitalised as such: "Which movie's theme…"
		owner, at, ok := possessiveAt(words, i)
		if !ok || articles[strings.ToLower(words[i-1])] {
			continue // "the NAS's IP", "the Synology's panel": a kind of thing
		}
		if thing, _ := phraseAfter(words, at+1); len(thing) > 0 && len(named(owner)) > 0 {
			return owned(thing, named(owner), words[i:at+1+len(thing)])
		}
	}
	return ownership{}
}

// named returns the capitalised words owner opens with: an owner is
// someone or something by name ("Yerba", "Dr. Sosa", "the NAS"), not "the
// kind of database", "the team's sync" or "la reunión de los lunes".
func named(owner []string) []string {
	n := 0
	for n < len(owner) && hasUpper(owner[n]) {
		n++
	}
	if n > 0 && strings.ToUpper(owner[0]) == owner[0] && len(owner[0]) > 1 && !strings.HasSuffix(owner[0], ".") {
		return nil // an acronym ("VPN", "NAS") names a kind of thing
	}
	if n > 0 && lexicon.IsDateWord(owner[0]) {
		return nil // "the beginning of January": a time, the moment's business
	}
	return owner[:n]
}

// owned is the ownership of thing by owner, which span of the question
// words; a title ("Dr.", "Sra.") is no part of who the owner is.
func owned(thing, owner, span []string) ownership {
	owner = slices.DeleteFunc(slices.Clone(owner), func(w string) bool { return titles[strings.ToLower(strings.TrimSuffix(w, "."))] })
	words := strings.Join(thing, " ")
	return ownership{thing: tokenize.Terms(words), owner: tokenize.Terms(strings.Join(owner, " ")), words: words,
		phrase: strings.TrimRightFunc(strings.Join(span, " "), unicode.IsPunct)}
}

var titles = words.Set("titles")

// possessiveAt reports whether a possessive ("Yerba's", "Dr. Sosa's")
// starts at or after words[i] before any other word, and returns its
// owner's words and the position of the word with the 's.
func possessiveAt(words []string, i int) ([]string, int, bool) {
	var owner []string
	for j := i; j < len(words) && j < i+maxOwnedWords; j++ {
		bare := bareWord(words[j])
		low := strings.ToLower(bare)
		if low == "" || questionContraction[low] {
			return nil, 0, false
		}
		if possessive(low) {
			name := strings.TrimSuffix(strings.TrimSuffix(bare, "'s"), "’s")
			return append(owner, name), j, name != ""
		}
		if !hasUpper(bare) || strings.HasSuffix(words[j], ",") {
			return nil, 0, false // only a name's first words come before its 's
		}
		owner = append(owner, bare)
	}
	return nil, 0, false
}

// questionContraction are the words with an 's that are no possessive.
var questionContraction = words.Set("not_possessive")

// phraseBefore returns the content words before words[at] back to an
// article or a question word: "address" of "what's the address of".
func phraseBefore(words []string, at int) []string {
	var out []string
	for j := at - 1; j >= 0 && len(out) < maxOwnedWords; j-- {
		bare := bareWord(words[j])
		low := strings.ToLower(bare)
		if low == "" || tokenize.IsStopWord(low) || questionContraction[low] || bare != words[j] && !strings.HasSuffix(words[j], "?") {
			break
		}
		out = append([]string{bare}, out...)
	}
	return out
}

// phraseAfter returns the content words from words[at] to the first
// function word or punctuation (skipping a leading article), and where
// they start.
func phraseAfter(words []string, at int) ([]string, int) {
	for at < len(words) && articles[strings.ToLower(bareWord(words[at]))] {
		at++
	}
	var out []string
	for j := at; j < len(words) && len(out) < maxOwnedWords; j++ {
		bare := bareWord(words[j])
		low := strings.ToLower(bare)
		if low == "" || tokenize.IsStopWord(low) {
			break
		}
		out = append(out, bare)
		if strings.TrimRightFunc(words[j], unicode.IsPunct) != words[j] && !strings.HasSuffix(low, "'s") {
			break
		}
	}
	return out, at
}

// bareWord is w without the punctuation around it, a possessive's 's kept.
func bareWord(w string) string {
	return strings.TrimFunc(w, func(r rune) bool { return r != '\'' && r != '’' && (unicode.IsPunct(r) || unicode.IsSymbol(r)) })
}

// maxOwnerFreq: an owner in more memories than this is no particular one
// ("the port of the service"), and reading its memories would cost.
const maxOwnerFreq = 16

// unowned returns the question's thing and owner as worded when memories
// the caller may see name the owner (all its words) but none holds the
// thing; "" otherwise.
func (s *searcher) unowned(q question, terms []string, exp *kept, vis func(index.Group) bool) string {
	o := q.owns
	if len(o.thing) == 0 || len(o.owner) == 0 || q.wants.Name != "" {
		return ""
	}
	owner, df := "", 0
	for _, t := range o.owner {
		if n := s.ix.DocFreq(t); n > 0 && (owner == "" || n < df) {
			owner, df = t, n
		}
	}
	if owner == "" || df > maxOwnerFreq || len(s.projectsNamed([]string{owner})) > 0 {
		// An owner no memory holds is unknownName's; a common one is no
		// one in particular; a project's memories need not name it.
		return ""
	}
	things := slices.Clone(o.thing)
	for _, x := range exp.words() {
		if x.For < len(terms) && slices.Contains(o.thing, terms[x.For]) {
			things = append(things, x.Term)
		}
	}
	concepts := s.lex.Concepts(o.words)
	named := false
	hits, _ := s.ix.Search(index.Query{Terms: []string{owner}, Visible: vis, Limit: df})
	for _, h := range hits {
		holds := func(t string) bool { return s.ix.Contains(h.Doc, t) }
		if !all(o.owner, holds) {
			continue
		}
		named = true
		if slices.ContainsFunc(things, holds) || concepts != 0 && s.lex.Concepts(s.r.Text(h.Doc).Text)&concepts != 0 {
			return ""
		}
	}
	if !named {
		return "" // no memory names the whole owner: another one of that name
	}
	return o.phrase
}

package store

import (
	"strings"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// What a question asks about, beyond its words: the names it gives, the
// kind of value it wants, the concepts it touches. "Not found" is decided
// from these: a question about a tool the memory has never heard of, or
// for a phone number nobody stored, is not answered by a memory that
// shares its other words (see judge).

// question is what a search knows of its question.
type question struct {
	asked  asked
	wants  lexicon.Type
	names  []string // the capitalised words it names, as terms
	naming []string // the same, as written
}

func (s *Store) questionOf(text string, terms []string) question {
	q := question{asked: s.askedOf(text, terms), wants: s.lex.Asks(text)}
	q.naming = namesIn(text)
	for _, n := range q.naming {
		q.names = append(q.names, strings.Join(tokenize.Words(n), " "))
	}
	return q
}

// namesIn returns the words of text that name something: capitalised
// (or with a capital inside, "GraphQL") where a sentence does not start,
// not the pronoun "I", not a day or a month (time is the view's business).
func namesIn(text string) []string {
	var out []string
	opening := true
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w == "" {
			continue
		}
		if !opening && hasUpper(w) && w != "I" && !lexicon.IsDateWord(w) {
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
		}
		opening = false
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
// the caller may see holds, as written. Callers hold s.mu for reading.
func (s *Store) unknownName(q question, vis func(index.Group) bool) string {
	for i, n := range q.names {
		if n == "" || strings.Contains(n, " ") {
			continue
		}
		hits, _ := s.ix.Search(index.Query{Terms: []string{n}, Visible: vis, Limit: 1})
		if len(hits) == 0 {
			return q.naming[i]
		}
	}
	return ""
}

// holds reports whether a ranked memory holds a value of the kind the
// question wants. Callers hold s.mu for reading.
func (s *Store) holds(q question, r ranked) bool {
	return s.lex.Holds(q.wants, s.shown(s.docs[r.doc]).Text)
}

// preferHolding moves to the top the first memory near the best that
// holds the kind of value the question wants, when the best holds none:
// "which port…" is answered by the memory with a port in it. It reports
// whether the top memory now holds one. Callers hold s.mu for reading.
func (s *Store) preferHolding(order []ranked, q question) bool {
	if q.wants.Name == "" || len(order) == 0 {
		return true
	}
	if s.holds(q, order[0]) {
		return true
	}
	for i := 1; i < min(len(order), holdingWindow); i++ {
		r := order[i]
		if !r.current || r.score < holdingShare*order[0].score {
			continue
		}
		if s.holds(q, r) {
			copy(order[1:i+1], order[:i])
			order[0] = r
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

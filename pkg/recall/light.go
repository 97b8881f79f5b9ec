package recall

import (
	"math/bits"
	"slices"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Light words (tokenize.IsLight) carry a question's grammar, not its
// subject: "what went wrong during the migration?" asks about a migration,
// and a memory that says one "went into the same MR" holds no more of it
// than one that says a migration "held a lock". Worse, the stem of "went"
// is "go", which a memory about the Go language holds too. Such a word is
// no evidence that one memory answers the question more fully than
// another (covers).

// light reports whether term t is a light word of a query whose names are
// named: "Go" in "Which Go version…" is the language, not a verb.
func light(t string, named []string) bool {
	return tokenize.IsLight(t) && !slices.Contains(named, t)
}

// lightBits returns the bits of terms that are light words.
func lightBits(terms, named []string) uint64 {
	var m uint64
	for i, t := range terms {
		if i < 64 && light(t, named) {
			m |= 1 << i
		}
	}
	return m
}

// substantive returns matched without its light words, unless nothing
// else is left: a question of nothing but grammar is asked by it.
func substantive(matched uint64, terms, named []string) uint64 {
	if rest := matched &^ lightBits(terms, named); bits.OnesCount64(rest) > 0 {
		return rest
	}
	return matched
}

// writtenAsNames returns, as terms, the words of text written with a
// capital where no sentence starts ("Go" of "Which Go version…", "Make"):
// such a word is a name, whatever its stem would be as a verb.
func writtenAsNames(text string) []string {
	var out []string
	midSentence(text, func(w string, _ bool) {
		if unicode.IsUpper([]rune(w)[0]) {
			out = append(out, tokenize.Terms(w)...)
		}
	})
	return out
}

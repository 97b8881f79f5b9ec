package store

import (
	"math/bits"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Light words (tokenize.IsLight) carry a question's grammar, not its
// subject: "what went wrong during the migration?" asks about a migration,
// and a memory that says one "went into the same MR" holds no more of it
// than one that says a migration "held a lock". Worse, the stem of "went"
// is "go", which a memory about the Go language holds too. Such a word is
// no evidence that one memory answers the question more fully than
// another (covers).

// functionBits returns the bits of terms that are light words.
func functionBits(terms []string) uint64 {
	var m uint64
	for i, t := range terms {
		if i < 64 && tokenize.IsLight(t) {
			m |= 1 << i
		}
	}
	return m
}

// substantive returns matched without its light words, unless nothing
// else is left: a question of nothing but grammar is asked by it.
func substantive(matched uint64, terms []string) uint64 {
	if rest := matched &^ functionBits(terms); bits.OnesCount64(rest) > 0 {
		return rest
	}
	return matched
}

package store

import "math/bits"

// Function verbs carry a question's grammar, not its subject: "what went
// wrong during the migration?" asks about a migration, and a memory that
// says one "went into the same MR" holds no more of it than one that says
// a migration "held a lock". Worse, the stem of "went" is "go", which a
// memory about the Go language holds too. Such a word is no evidence that
// one memory answers the question more fully than another (covers).
var functionVerbs = map[string]bool{
	// English, as terms (tokenize.Terms): "went", "goes", "going" are "go".
	"go": true, "get": true, "make": true, "take": true, "come": true,
	"put": true, "let": true, "give": true, "keep": true,
	// Spanish, as terms.
	"ir": true, "va": true, "voy": true, "fui": true, "hacer": true, "hace": true,
	"hizo": true, "tener": true, "tien": true, "poner": true, "dar": true,
}

// functionBits returns the bits of terms that are function verbs.
func functionBits(terms []string) uint64 {
	var m uint64
	for i, t := range terms {
		if i < 64 && functionVerbs[t] {
			m |= 1 << i
		}
	}
	return m
}

// substantive returns matched without its function verbs, unless nothing
// else is left: a question of nothing but grammar is asked by it.
func substantive(matched uint64, terms []string) uint64 {
	if rest := matched &^ functionBits(terms); bits.OnesCount64(rest) > 0 {
		return rest
	}
	return matched
}

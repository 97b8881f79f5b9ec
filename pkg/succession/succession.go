// Package succession is the policy of the inference that one memory
// probably supersedes another (pkg/store gathers the evidence when a
// memory is saved): the evidence, the pure function that weighs it, and
// the checks on the two texts it rests on (two people's names, two
// versions of one name). Like pkg/verdict, it links nothing of the engine
// but the word lists.
package succession

import (
	"math"
	"regexp"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

const (
	// linkScore is the evidence score (Confidence) a link needs,
	// fullScore the one that gives full confidence.
	linkScore       = 0.85
	fullScore       = 1.5
	rareWeight      = 0.5
	maxRare         = 4
	conceptWeight   = 0.25
	cueWeight       = 0.2
	valueWeight     = 0.25
	versionedWeight = 0.25
	removedWeight   = 0.25
)

// Evidence is what the inference knows of one pair of memories.
type Evidence struct {
	// Similarity is the weighted overlap of the two memories' terms (the
	// share of the shorter one's weight they have in common); Rare counts
	// the shared terms that are rare in the partition.
	Similarity float64
	Rare       int
	// Concept: both are about a concept of the lexicon.
	Concept bool
	// Cue: the new memory says something changed.
	Cue bool
	// Value: both hold a value of a concept they share (a version, a
	// port): two statements of that value.
	Value bool
	// Removed: the new memory says a term the two share is gone ("the
	// Actions workflow was deleted").
	Removed bool
	// Versioned: both give one name a version, each a different one
	// ("Elixir 1.17", "Elixir 1.18.3").
	Versioned bool
}

// Confidence is the inference's policy, a pure function of the
// evidence: how much the two share (weighted overlap), how many rare words,
// a concept in common, a change cue and a value of the concept in both
// each add to it; no one of them is enough alone, and a change cue cannot
// make a link without shared substance. The weights were fitted as a
// logistic model on labelled pairs and rounded; the two later ones (one
// name given two versions, a shared word said to be gone) were set to a
// concept's worth by hand. A concept that has one value at a time (one
// home) was tried as stronger evidence: it linked unrelated memories about
// as often as versions ("Priya moved to the ML team" and "I live in
// Zaragoza"). 0 means no link.
func Confidence(e Evidence) float64 {
	score := e.Similarity + rareWeight*float64(min(e.Rare, maxRare))/maxRare
	if e.Concept {
		score += conceptWeight
	}
	if e.Cue {
		score += cueWeight
	}
	if e.Value {
		score += valueWeight
	}
	if e.Removed {
		score += removedWeight
	}
	if e.Versioned {
		score += versionedWeight
	}
	if score < linkScore {
		return 0
	}
	return min(1, math.Round(score/fullScore*100)/100)
}

// VersionMoved reports whether two texts' versions (lexicon.Versions)
// give one name two versions.
func VersionMoved(a, b map[string]string) bool {
	for name, v := range a {
		if w, ok := b[name]; ok && w != v {
			return true
		}
	}
	return false
}

// FullName is the name of two capitalised words a text opens with, as
// written ("Sam Whitlock"), or "": a person's, not "House DNS" or
// "Cambié Pi-hole".
func FullName(text string) string {
	words := strings.Fields(text)
	if len(words) < 2 {
		return ""
	}
	a, b := words[0], strings.TrimRight(words[1], ",:;.)")
	if !nameWord.MatchString(a) || !nameWord.MatchString(b) {
		return ""
	}
	return a + " " + b
}

var nameWord = regexp.MustCompile(`^\p{Lu}\p{Ll}+$`)

// SubjectName is the first name of the person a text opens with as the
// subject of its verb, as a term ("Lucía" of "Lucía has moved…", "Carmen"
// of "Carmen se ha mudado…"), or "". A capitalised word is a name only when an
// auxiliary or a clitic follows it (or its surname): a sentence's first
// word is as often a verb ("Reinstalled the plugin") or an adjective
// ("Personal notes live…").
func SubjectName(text string) string {
	words := strings.Fields(text)
	for n := 1; n <= 2 && n < len(words); n++ {
		if !nameWord.MatchString(strings.TrimRight(words[n-1], ",")) {
			return ""
		}
		if w := tokenize.Words(words[0]); len(w) == 1 && auxWords[strings.ToLower(words[n])] {
			return w[0]
		}
	}
	return ""
}

// Personal reports whether text speaks of a person (she, his, ella, le):
// a capitalised subject is as often a product ("Nginx is the reverse
// proxy", "Caddy is now the reverse proxy") as a person, and two products
// in one role are the very versions a correction replaces.
func Personal(text string) bool {
	for _, w := range tokenize.Words(text) {
		if personWords[w] {
			return true
		}
	}
	return false
}

var personWords = words.Set("person_pronouns")

// auxWords follow a subject and open its verb, in English and Spanish.
var auxWords = words.Set("auxiliaries")

package recall

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/lexicon"
)

func TestBounded(t *testing.T) {
	df := map[string]int{"reunion": 4, "junta": 9, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "x": 7}
	exp := []lexicon.Expansion{
		{Term: "reunion", For: 0, Source: lexicon.FromGlossary},
		{Term: "nowhere", For: 0, Source: lexicon.FromGlossary}, // no memory holds it
		{Term: "junta", For: 0, Source: lexicon.FromConcept},
		{Term: "e", For: 1, Source: lexicon.FromSynonyms},
		{Term: "d", For: 1, Source: lexicon.FromSynonyms},
		{Term: "c", For: 1, Source: lexicon.FromSynonyms},
		{Term: "b", For: 1, Source: lexicon.FromSynonyms},
		{Term: "a", For: 1, Source: lexicon.FromSynonyms},
		{Term: "x", For: 1, Source: lexicon.FromTranslation}, // its own source's bound
		{Term: "e", For: 2, Source: lexicon.FromCognate},     // another query word's
		{Term: "zzz", For: 2, Source: lexicon.FromCognate},
	}
	got := bounded(exp, func(t string) int { return df[t] })
	var terms []string
	for _, x := range got.exp {
		terms = append(terms, fmt.Sprintf("%s/%d", x.Term, x.For))
	}
	want := []string{"reunion/0", "junta/0", "a/1", "b/1", "c/1", "x/1", "e/2"}
	if !slices.Equal(terms, want) {
		t.Errorf("bounded = %v, want %v: the curated words whole, a dictionary's %d rarest a word and source, none no memory holds", terms, want, perTerm)
	}
	if len(bounded(nil, func(string) int { return 1 }).exp) != 0 {
		t.Error("nothing to bound gives something")
	}
}

// TestExpandWeighsAbsentWords: the glossary's word for a query word no
// memory holds weighs as that word; one for a word the memories hold, and
// a dictionary's word either way, keep their share.
func TestExpandWeighsAbsentWords(t *testing.T) {
	df := map[string]int{"birthday": 0, "meet": 3, "cumpleano": 1, "reunion": 2, "natal": 1}
	terms := []string{"birthday", "meet"}
	exp := []lexicon.Expansion{
		{Term: "cumpleano", For: 0, Source: lexicon.FromGlossary}, // "birthday" is in no memory
		{Term: "reunion", For: 1, Source: lexicon.FromGlossary},   // control: "meet" is
		{Term: "natal", For: 0, Source: lexicon.FromSynonyms},     // control: not curated
	}
	e := expand(terms, bounded(exp, func(t string) int { return df[t] }), true)
	want := []float64{1, 1, 1, 0.3, 0.3}
	if !slices.Equal(e.weights, want) {
		t.Errorf("weights = %v for %v, want %v", e.weights, e.terms, want)
	}
	if e := expand(terms, nil, true); len(e.terms) != len(terms) {
		t.Errorf("expand(nil) = %v, want the query's own terms", e.terms)
	}
}

// TestExpandWeighsLightWords: a light query word, and what is added for
// it, weigh less than the word the question is about.
func TestExpandWeighsLightWords(t *testing.T) {
	df := map[string]int{"get": 1, "homelab": 2, "obtain": 1, "home": 3}
	terms := []string{"get", "homelab"}
	exp := []lexicon.Expansion{
		{Term: "obtain", For: 0, Source: lexicon.FromSynonyms},
		{Term: "home", For: 1, Source: lexicon.FromSynonyms}, // control: not light
	}
	e := expand(terms, bounded(exp, func(t string) int { return df[t] }), true)
	want := []float64{lightWeight, 1, lightWeight * 0.3, 0.3}
	if !slices.Equal(e.weights, want) {
		t.Errorf("weights = %v for %v, want %v", e.weights, e.terms, want)
	}
}

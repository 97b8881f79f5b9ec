package lexicon

import (
	"slices"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Source says where an expansion comes from, and so how much it is worth:
// the curated glossary is the strongest evidence, a general dictionary's
// word weaker (it knows every sense of a word, not the one meant).
type Source uint8

const (
	// FromGlossary: a word of the same glossary group (glossary.json and
	// a store's lexicon.json).
	FromGlossary Source = iota
	// FromConcept: another word of a concept the query is about ("flat"
	// for "which city…": residence), not a synonym.
	FromConcept
	// FromSynonyms: a WordNet synonym of a common English word
	// (wordnet.txt).
	FromSynonyms
	// FromTranslation: a FreeDict translation, English to Spanish or back,
	// read from the system when installed (freedict.go).
	FromTranslation
	// FromCognate: the word's likely spelling in the other language
	// (cognate.go).
	FromCognate
)

// String names a source as a search's trace shows it.
func (s Source) String() string {
	switch s {
	case FromGlossary:
		return "glossary"
	case FromConcept:
		return "concept"
	case FromSynonyms:
		return "synonym"
	case FromTranslation:
		return "translation"
	case FromCognate:
		return "cognate"
	}
	return "unknown"
}

// related maps a term to the terms that may stand for it, best first.
type related map[string][]string

// relate makes every word of each group stand for the others, as terms;
// a group member that a phrase or a stop word would be is left out, as
// the glossary does.
func relate(groups [][]string) related {
	r := related{}
	for _, g := range groups {
		var terms []string
		for _, w := range g {
			if ws := tokenize.Words(w); len(ws) == 1 && !tokenize.IsStopWord(ws[0]) && !slices.Contains(terms, ws[0]) {
				terms = append(terms, ws[0])
			}
		}
		for _, t := range terms {
			for _, o := range terms {
				if o != t && !slices.Contains(r[t], o) {
					r[t] = append(r[t], o)
				}
			}
		}
	}
	return r
}

// add makes each of to stand for from, as terms, after what stands for it
// already; phrases and stop words are left out.
func (r related) add(from string, to []string) {
	fs := tokenize.Words(from)
	if len(fs) != 1 || tokenize.IsStopWord(fs[0]) {
		return
	}
	f := fs[0]
	for _, w := range to {
		ts := tokenize.Words(w)
		if len(ts) != 1 || ts[0] == f || tokenize.IsStopWord(ts[0]) || slices.Contains(r[f], ts[0]) {
			continue
		}
		r[f] = append(r[f], ts[0])
	}
}

// expandTerms appends, for each of terms, what r says stands for it, as
// expansions of source not already seen.
func (r related) expandTerms(terms []string, src Source, seen map[string]bool, out []Expansion) []Expansion {
	for i, t := range terms {
		for _, w := range r[t] {
			if !seen[w] {
				seen[w] = true
				out = append(out, Expansion{Term: w, For: i, Source: src})
			}
		}
	}
	return out
}

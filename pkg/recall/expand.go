package recall

import (
	"cmp"
	"slices"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
)

// A question asked in other words or in the other language than the memory
// ("¿cuándo es la reunión con mi jefe?" of "1:1 with my manager on
// Thursdays") shares none of its words. The lexicon (pkg/lexicon) adds
// the words that mean the same to the query, each weighing a share of its
// own IDF (sourceWeight): a memory in the query's own words still ranks
// first, and an added word counts, for coverage and the verdict, as the
// query word it stands for — the query asks what it asks, in more words.
//
// absent says that no memory holds the query word the added one stands
// for.
func sourceWeight(s lexicon.Source, absent bool) float64 {
	switch s {
	case lexicon.FromGlossary:
		if absent {
			// No memory says it in the query's word ("birthday" of a
			// store that only says "cumpleaños"), so none in the
			// query's own words is there to keep first: the curated
			// word is the query word, as the memories spell it. A
			// dictionary's word is not (it knows every sense of the
			// word, not the one meant), and keeps its share.
			return 1
		}
	case lexicon.FromConcept:
		// The other words of a concept the query is about ("flat",
		// "apartment" for "which city…": residence) find a memory worded
		// unlike the question, and weigh less than synonyms.
		return 0.1
	case lexicon.FromCognate:
		// A spelling of the query's own word in the other language that
		// the memories hold ("evento" for "event") is nearly always that
		// word, unlike a synonym, which is another word with senses of
		// its own: it weighs more.
		return 0.6
	}
	// The glossary's words, WordNet's synonyms and FreeDict's
	// translations: the same meaning in another word.
	return 0.3
}

// perTerm bounds what a general dictionary (WordNet, FreeDict, the
// cognate guesses) adds for one query word: it knows every sense of the
// word, and each added word costs a posting list.
const perTerm = 3

// expanded is a query's terms with the words added for them.
type expanded struct {
	terms   []string
	weights []float64
	// stands[i] is the query term that terms[len(query):][i] stands for.
	stands []int
	query  int // how many of terms are the query's own
}

// expand adds what bounded kept to terms; nil adds nothing. Light words
// weigh less when lighten is set (the "light" signal).
func expand(terms []string, k *kept, lighten bool) expanded {
	e := expanded{terms: append([]string(nil), terms...), query: len(terms)}
	exp := k.words()
	e.weights = make([]float64, len(terms), min(index.MaxQueryTerms, len(terms)+len(exp)))
	for i, t := range terms {
		e.weights[i] = 1
		if lighten {
			e.weights[i] = termWeight(t, k.namedTerms())
		}
	}
	for _, x := range exp {
		if len(e.terms) == index.MaxQueryTerms {
			break
		}
		e.terms = append(e.terms, x.Term)
		e.weights = append(e.weights, e.weights[x.For]*sourceWeight(x.Source, k.df(terms[x.For]) == 0))
		e.stands = append(e.stands, x.For)
	}
	return e
}

// lightWeight is what a light word of the query weighs beside its other
// words: "get" in "how do I get into the homelab from outside?" is in
// memories about anything ("automations get reloaded"), and a rare
// light word in a small store would otherwise outweigh the word the
// question is about.
const lightWeight = 0.3

// termWeight is a query term's weight before its IDF: a light word's
// rarity in this store tells less than another word's (light).
func termWeight(t string, named []string) float64 {
	if light(t, named) {
		return lightWeight
	}
	return 1
}

// kept is what bounded keeps of a query's expansions, with the document
// frequencies it judged them by, which expand weighs them with too.
type kept struct {
	exp []lexicon.Expansion
	df  func(string) int
	// named are the query's words written as names (writtenAsNames): a
	// light word written as a name ("Go", "Make") is none.
	named []string
}

// namedTerms returns the query's names; none for nil.
func (k *kept) namedTerms() []string {
	if k == nil {
		return nil
	}
	return k.named
}

// words returns the expansions kept; none for nil.
func (k *kept) words() []lexicon.Expansion {
	if k == nil {
		return nil
	}
	return k.exp
}

// bounded is exp without the words no memory holds (they would take one of
// the query's MaxQueryTerms and find nothing) and with at most perTerm of
// a general dictionary's words per query word and source, the rarest among
// the memories first: a rare word says more, and a common one would lend
// its share of the query word's weight to half the store.
func bounded(exp []lexicon.Expansion, df func(string) int) *kept {
	type key struct {
		src lexicon.Source
		at  int
	}
	type cand struct {
		x  lexicon.Expansion
		df int
	}
	var out []lexicon.Expansion
	general := map[key][]cand{}
	var order []key
	for _, x := range exp {
		n := df(x.Term)
		switch {
		case n == 0:
		case x.Source == lexicon.FromGlossary || x.Source == lexicon.FromConcept:
			out = append(out, x)
		default:
			k := key{x.Source, x.For}
			if general[k] == nil {
				order = append(order, k)
			}
			general[k] = append(general[k], cand{x, n})
		}
	}
	for _, k := range order {
		cs := general[k]
		slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.df, b.df) })
		for _, c := range cs[:min(len(cs), perTerm)] {
			out = append(out, c.x)
		}
	}
	return &kept{exp: out, df: df}
}

// fold turns the bits of a hit's matched terms into bits of the query's
// own terms.
func (e expanded) fold(bits uint64) uint64 {
	own := bits & (1<<e.query - 1)
	for i, f := range e.stands {
		if bits&(1<<(e.query+i)) != 0 {
			own |= 1 << f
		}
	}
	return own
}

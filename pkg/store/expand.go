package store

import (
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
)

// A question asked in other words or in the other language than the memory
// ("¿cuándo es la reunión con mi jefe?" of "1:1 with my manager on
// Thursdays") shares none of its words. The glossary (pkg/lexicon) adds
// the words that mean the same to the query, each weighing a share of its
// own IDF (expansionWeight): a memory in the query's own words still ranks
// first, and an added word counts, for coverage and the verdict, as the
// query word it stands for — the query asks what it asks, in more words.
const expansionWeight = 0.3

// conceptExpansion is the weight of the other words of a concept the
// query is about ("flat", "apartment" for "which city…": residence): they
// find a memory worded unlike the question, and weigh less than synonyms.
const conceptExpansion = 0.1

// expanded is a query's terms with the words added for them.
type expanded struct {
	terms   []string
	weights []float64
	// stands[i] is the query term that terms[len(query):][i] stands for.
	stands []int
	query  int // how many of terms are the query's own
}

func expand(terms []string, exp []lexicon.Expansion) expanded {
	e := expanded{terms: append([]string(nil), terms...), query: len(terms)}
	e.weights = make([]float64, len(terms), min(index.MaxQueryTerms, len(terms)+len(exp)))
	for i := range e.weights {
		e.weights[i] = 1
	}
	for _, x := range exp {
		if len(e.terms) == index.MaxQueryTerms {
			break
		}
		e.terms = append(e.terms, x.Term)
		w := expansionWeight
		if x.Concept {
			w = conceptExpansion
		}
		e.weights = append(e.weights, w)
		e.stands = append(e.stands, x.For)
	}
	return e
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

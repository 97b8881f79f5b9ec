package recall

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/ingest"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// What a leaf holds, and what that changes: whether its sentences state
// facts, whether it lends words to the leaves saved after it, and how much
// its words count for a question that is not about code.
//
// A memory someone saved states things about the user or a project. A
// block of a document someone keeps (a README, notes) may state things,
// but also quotes and gives examples ("saves such as \"I live in
// Madrid\""). A block of code states nothing about anyone, and shares
// words with everything ("live" in isLive, "home" in IHMT_HOME): a store
// that holds a repository's sources must not answer "where do I live?"
// with five of them. So code yields to prose unless the question is about
// code, and a document's blocks yield a little to what was stated.

// Kind is what a leaf holds, read from its header.
type Kind int

const (
	KindStated   Kind = iota // a memory saved (a long one split into parts too)
	KindDocument             // a block of a named document that was ingested
	KindCode                 // a block of code, ingested or saved too long
)

// KindOf is the kind of the leaf with header h.
func KindOf(h *leaf.Header) Kind {
	switch {
	case h.Source == nil:
		return KindStated
	case h.Source.Type == string(ingest.TypeCode):
		return KindCode
	case h.Source.Name == "":
		// A save too long for one memory, split like a document: still
		// what the agent stated.
		return KindStated
	}
	return KindDocument
}

// Priors: how much a leaf's score counts, by its kind, for a question that
// is not about code. A code block keeps its full score for a question
// about code.
const (
	codeYield     = 0.4
	documentYield = 0.6
	// maxKindPool bounds how far the pool grows to find prose under code.
	maxKindPool = 1 << 14
)

// codeWords are the terms that make a question one about code.
var codeWords = words.Set("code_terms")

// aboutCode reports whether a question's terms ask about code: an
// identifier written in camel case (the tokenizer gives the whole word and
// its parts, so a term that starts with one other term and ends with a
// third is one: "reservestock", "linkneighbours") or a word of code's own
// vocabulary.
func aboutCode(terms []string) bool {
	for _, t := range terms {
		if codeWords[t] || joined(t, terms) {
			return true
		}
	}
	return false
}

func joined(t string, terms []string) bool {
	head, tail := false, false
	for _, a := range terms {
		if a == t || len(a) >= len(t) {
			continue
		}
		if strings.HasPrefix(t, a) {
			head = true
		}
		// The tail part may carry a suffix its stem dropped ("s").
		if i := strings.LastIndex(t, a); i > 0 && len(t)-(i+len(a)) <= 3 {
			tail = true
		}
	}
	return head && tail
}

// weighKinds scores a query's k best memories with each leaf's prior
// applied, through score (one of the exhaustive-equivalent paths, asked
// for its best n). A prior never raises a score, so every memory outside a
// pool scores at most the pool's lowest unweighted score: the pool grows
// until the k-th weighted score reaches that, and the answer stays
// exhaustive-equivalent under the priors. With no leaf to weigh it returns
// score's answer as it is.
func (s *searcher) weighKinds(terms []string, k int, score func(n int) ([]index.Hit, Coverage)) ([]index.Hit, Coverage) {
	code := aboutCode(terms)
	pool := k
	for {
		raw, cov := score(pool)
		out, weighed := s.applyPriors(raw, code)
		if !weighed {
			return raw, cov
		}
		if len(raw) < pool {
			return out[:min(k, len(out))], cov // every memory that matches was scored
		}
		floor := raw[0].Score
		for _, h := range raw {
			floor = min(floor, h.Score)
		}
		if len(out) >= k && out[k-1].Score >= floor {
			return out[:k], cov
		}
		if pool >= maxKindPool {
			// A memory past the pool might still place: the answer says
			// so rather than claim to be exhaustive.
			cov.Exhaustive = false
			return out[:min(k, len(out))], cov
		}
		pool *= 4
	}
}

// prior is how much a leaf's score counts. A journal's entries and
// clinical notes are the person's own dated record, as good as what they
// stated; other documents (a README, an essay, a runbook) describe more
// than they state about the person.
func prior(h *leaf.Header, aboutCode bool) float64 {
	switch KindOf(h) {
	case KindCode:
		if !aboutCode {
			return codeYield
		}
	case KindDocument:
		if t := ingest.Type(h.Source.Type); t != ingest.TypeTemporal && t != ingest.TypeClinical {
			return documentYield
		}
	}
	return 1
}

// applyPriors returns the hits with their kinds' priors applied, best
// first, and whether any prior changed a score (if none did, raw itself).
func (s *searcher) applyPriors(raw []index.Hit, aboutCode bool) ([]index.Hit, bool) {
	var out []index.Hit
	for i, h := range raw {
		p := prior(&s.leaf(h.Doc).Header, aboutCode)
		if p == 1 && out == nil {
			continue
		}
		if out == nil {
			out = slices.Clone(raw)
		}
		out[i].Score *= p
	}
	if out == nil {
		return raw, false
	}
	slices.SortStableFunc(out, func(a, b index.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.Doc, a.Doc)
	})
	return out, true
}

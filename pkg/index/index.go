// Package index is the in-memory inverted index the daemon searches: BM25
// over every live document, exhaustive by construction.
//
// Every document is scored through the posting lists of the query's terms,
// so a document that contains a query term cannot be missed; documents the
// caller may not see are skipped while scoring, not filtered afterwards, so
// a limit never hides a visible match behind invisible ones.
//
// Documents may be linked to their neighbours (Link): each then also counts
// the other's words, at a lower weight (each side its own), so a memory
// that says "yes, in May" is found by the question the memory before it
// asked. The words are lent
// at query time through the neighbour's own postings, so a link costs a few
// bytes rather than a copy of the neighbour's postings, and a hidden
// neighbour stops lending at once. Common words (see lendShare) are not
// lent.
//
// Search is exhaustive-equivalent without reading everything: it reads the
// rarest terms first and stops admitting documents once no unread term
// could lift a new one into the results (see Search).
//
// # Cost and limits
//
// The index lives in memory: its owner builds it from the stored texts
// when it opens them, or reads back a snapshot of it (snapshot.go) written
// by an earlier run. Add costs tokenizing the text; Search costs
// the posting lists of the query's terms, the rare ones whole and the
// common ones only as far as pruning allows; posting lists are kept
// compressed (see postings.go). Matching is by term, as package tokenize
// makes terms (lower-cased, folded, stemmed): no phrases, no positions, no
// fuzzy spelling, so "postgress" does not find "PostgreSQL". Hiding a
// document (SetLive) keeps its postings, so an index only grows until it
// is built again.
//
// An Index is not safe for concurrent mutation. The store serialises writes
// through its single writer and guards the index with a RWMutex; any number
// of searches may run at once under the read lock.
package index

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// BM25 parameters. b is lower than the textbook 0.75: memories vary a lot in
// length and a long one is usually long because it says more, not because it
// repeats itself (on the LoCoMo evaluation, scripts/locomo, a lower b ranks
// better; k1 barely matters).
const (
	K1 = 1.2
	B  = 0.4
)

// Options tune the ranking; the zero value is the default.
type Options struct {
	// K1 and B are BM25's parameters: K1 > 0 and 0 < B ≤ 1, where zero
	// (or a value out of range) means the constants above.
	K1, B float64
}

// MaxQueryTerms bounds the terms a query may score; Hit.Matched is a bitmask.
const MaxQueryTerms = 64

// Doc identifies a document inside one Index.
type Doc uint32

// Group is a visibility group: 0 is global, every project has its own.
type Group uint32

type docInfo struct {
	length uint32 // terms in the document's own text
	group  Group
	live   bool
	// lent is the length the live linked neighbours lend, weighted: a
	// document is scored as if it were its text plus theirs at weight w.
	lent float64
}

// link is one side of Link: the neighbour, the weight of its words in
// this document and the weight of this document's words in it. A search
// reads links for every posting it walks, so what it needs is kept in the
// link itself rather than looked up in the neighbour's docInfo or links (a
// cache miss per link, which dominates a linked search on a large store):
// w is negative while the neighbour is hidden, and a link never crosses
// groups, so the neighbour is visible exactly when the document is.
type link struct {
	doc Doc
	w   float32 // > 0: the neighbour is live; < 0: hidden; 0: an unused slot
	out float32 // > 0: what this document lends the neighbour, live or not
}

// inlineLinks is how many links a document keeps beside it: the store links
// a memory to the two before and the two after it in its conversation.
// Further links (Link allows any) go to Index.more.
const inlineLinks = 4

type linkSet [inlineLinks]link

// Index is a BM25 inverted index.
type Index struct {
	k1, b float64
	// terms numbers every term seen; lists holds its postings (see
	// postings.go). A number rather than a map value lets Add count a
	// document's terms in counts, a scratch array, instead of a map of its
	// own, and lets a Scorer find its lists without hashing terms again.
	terms    map[string]uint32
	lists    []plist
	counts   []uint32 // by term; zero between calls of Add
	seen     []uint32 // the terms of the document being added
	docs     []docInfo
	links    []linkSet      // by Doc; shorter than docs when the last ones have none
	more     map[Doc][]link // links past a document's full linkSet
	groups   map[Group]int  // live documents per group
	totalLen float64        // own and lent length of live documents
	live     int
}

// New returns an empty index with the default ranking.
func New() *Index { return NewWithOptions(Options{}) }

// NewWithOptions returns an empty index ranking with o.
func NewWithOptions(o Options) *Index {
	if !(o.K1 > 0) {
		o.K1 = K1
	}
	if !(o.B > 0 && o.B <= 1) {
		o.B = B
	}
	return &Index{k1: o.K1, b: o.B, terms: make(map[string]uint32), groups: make(map[Group]int)}
}

// Add indexes text as a new document of group g and returns its id. Ids are
// dense and increasing, so posting lists stay sorted by document.
func (ix *Index) Add(text string, g Group) Doc {
	d := Doc(len(ix.docs))
	var n uint32
	seen := ix.seen[:0]
	tokenize.Each(text, func(t string) {
		n++
		id, ok := ix.terms[t]
		if !ok {
			id = uint32(len(ix.lists))
			// A term may be a piece of the text: a copy keeps the
			// dictionary from holding every text that brought a new word.
			ix.terms[strings.Clone(t)] = id
			ix.lists = append(ix.lists, plist{})
			ix.counts = append(ix.counts, 0)
		}
		if ix.counts[id] == 0 {
			seen = append(seen, id)
		}
		ix.counts[id]++
	})
	for _, id := range seen {
		ix.lists[id].add(d, ix.counts[id])
		ix.counts[id] = 0
	}
	ix.seen = seen[:0]
	ix.docs = append(ix.docs, docInfo{length: n, group: g, live: true})
	ix.groups[g]++
	ix.totalLen += float64(n)
	ix.live++
	return d
}

// NeighbourWeight is the weight to Link a document with the one saved
// distance places before it in the same conversation (for a store: the same
// session on the same day): 0.5 for the previous one, 0.25 for the one
// before, 0 beyond. On LoCoMo (scripts/locomo) two neighbours a side at
// these weights rank better than one or three, flat or heavier weights.
// Words are lent, not scores: adding a share of a neighbour's score
// instead was found to pull the neighbour above the memory that actually
// answers. NeighbourLink adjusts it for questions.
func NeighbourWeight(distance int) float64 {
	switch distance {
	case 1:
		return 0.5
	case 2:
		return 0.25
	}
	return 0
}

// Question links: a memory that asks counts its neighbours' words at
// askBorrow times the weight, and the memory after it counts the question's
// at askAnswer times. The factors keep the weights dyadic, so lent counts
// sum exactly in any order (Search and Scorer sum them in different
// orders).
const (
	askBorrow = 0.5
	askAnswer = 1.5
)

// NeighbourLink returns the weights to Link a document with the one saved
// distance places before it in the same conversation, where earlierAsks
// and laterAsks say which of the two asks a question (Asks): toLater is
// the weight of the earlier one's words in the later, toEarlier the
// converse.
//
// A question holds no answer, and what answers it is what it is about: its
// words flow to the memory after it, which counts them at one and a half
// times the weight, while the question counts its neighbours' words at
// half. So "what did you paint?" lends "paint" to "a sunset by the lake"
// for a question about painting, and a question ranks mostly for its own
// words, not for an answer that the memory after it gives better. On
// LoCoMo (scripts/locomo) each of the three adjustments ranks better alone
// and all together better still; lending less from memories that are not
// questions ranks worse.
func NeighbourLink(distance int, earlierAsks, laterAsks bool) (toLater, toEarlier float64) {
	w := NeighbourWeight(distance)
	toLater, toEarlier = w, w
	if earlierAsks {
		toLater *= askAnswer
		toEarlier *= askBorrow
	}
	if laterAsks {
		toLater *= askBorrow
	}
	return toLater, toEarlier
}

// Asks reports whether text asks a question: it holds a "¿", or a "?" that
// ends a sentence (at the end, or before a space or punctuation — not the
// "?" of a URL's query string).
func Asks(text string) bool {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '?':
			if i+1 == len(text) {
				return true
			}
			if c := text[i+1]; c < utf8.RuneSelf && !unicode.IsLetter(rune(c)) && !unicode.IsDigit(rune(c)) && c != '=' && c != '&' && c != '/' {
				return true
			}
		case 0xC2: // "¿" is C2 BF
			if i+1 < len(text) && text[i+1] == 0xBF {
				return true
			}
		}
	}
	return false
}

// MaxLinkWeight bounds Link's weights: a neighbour's words never count as
// much as the document's own.
const MaxLinkWeight = 1

// Link makes documents a and b lend each other their words: for ranking, a
// is read as its own text plus b's with every occurrence counting wa, and b
// as its own plus a's at wb (0 < wa, wb ≤ 1). The caller chooses the
// neighbours and the weights (the index cannot tell which documents belong
// together: the store links memories saved one after another in one
// session on one day, at NeighbourLink's weights). A pair in different
// groups is not linked: a document would rank for words its reader may not
// see. Linking the same pair twice lends twice.
//
// A neighbour lends its whole length (for BM25's length normalisation) but
// only its words that are not common (Index.lends). The length counts at
// the mean of the two weights on both sides: a pair is read as one
// exchange, so shifting its words toward one side (a question's toward its
// answer) does not make that side read longer than the pair's distance
// says (on LoCoMo, lengths at each side's own weight rank worse).
//
// Lent words rank a document but are never contained in it: Contains and
// Hit.Matched see its own text, Hit.Related what only neighbours lent, and
// IDF counts only documents whose own text holds a term. A hidden
// document (SetLive) neither scores nor lends.
func (ix *Index) Link(a, b Doc, wa, wb float64) {
	if a == b || int(a) >= len(ix.docs) || int(b) >= len(ix.docs) || !(wa > 0) || !(wb > 0) || ix.docs[a].group != ix.docs[b].group {
		return
	}
	wa = float64(float32(min(wa, MaxLinkWeight)))
	wb = float64(float32(min(wb, MaxLinkWeight)))
	if need := int(max(a, b)) + 1; len(ix.links) < need {
		ix.links = append(ix.links, make([]linkSet, need-len(ix.links))...)
	}
	ix.addLink(a, b, wa, wb)
	ix.addLink(b, a, wb, wa)
	ix.lend(a, b, pairLength(wa, wb), 1)
	ix.lend(b, a, pairLength(wa, wb), 1)
}

// pairLength is the weight a linked pair's lengths count at (see Link).
func pairLength(wa, wb float64) float64 { return (wa + wb) / 2 }

// addLink records on from's side that to lends it its words at weight w,
// and from lends to its own at weight out.
func (ix *Index) addLink(from, to Doc, w, out float64) {
	l := link{doc: to, w: float32(w), out: float32(out)}
	if !ix.docs[to].live {
		l.w = -l.w
	}
	ls := &ix.links[from]
	for i := range ls {
		if ls[i].w == 0 {
			ls[i] = l
			return
		}
	}
	if ix.more == nil {
		ix.more = make(map[Doc][]link)
	}
	ix.more[from] = append(ix.more[from], l)
}

// lend adds (sign 1) or removes (sign -1) the length lender lends to
// borrower at weight w, when the lender is live.
func (ix *Index) lend(borrower, lender Doc, w float64, sign float64) {
	if !ix.docs[lender].live {
		return
	}
	n := sign * w * float64(ix.docs[lender].length)
	ix.docs[borrower].lent += n
	if ix.docs[borrower].live {
		ix.totalLen += n
	}
}

// Len returns the number of live documents.
func (ix *Index) Len() int { return ix.live }

// GroupLen returns the number of live documents in group g.
func (ix *Index) GroupLen(g Group) int { return ix.groups[g] }

// Groups returns the number of distinct groups with live documents.
func (ix *Index) Groups() int { return len(ix.groups) }

// IDF is the BM25 inverse document frequency of term t. A term found
// nowhere has the highest IDF, which makes it weigh most in Coverage: a query
// whose rarest words match nothing is not well answered by its commonest.
func (ix *Index) IDF(t string) float64 {
	var df float64
	if pl := ix.list(t); pl != nil {
		df = float64(pl.n)
	}
	n := float64(ix.live)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Contains reports whether the text of document d contains term t (words
// lent by a linked neighbour do not count).
func (ix *Index) Contains(d Doc, t string) bool {
	pl := ix.list(t)
	return pl != nil && pl.tf(d) > 0
}

// list returns term t's posting list, nil when no document has it.
func (ix *Index) list(t string) *plist {
	if id, ok := ix.terms[t]; ok {
		return &ix.lists[id]
	}
	return nil
}

// DocFreq returns how many documents hold term t (hidden ones included,
// as IDF counts them).
func (ix *Index) DocFreq(t string) int {
	if pl := ix.list(t); pl != nil {
		return int(pl.n)
	}
	return 0
}

// GroupFreq counts the live documents of group g whose own text holds
// term t: how common t is in one partition, which the store-wide IDF
// cannot tell (a project's name is rare in the store and in every memory
// of the project). It stops counting past limit, reporting limit+1.
func (ix *Index) GroupFreq(t string, g Group, limit int) int {
	pl := ix.list(t)
	if pl == nil {
		return 0
	}
	n := 0
	var docs [batch]Doc
	var tfs [batch]uint32
	c := pl.cursor()
	for k := c.fill(&docs, &tfs); k > 0; k = c.fill(&docs, &tfs) {
		for _, d := range docs[:k] {
			if info := ix.docs[d]; info.live && info.group == g {
				if n++; n > limit {
					return n
				}
			}
		}
	}
	return n
}

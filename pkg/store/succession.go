package store

import (
	"math"
	"slices"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Probable supersession: most corrections are not worded so that a fact
// pattern reads both values as one fact ("Upgraded golangci-lint to
// v1.60.3", "we dropped Jest for Vitest", "finally unpacked in the new
// flat in Valencia"). So when a memory is saved, the older memories of its
// partition that say the same thing about the same subject are found —
// by the rare words they share, weighted by rarity, or by a concept of
// pkg/lexicon they are both about — and the later-dated of each pair
// becomes the probable successor of the other. A change cue ("now", "no
// longer", "ya no") lowers the evidence needed; the dates, not the order
// of saving, decide the direction, so a memory saved late about an old
// value becomes history.
//
// The inference is stored in the new memory's header (leaf.Probable), so
// it is in the log and the leaf like every other link, rebuilt from the
// leaves as it was made (never re-inferred with a newer lexicon), and a
// person can undo it (Unlink). At query time a probable link takes effect
// only for a question that touches what the two memories share (their
// common concepts or rare words): a question about something else one of
// them says is not about what changed.
const (
	// successionTerms is how many of a new memory's rarest terms look for
	// its older versions, successionCandidates how many memories are
	// weighed, and maxProbable how many links one save makes.
	successionTerms      = 24
	successionCandidates = 12
	maxProbable          = 3
	// minSuccession is the confidence a link needs.
	minSuccession = 0.5
	// minSimilarity is the least share of the new memory's weight the
	// old one must hold for words to count as evidence.
	minSimilarity = 0.3
	// rareShare: a term is rare when its IDF in the partition is at least
	// this share of the highest IDF it can give (a term found nowhere).
	rareShare = 0.6
)

// successionEvidence is what the inference knows of one pair of memories.
type successionEvidence struct {
	// Similarity is the IDF-weighted share of the new memory's terms the
	// old one holds; Rare counts the shared terms that are rare.
	Similarity float64
	Rare       int
	// Concept: both are about a concept of the lexicon; Single: one that
	// has one value at a time (one home, one employer).
	Concept, Single bool
	// Cue: the new memory says something changed.
	Cue bool
}

// successionConfidence is the inference's policy, a pure function of the
// evidence. Words alone need two rare ones in common and a large share of
// the new memory's weight; a single-valued concept needs one rare word or
// a change cue; another concept needs both a rare word and a cue.
func successionConfidence(e successionEvidence) float64 {
	var c float64
	if e.Rare >= 2 && e.Similarity >= minSimilarity {
		c = e.Similarity
	}
	switch {
	case e.Single && (e.Rare >= 2 || e.Rare >= 1 && e.Cue):
		c = max(c, 0.55)
	case e.Concept && e.Rare >= 1 && e.Cue && e.Similarity >= minSimilarity/2:
		c = max(c, 0.45)
	}
	if e.Cue && c > 0 {
		c += 0.15
	}
	return min(1, math.Round(c*100)/100)
}

// inferSuccession adds to l, a memory about to be saved, the probable
// supersessions between it and the older memories of its partition. It
// runs in the caller's goroutine, before the writer: an inference against
// a save of the same moment may be missed, never a wrong one made.
func (s *Store) inferSuccession(l *leaf.Leaf, valid time.Time) {
	if l.Source != nil {
		return // a document's blocks are not statements that change
	}
	terms := ownTerms(l)
	concepts := s.lex.Concepts(l.Text)
	cue := s.lex.ChangeCue(l.Text)

	s.mu.RLock()
	defer s.mu.RUnlock()
	g, ok := s.groups[l.Project]
	if l.Scope == leaf.ScopeGlobal {
		g, ok = 0, true
	}
	if !ok {
		return // the first memory of its project
	}
	top := s.rarest(terms, successionTerms)
	if len(top) == 0 {
		return
	}
	hits, _ := s.ix.Search(index.Query{Terms: top, Visible: func(x index.Group) bool { return x == g }, Limit: successionCandidates})
	// Rarity is measured in the partition: a word every memory of the
	// project holds ("staging", "prod") tells its versions apart no better
	// than the project's name.
	n := float64(s.ix.GroupLen(g))
	idf := make([]float64, len(top))
	var total float64
	for i, t := range top {
		df := float64(s.ix.GroupFreq(t, g, int(n)/2))
		idf[i] = math.Log(1 + (n-df+0.5)/(df+0.5))
		total += idf[i]
	}
	rare := rareShare * math.Log(1+(n+0.5)/0.5) // a term found nowhere has the highest IDF
	var found []leaf.Probable
	for _, h := range hits {
		m := s.docs[h.Doc]
		if !isLive(m) || m.Source != nil || m.Scope != l.Scope || sameDay(m.ValidFrom, valid) {
			continue
		}
		e := successionEvidence{Cue: cue}
		var shared []string
		for i, t := range top {
			if h.Matched&(1<<i) == 0 {
				continue
			}
			e.Similarity += idf[i] / total
			if idf[i] >= rare {
				e.Rare++
				shared = append(shared, t)
			}
		}
		common := s.lex.ConceptsWith(concepts, func(t string) bool { return s.ix.Contains(h.Doc, t) })
		e.Concept, e.Single = common != 0, s.lex.Single(common) != 0
		conf := successionConfidence(e)
		if conf < minSuccession {
			continue
		}
		found = append(found, leaf.Probable{ID: m.ID, Newer: m.ValidFrom.After(valid), Confidence: conf, Concepts: s.lex.Names(common), Terms: shared})
	}
	slices.SortStableFunc(found, func(a, b leaf.Probable) int { return compareFloat(b.Confidence, a.Confidence) })
	l.Probable = found[:min(len(found), maxProbable)]
}

// ownTerms are the terms of l's text that can tell its versions apart:
// not its project's name, which every memory of the project shares, nor a
// single character.
func ownTerms(l *leaf.Leaf) []string {
	name := map[string]bool{}
	for _, t := range tokenize.Terms(l.Project) {
		name[t] = true
	}
	var out []string
	for _, t := range tokenize.Terms(l.Text) {
		if !name[t] && len([]rune(t)) > 1 {
			out = append(out, t)
		}
	}
	return out
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sameDay(a, b time.Time) bool {
	return a.UTC().Format(time.DateOnly) == b.UTC().Format(time.DateOnly)
}

// rarest returns up to n of terms, the rarest first. Callers hold s.mu.
func (s *Store) rarest(terms []string, n int) []string {
	out := slices.Clone(terms)
	slices.SortStableFunc(out, func(a, b string) int { return compareFloat(s.ix.IDF(b), s.ix.IDF(a)) })
	return out[:min(len(out), n, index.MaxQueryTerms)]
}

// edge is a probable supersession as the ranking uses it: the successor,
// and what the two memories share.
type edge struct {
	to       index.Doc
	concepts lexicon.Set
	terms    []string
}

// addProbable puts a live leaf's probable supersessions in s.likely.
// Callers hold s.mu.
func (s *Store) addProbable(l *leaf.Leaf) {
	self, ok := s.byID[l.ID]
	if !ok {
		return
	}
	for _, p := range l.Probable {
		d, ok := s.byID[p.ID]
		if !ok || !isLive(s.docs[d]) || partition(s.docs[d]) != partition(l) {
			continue
		}
		from, to := d, self
		if p.Newer {
			from, to = self, d
		}
		if slices.ContainsFunc(s.likely[from], func(e edge) bool { return e.to == to }) {
			continue
		}
		s.likely[from] = append(s.likely[from], edge{to: to, concepts: s.lex.Named(p.Concepts), terms: p.Terms})
	}
}

// probableSuccessor returns the newest memory that probably supersedes d
// for this question, if one is visible in the view: the question touches
// what the two share, or both hold one of its words.
func (sc successors) probableSuccessor(d index.Doc) (index.Doc, bool) {
	var best index.Doc
	found := false
	for _, e := range sc.s.likely[d] {
		if !sc.visible(e.to) || !(sc.q.touches(e) || sc.pool[e.to]&sc.pool[d] != 0) {
			continue
		}
		if !found || sc.s.docs[e.to].ValidFrom.After(sc.s.docs[best].ValidFrom) {
			best, found = e.to, true
		}
	}
	return best, found
}

// asked is what a question touches, for deciding whether a probable
// supersession is about it.
type asked struct {
	concepts lexicon.Set
	terms    map[string]bool
}

func (s *Store) askedOf(query string, terms []string) asked {
	a := asked{concepts: s.lex.Concepts(query), terms: make(map[string]bool, len(terms))}
	for _, t := range terms {
		a.terms[t] = true
	}
	return a
}

func (a asked) touches(e edge) bool {
	if a.concepts.Has(e.concepts) {
		return true
	}
	for _, t := range e.terms {
		if a.terms[t] {
			return true
		}
	}
	return false
}

// probableNotice words the notice of a memory probably superseded by l.
func (s *Store) probableNotice(l *leaf.Leaf) string {
	full := s.shown(l)
	return "PROBABLY OUTDATED: a later memory (" + l.ValidFrom.Format(time.DateOnly) + ", " + l.ID + ") says: " + excerpt(full.Text)
}

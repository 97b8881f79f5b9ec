package index

// Scorer scores one query document by document, for searches that do not
// walk every posting list: the tree's descent scores the leaves it reaches,
// and its guarantee walks lists only until nothing unscored could place.
// Its scores are exactly Search's, lent words included, so a search through
// a Scorer and an exhaustive Search rank alike.
//
// A Scorer reads the index without locking; the caller holds the same lock
// it would hold for Search for as long as it uses the Scorer.
type Scorer struct {
	ix    *Index
	terms []string
	// lists are the terms' posting lists, nil for a term no document has:
	// found once here, not hashed again for every document scored.
	lists  []*plist
	idf    []float64
	avgLen float64
	vis    visibility // the groups the caller may see
	// plan is the terms some document holds, in the order Search sums
	// them, so Score's sums are Search's to the last bit.
	plan []planned
}

// Scorer returns a scorer for terms (at most MaxQueryTerms are used) over
// the live documents whose group visible accepts.
func (ix *Index) Scorer(terms []string, visible func(Group) bool) *Scorer {
	return ix.WeightedScorer(terms, nil, visible)
}

// WeightedScorer is Scorer with each term's IDF scaled as Query.Weights
// scales it, so that it scores as a Search with those weights.
func (ix *Index) WeightedScorer(terms []string, weights []float64, visible func(Group) bool) *Scorer {
	if len(terms) > MaxQueryTerms {
		terms = terms[:MaxQueryTerms]
	}
	s := &Scorer{ix: ix, terms: terms, lists: make([]*plist, len(terms)), idf: make([]float64, len(terms)), vis: ix.visibility(visible)}
	for i, t := range terms {
		s.lists[i] = ix.list(t)
		s.idf[i] = ix.IDF(t) * weight(weights, i)
	}
	s.plan = ix.plan(terms, weights)
	if ix.live > 0 {
		s.avgLen = ix.totalLen / float64(ix.live)
	}
	return s
}

// Terms returns the query's terms.
func (s *Scorer) Terms() []string { return s.terms }

// UpperBound bounds term i's contribution to any document's score.
func (s *Scorer) UpperBound(i int) float64 { return s.ix.bound(s.idf[i]) }

// Score returns document d's score and the terms its own text contains;
// ok is false for a hidden document or one the caller may not see.
func (s *Scorer) Score(d Doc) (score float64, matched uint64, ok bool) {
	if int(d) >= len(s.ix.docs) {
		return 0, 0, false
	}
	info := s.ix.docs[d]
	if !info.live || !s.vis.sees(info.group) {
		return 0, 0, false
	}
	var norm float64
	for _, t := range s.plan {
		c := s.ix.termCount(d, t)
		if c.own > 0 {
			matched |= t.bit
		}
		if tf := float64(c.own) + float64(c.lent); tf > 0 {
			if norm == 0 {
				norm = s.ix.norm(info, s.avgLen)
			}
			score += s.ix.bm25(t.idf, tf, norm)
		}
	}
	return score, matched, true
}

// Postings calls fn once for every visible live document term i contributes
// to — those containing it and those a linked neighbour containing it lends
// it to — with that contribution, exactly as Score counts it.
//
// It walks the list once, with Search's own walk: counts (own, and lent at
// the link's weight) are summed per document in pooled arrays, then each
// document's contribution is computed once. Looking each neighbour's count
// up in the list instead cost a search per posting and link.
func (s *Scorer) Postings(i int, fn func(d Doc, contribution float64)) {
	pl := s.lists[i]
	if pl == nil {
		return
	}
	ix := s.ix
	acc := getAccumulator(len(ix.docs))
	defer putAccumulator(acc)
	ix.walk(acc, planned{pl: pl, lends: ix.lends(pl)}, s.vis, false)
	for _, d := range acc.termDocs {
		c := acc.counts[d]
		acc.counts[d] = count{}
		fn(d, ix.bm25(s.idf[i], float64(c.own)+float64(c.lent), ix.norm(ix.docs[d], s.avgLen)))
	}
}

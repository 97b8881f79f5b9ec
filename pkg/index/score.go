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
	lists   []*plist
	idf     []float64
	avgLen  float64
	visible func(Group) bool
}

// Scorer returns a scorer for terms (at most MaxQueryTerms are used) over
// the live documents whose group visible accepts.
func (ix *Index) Scorer(terms []string, visible func(Group) bool) *Scorer {
	if len(terms) > MaxQueryTerms {
		terms = terms[:MaxQueryTerms]
	}
	s := &Scorer{ix: ix, terms: terms, lists: make([]*plist, len(terms)), idf: make([]float64, len(terms)), visible: visible}
	for i, t := range terms {
		s.lists[i] = ix.list(t)
		s.idf[i] = ix.IDF(t)
	}
	if ix.live > 0 {
		s.avgLen = ix.totalLen / float64(ix.live)
	}
	return s
}

// Terms returns the query's terms.
func (s *Scorer) Terms() []string { return s.terms }

// UpperBound bounds term i's contribution to any document's score: BM25's
// saturation keeps tf/(tf+norm) below 1.
func (s *Scorer) UpperBound(i int) float64 { return s.idf[i] * (s.ix.k1 + 1) }

// Score returns document d's score and the terms its own text contains;
// ok is false for a hidden document or one the caller may not see.
func (s *Scorer) Score(d Doc) (score float64, matched uint64, ok bool) {
	if int(d) >= len(s.ix.docs) {
		return 0, 0, false
	}
	info := s.ix.docs[d]
	if !info.live || !s.visible(info.group) {
		return 0, 0, false
	}
	for i, pl := range s.lists {
		if pl == nil {
			continue
		}
		own := pl.tf(d)
		if own > 0 {
			matched |= 1 << uint(i)
		}
		if tf := float64(own) + s.lentTF(d, lookup{pl: pl}); tf > 0 {
			score += s.ix.bm25(s.idf[i], tf, info, s.avgLen)
		}
	}
	return score, matched, true
}

// Postings calls fn once for every visible live document term i contributes
// to — those containing it and those a linked neighbour containing it lends
// it to — with that contribution, exactly as Score counts it.
//
// It walks the list once, as Search does: counts (own, and lent at the
// link's weight) are summed per document in pooled arrays, then each
// document's contribution is computed once. Looking each neighbour's count
// up in the list instead cost a search per posting and link.
func (s *Scorer) Postings(i int, fn func(d Doc, contribution float64)) {
	pl := s.lists[i]
	if pl == nil {
		return
	}
	ix := s.ix
	acc := accPool.Get().(*accumulator)
	defer accPool.Put(acc)
	if len(acc.tf) < len(ix.docs) {
		n := len(ix.docs) + len(ix.docs)/4
		acc.score = make([]float64, n)
		acc.matched = make([]uint64, n)
		acc.related = make([]uint64, n)
		acc.tf = make([]float64, n)
	}
	acc.termDocs = acc.termDocs[:0]
	count := func(d Doc, tf float64) {
		if acc.tf[d] == 0 {
			acc.termDocs = append(acc.termDocs, d)
		}
		acc.tf[d] += tf
	}
	var docs [batch]Doc
	var tfs [batch]uint32
	for c := pl.cursor(); ; {
		n := c.fill(&docs, &tfs)
		if n == 0 {
			break
		}
		for k, d := range docs[:n] {
			info := ix.docs[d]
			if !info.live {
				continue // a hidden document neither scores nor lends
			}
			tf := float64(tfs[k])
			if s.visible(info.group) {
				count(d, tf)
			}
			for _, l := range ix.linksOf(d) {
				if n := ix.docs[l.doc]; n.live && s.visible(n.group) {
					count(l.doc, float64(l.w)*tf)
				}
			}
		}
	}
	for _, d := range acc.termDocs {
		tf := acc.tf[d]
		acc.tf[d] = 0
		fn(d, ix.bm25(s.idf[i], tf, ix.docs[d], s.avgLen))
	}
}

// lentTF is the weighted count of a term (looked up in lk) that d's live
// neighbours lend it.
func (s *Scorer) lentTF(d Doc, lk lookup) float64 {
	var tf float64
	for _, l := range s.ix.linksOf(d) {
		if s.ix.docs[l.doc].live {
			tf += float64(l.w) * float64(lk.tf(l.doc))
		}
	}
	return tf
}

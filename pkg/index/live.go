package index

import "math"

// SetLive shows (live) or hides a document. A hidden document is never
// scored, lends nothing to the documents linked to it, and does not count in
// the collection statistics, so a forgotten or rejected memory neither
// answers a search nor skews the ranking of the others; its postings and
// links stay, so showing it again is cheap.
func (ix *Index) SetLive(d Doc, live bool) {
	info := &ix.docs[d]
	if info.live == live {
		return
	}
	sign := 1.0
	if !live {
		sign = -1
		// Withdraw what d lends while it still counts as live.
		for _, l := range ix.linksOf(d) {
			ix.lend(l.doc, d, l.length(), sign)
		}
	}
	info.live = live
	ix.totalLen += sign * (float64(info.length) + info.lent)
	for _, l := range ix.linksOf(d) {
		ix.markLinks(l.doc, d, live)
	}
	if live {
		ix.live++
		ix.groups[info.group]++
		for _, l := range ix.linksOf(d) {
			ix.lend(l.doc, d, l.length(), sign)
		}
		return
	}
	ix.live--
	if ix.groups[info.group]--; ix.groups[info.group] == 0 {
		delete(ix.groups, info.group)
	}
}

// Live reports whether d is shown to searches.
func (ix *Index) Live(d Doc) bool { return ix.docs[d].live }

// linksOf returns d's links, for reading.
func (ix *Index) linksOf(d Doc) []link {
	if int(d) >= len(ix.links) {
		return nil
	}
	ls := &ix.links[d]
	n := 0
	for n < inlineLinks && ls[n].w != 0 {
		n++
	}
	if n < inlineLinks {
		return ls[:n:n]
	}
	return append(ls[:n:n], ix.more[d]...)
}

// markLinks records in at's links to d whether d is live.
func (ix *Index) markLinks(at, d Doc, live bool) {
	mark := func(l *link) {
		if l.doc == d && l.w != 0 && (l.w > 0) != live {
			l.w = -l.w
		}
	}
	ls := &ix.links[at]
	for i := range ls {
		mark(&ls[i])
	}
	for i := range ix.more[at] {
		mark(&ix.more[at][i])
	}
}

// length is the weight the pair's lengths count at (pairLength), whether
// the neighbour is live or not.
func (l link) length() float64 { return pairLength(math.Abs(float64(l.w)), float64(l.out)) }

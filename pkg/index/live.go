package index

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
			ix.lend(l.doc, d, float64(l.w), sign)
		}
	}
	info.live = live
	ix.totalLen += sign * (float64(info.length) + info.lent)
	if live {
		ix.live++
		ix.groups[info.group]++
		for _, l := range ix.linksOf(d) {
			ix.lend(l.doc, d, float64(l.w), sign)
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

func (ix *Index) linksOf(d Doc) []link {
	if int(d) < len(ix.links) {
		return ix.links[d]
	}
	return nil
}

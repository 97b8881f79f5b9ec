package index

import "encoding/binary"

// Posting lists are most of what the index holds (a posting per distinct
// word of every memory), so they are kept compressed: a document's id as
// the gap from the previous posting's, and its count only when it is not
// 1, both as varints. A posting then takes one or two bytes instead of
// eight, which is what keeps a large store's index small.
//
// A list is read front to back by Search and Scorer.Postings. Scorer.Score,
// Contains and a search completing its last candidates (termCount) ask for
// one document's count instead; for them every
// skipEvery-th posting is recorded in a small skip table, so a lookup is a
// binary search over the table and the decoding of one block.

// skipEvery is the block length of the skip table: a lookup decodes at
// most this many postings, and the table costs 8 bytes per block. 16 keeps
// the table at half a byte per posting while a lookup stays well under the
// cost of hashing the term.
const skipEvery = 16

// plist is one term's posting list.
type plist struct {
	// data holds the postings in document order: varint(gap<<1 | tf≠1),
	// then varint(tf) when tf≠1. The first gap counts from document 0.
	data []byte
	// skips[k] says where block k+1 (postings from (k+1)·skipEvery on)
	// starts, and the document before it, the base of its first gap.
	skips []skip
	n     uint32 // postings: the term's document frequency
	last  Doc    // the last posting's document
}

type skip struct {
	before Doc
	off    uint32
}

// add appends a posting; d must be greater than every document in the list
// (documents are added in increasing order) and tf at least 1.
func (pl *plist) add(d Doc, tf uint32) {
	if pl.n > 0 && pl.n%skipEvery == 0 {
		pl.skips = append(pl.skips, skip{before: pl.last, off: uint32(len(pl.data))})
	}
	v := uint64(d-pl.last) << 1
	if tf != 1 {
		v |= 1
	}
	pl.data = binary.AppendUvarint(pl.data, v)
	if tf != 1 {
		pl.data = binary.AppendUvarint(pl.data, uint64(tf))
	}
	pl.last = d
	pl.n++
}

// batch is how many postings a cursor decodes at a time: the loops that
// read whole lists then run over plain arrays, paying one call per batch
// rather than one per posting.
const batch = 64

// cursor reads a list's postings in order.
type cursor struct {
	data []byte
	off  int
	doc  Doc
}

func (pl *plist) cursor() cursor { return cursor{data: pl.data} }

// fill decodes the next postings, up to a batch, into docs and tfs and
// returns how many it decoded: 0 at the end of the list.
func (c *cursor) fill(docs *[batch]Doc, tfs *[batch]uint32) int {
	data, off, doc := c.data, c.off, c.doc
	n := 0
	for ; n < batch && off < len(data); n++ {
		if b := data[off]; b&0x81 == 0 {
			doc += Doc(b >> 1)
			off++
			docs[n], tfs[n] = doc, 1
			continue
		}
		var tf uint32
		doc, tf, off = decodeLong(data, off, doc)
		docs[n], tfs[n] = doc, tf
	}
	c.off, c.doc = off, doc
	return n
}

// tf returns how often the term occurs in document d (0: not at all).
func (pl *plist) tf(d Doc) uint32 {
	if pl.n == 0 || d > pl.last {
		return 0
	}
	// The block to decode is the last one whose preceding document is
	// before d: the first block when there is none.
	lo, hi := 0, len(pl.skips)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if pl.skips[mid].before < d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	data, off, doc := pl.data, 0, Doc(0)
	if lo > 0 {
		off, doc = int(pl.skips[lo-1].off), pl.skips[lo-1].before
	}
	for off < len(data) {
		tf := uint32(1)
		if b := data[off]; b&0x81 == 0 {
			doc += Doc(b >> 1)
			off++
		} else {
			doc, tf, off = decodeLong(data, off, doc)
		}
		if doc >= d {
			if doc == d {
				return tf
			}
			return 0
		}
	}
	return 0
}

// decodeLong reads the posting at data[off:], whose predecessor is
// document prev, and returns its document, its count and where the next
// one starts. The common posting — one byte: a gap under 64 and a count of
// 1 — is decoded in the loops themselves (a call per posting would cost as
// much as the rest of the loop); this is the rest. The list was written by
// add, so it is well formed.
func decodeLong(data []byte, off int, prev Doc) (Doc, uint32, int) {
	v, off := uvarint(data, off)
	if v&1 == 0 {
		return prev + Doc(v>>1), 1, off
	}
	tf, off := uvarint(data, off)
	return prev + Doc(v>>1), uint32(tf), off
}

// uvarint decodes the varint at data[off:] and returns where it ends. The
// lists hold no value over 2^33, so no overflow check is needed.
func uvarint(data []byte, off int) (uint64, int) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		b := data[off]
		off++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, off
		}
	}
}

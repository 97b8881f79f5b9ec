package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// A snapshot is an index written to bytes (AppendSnapshot) and read back
// (ReadSnapshot), so that its owner can skip tokenizing every text at a
// start. It holds what Add and Link stored — the dictionary, the posting
// lists, each document's length and group, the links — and each document's
// live state; the statistics those imply (lengths lent, the collection's
// length, counts per group) are not stored but computed again as building
// the index by Add, Link and SetLive in document order computes them, so
// that a snapshot read back ranks exactly like the index built again, to
// the last bit of every float. That holds for an index built the way the
// store builds it: documents added in order, each linked only to earlier
// ones when it is added, hidden (if at all) right after.
//
// A snapshot comes from a file, so ReadSnapshot trusts nothing in it: every
// posting list is decoded and checked (a list Search could run off the end
// of is refused), and any malformed input is an error, never a panic.

// SnapshotVersion names the snapshot's format and what built it. Bump it
// whenever a change to this package or to package tokenize would index a
// text otherwise (other terms, other counts, other links): an old snapshot
// is then rebuilt instead of read. Its owner also re-tokenizes a sample of
// documents (Indexed) to catch a change nobody bumped this for.
const SnapshotVersion = 1

// ErrSnapshot is wrapped by every error ReadSnapshot returns.
var ErrSnapshot = errors.New("unusable index snapshot")

const snapshotMagic = "IHMT-INDEX\n"

// AppendSnapshot appends the index's snapshot to b.
func (ix *Index) AppendSnapshot(b []byte) []byte {
	b = append(b, snapshotMagic...)
	b = binary.AppendUvarint(b, SnapshotVersion)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ix.k1))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ix.b))
	names := make([]string, len(ix.lists))
	for t, id := range ix.terms {
		names[id] = t
	}
	b = binary.AppendUvarint(b, uint64(len(names)))
	for id, t := range names {
		pl := &ix.lists[id]
		b = appendBytes(b, []byte(t))
		b = binary.AppendUvarint(b, uint64(pl.n))
		b = appendBytes(b, pl.data)
	}
	b = binary.AppendUvarint(b, uint64(len(ix.docs)))
	for _, info := range ix.docs {
		b = binary.AppendUvarint(b, uint64(info.length))
		b = binary.AppendUvarint(b, uint64(info.group))
		b = appendBool(b, info.live)
	}
	b = binary.AppendUvarint(b, uint64(len(ix.links)))
	for d := range ix.links {
		ls := ix.linksOf(Doc(d))
		b = binary.AppendUvarint(b, uint64(len(ls)))
		for _, l := range ls {
			b = binary.AppendUvarint(b, uint64(l.doc))
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(math.Abs(float64(l.w)))))
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(l.out))
		}
	}
	return b
}

func appendBytes(b, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// ReadSnapshot reads an index from a snapshot AppendSnapshot wrote and
// returns it with the bytes after it.
func ReadSnapshot(data []byte) (*Index, []byte, error) {
	r := &reader{data: data}
	if string(r.bytes(len(snapshotMagic))) != snapshotMagic {
		return nil, nil, fmt.Errorf("%w: not an index snapshot", ErrSnapshot)
	}
	if v := r.uvarint(); r.err == nil && v != SnapshotVersion {
		return nil, nil, fmt.Errorf("%w: format %d, this program reads %d", ErrSnapshot, v, SnapshotVersion)
	}
	ix := NewWithOptions(Options{K1: r.float64(), B: r.float64()})
	r.terms(ix)
	r.docs(ix)
	r.links(ix)
	if r.err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrSnapshot, r.err)
	}
	for id := range ix.lists {
		if err := ix.lists[id].check(len(ix.docs)); err != nil {
			return nil, nil, fmt.Errorf("%w: postings of term %d: %v", ErrSnapshot, id, err)
		}
	}
	// An index that never had any keeps these nil: one read back is the
	// same value.
	if len(ix.lists) == 0 {
		ix.lists, ix.counts = nil, nil
	}
	if len(ix.docs) == 0 {
		ix.docs = nil
	}
	if len(ix.links) == 0 {
		ix.links = nil
	}
	ix.restat()
	return ix, r.data[r.off:], nil
}

// terms reads the dictionary and the posting lists.
func (r *reader) terms(ix *Index) {
	n := r.count(2)
	ix.lists = make([]plist, 0, n)
	ix.counts = make([]uint32, n)
	for id := range n {
		t := string(r.bytes(int(r.count(1))))
		if _, dup := ix.terms[t]; dup && r.err == nil {
			r.err = fmt.Errorf("term %q twice", t)
		}
		ix.terms[t] = uint32(id)
		postings := r.uvarint()
		data := r.bytes(int(r.count(1)))
		if r.err != nil {
			return
		}
		ix.lists = append(ix.lists, plist{data: data, n: uint32(min(postings, math.MaxUint32))})
	}
}

// docs reads every document's length, group and live state.
func (r *reader) docs(ix *Index) {
	n := r.count(3)
	ix.docs = make([]docInfo, n)
	for d := range ix.docs {
		length, g := r.uvarint(), r.uvarint()
		if length > math.MaxUint32 || g > math.MaxUint32 {
			r.fail("document %d: length or group out of range", d)
		}
		ix.docs[d] = docInfo{length: uint32(length), group: Group(g), live: r.bool()}
	}
}

// links reads the links, checking each is one Link could have made.
func (r *reader) links(ix *Index) {
	n := r.count(1)
	if n > uint64(len(ix.docs)) {
		r.fail("links for %d documents of %d", n, len(ix.docs))
		return
	}
	ix.links = make([]linkSet, n)
	for d := range ix.links {
		k := r.count(9)
		for i := range k {
			to, w, out := r.uvarint(), r.float32(), r.float32()
			if r.err != nil {
				return
			}
			if to >= uint64(len(ix.docs)) || Doc(to) == Doc(d) || ix.docs[to].group != ix.docs[d].group ||
				!(w > 0 && w <= MaxLinkWeight) || !(out > 0 && out <= MaxLinkWeight) {
				r.fail("document %d: link %d is not one Link makes", d, i)
				return
			}
			l := link{doc: Doc(to), w: w, out: out}
			if !ix.docs[to].live {
				l.w = -w
			}
			if i < inlineLinks {
				ix.links[d][i] = l
				continue
			}
			if ix.more == nil {
				ix.more = make(map[Doc][]link)
			}
			ix.more[Doc(d)] = append(ix.more[Doc(d)], l)
		}
	}
}

// check decodes the whole list, refusing one that is not what add writes
// for documents below docs, and builds its skip table.
func (pl *plist) check(docs int) error {
	want := pl.n
	pl.n, pl.skips = 0, nil
	var doc Doc
	for off := 0; off < len(pl.data); {
		v, next, ok := safeUvarint(pl.data, off)
		if !ok || v>>1 > uint64(docs) {
			return errors.New("bad gap")
		}
		tf := uint64(1)
		if v&1 == 1 {
			if tf, next, ok = safeUvarint(pl.data, next); !ok || tf == 1 || tf == 0 || tf > math.MaxUint32 {
				return errors.New("bad count")
			}
		}
		gap := Doc(v >> 1)
		if (pl.n > 0 && gap == 0) || uint64(doc)+uint64(gap) >= uint64(docs) {
			return errors.New("postings out of order or past the last document")
		}
		if pl.n > 0 && pl.n%skipEvery == 0 {
			pl.skips = append(pl.skips, skip{before: doc, off: uint32(off)})
		}
		doc += gap
		pl.n++
		off = next
	}
	if pl.n != want || pl.n == 0 {
		return fmt.Errorf("%d postings, header says %d", pl.n, want)
	}
	pl.last = doc
	return nil
}

// safeUvarint is uvarint for bytes not known to be well formed.
func safeUvarint(data []byte, off int) (uint64, int, bool) {
	v, n := binary.Uvarint(data[off:])
	if n <= 0 || v > 1<<40 {
		return 0, off, false
	}
	return v, off + n, true
}

// restat computes the statistics Add, Link and SetLive keep, in the order
// building the index computes them (see the snapshot's comment above):
// document d is added (live), linked to each earlier neighbour in the
// order its links list them, then hidden if it is not live.
func (ix *Index) restat() {
	final := make([]bool, len(ix.docs))
	for d := range ix.docs {
		final[d] = ix.docs[d].live
		ix.docs[d].live = false
	}
	for d := range ix.docs {
		info := &ix.docs[d]
		info.live = true
		ix.groups[info.group]++
		ix.totalLen += float64(info.length)
		ix.live++
		for _, l := range ix.linksOf(Doc(d)) {
			if l.doc < Doc(d) {
				n := l.length()
				ix.lend(Doc(d), l.doc, n, 1)
				ix.lend(l.doc, Doc(d), n, 1)
			}
		}
		if !final[d] {
			ix.hideNew(Doc(d))
		}
	}
}

// hideNew is SetLive(d, false) for the document restat has just added:
// only its links to earlier documents exist yet.
func (ix *Index) hideNew(d Doc) {
	for _, l := range ix.linksOf(d) {
		if l.doc < d {
			ix.lend(l.doc, d, l.length(), -1)
		}
	}
	info := &ix.docs[d]
	info.live = false
	ix.totalLen -= float64(info.length) + info.lent
	ix.live--
	if ix.groups[info.group]--; ix.groups[info.group] == 0 {
		delete(ix.groups, info.group)
	}
}

// Indexed reports whether document d holds exactly the terms Add(text)
// would give it: the owner's check, on a sample, that the snapshot it read
// was built by the tokenizer it runs.
func (ix *Index) Indexed(d Doc, text string) bool {
	if int(d) >= len(ix.docs) {
		return false
	}
	counts := map[string]uint32{}
	var n uint32
	tokenize.Each(text, func(t string) { counts[t]++; n++ })
	if n != ix.docs[d].length {
		return false
	}
	for t, c := range counts {
		if pl := ix.list(t); pl == nil || pl.tf(d) != c {
			return false
		}
	}
	return true
}

// Length returns the number of terms of document d's own text.
func (ix *Index) Length(d Doc) int { return int(ix.docs[d].length) }

// Docs returns the number of documents, live or hidden.
func (ix *Index) Docs() int { return len(ix.docs) }

// GroupOf returns the group document d was added to.
func (ix *Index) GroupOf(d Doc) Group { return ix.docs[d].group }

// reader reads a snapshot, remembering the first error.
type reader struct {
	data []byte
	off  int
	err  error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.data)-r.off {
		r.fail("truncated at byte %d", r.off)
		return nil
	}
	p := r.data[r.off : r.off+n : r.off+n]
	r.off += n
	return p
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.data[r.off:])
	if n <= 0 {
		r.fail("bad number at byte %d", r.off)
		return 0
	}
	r.off += n
	return v
}

// count reads a count of items that take at least size bytes each, refusing
// one the rest of the data cannot hold (so no huge allocation is made for
// a damaged count).
func (r *reader) count(size int) uint64 {
	n := r.uvarint()
	if n > uint64(len(r.data)-r.off)/uint64(size) {
		r.fail("count %d at byte %d exceeds the data", n, r.off)
		return 0
	}
	return n
}

func (r *reader) bool() bool {
	p := r.bytes(1)
	if len(p) == 1 && p[0] > 1 {
		r.fail("bad flag at byte %d", r.off-1)
	}
	return len(p) == 1 && p[0] == 1
}

func (r *reader) float64() float64 {
	p := r.bytes(8)
	if len(p) < 8 {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(p))
}

func (r *reader) float32() float32 {
	p := r.bytes(4)
	if len(p) < 4 {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(p))
}

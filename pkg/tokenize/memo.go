package tokenize

import (
	"hash/maphash"
	"strings"
	"sync"
)

// A saved text is read many times over in the moments after it arrives:
// the index, the fact extractor's neighbours, the lexicon's several
// readings of it (what it is about, whether it names a change, an event,
// an address, its language), the succession inference over it and over
// the older memories it may correct, and the summary tree (which reads a
// leaf's title and excerpt again when it files the leaf under a branch,
// and that branch's summary when it files it higher). Each reading
// wants the same words, and tokenizing is the larger part of each. So the
// two tokenizations (the index's terms and the sentence's words) of the
// texts read most recently are kept here, and every caller still gets
// slices of its own (or a callback), so nothing a caller does to them can
// reach another.
//
// The memo is a fixed number of slots chosen by the text's hash: a new
// text takes its slot's place, so it holds at most memoSlots texts and
// never grows with the store: memoSlots texts of at most memoMax bytes,
// with their terms, in each of the two memos — a few megabytes for the
// memories people save, tens at the very most. A word or two is cheaper
// to tokenize again than to hash and look up, and a long text (a
// document's block) would hold too much memory for the little it is read
// again; neither is kept, nor collected into a slice first.
const (
	memoSlots  = 4096
	memoShards = 32
	memoMin    = 16
	memoMax    = 4 << 10
)

// memoised reports whether text is of a length the memos keep.
func memoised(text string) bool { return len(text) >= memoMin && len(text) <= memoMax }

// packed is a text's terms, in order, as the memos keep them: one string
// and two arrays of plain numbers, so that the garbage collector, which
// would otherwise follow every term of every text held, follows one
// pointer a text. A term read from it is a piece of joined: a caller that
// keeps one copies it (as the index does its dictionary's).
type packed struct {
	joined string
	ends   []uint32 // where each term ends in joined
	stops  []bool   // whether each is a stop word (tokens only)
}

func (p packed) len() int { return len(p.ends) }

func (p packed) term(i int) string {
	start := uint32(0)
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.joined[start:p.ends[i]]
}

// packer builds a packed.
type packer struct {
	b     strings.Builder
	p     packed
	stops bool // whether to record stop words
}

func (k *packer) add(term string, stop bool) {
	k.b.WriteString(term)
	k.p.ends = append(k.p.ends, uint32(k.b.Len()))
	if k.stops {
		k.p.stops = append(k.p.stops, stop)
	}
}

func (k *packer) done() packed {
	k.p.joined = k.b.String()
	return k.p
}

type memo struct {
	seed   maphash.Seed
	shards [memoShards]memoShard
}

type memoShard struct {
	mu    sync.Mutex
	texts [memoSlots / memoShards]string
	vals  [memoSlots / memoShards]packed
}

var (
	tokenMemo = memo{seed: maphash.MakeSeed()}
	wordMemo  = memo{seed: maphash.MakeSeed()}
)

// get returns what compute gives for text, from the memo when text was
// read lately. What it returns is shared: callers only read it.
func (m *memo) get(text string, compute func(string) packed) packed {
	if !memoised(text) {
		return compute(text)
	}
	sh, slot := m.slot(text)
	sh.mu.Lock()
	if sh.texts[slot] == text {
		v := sh.vals[slot]
		sh.mu.Unlock()
		return v
	}
	sh.mu.Unlock()
	v := compute(text)
	sh.mu.Lock()
	sh.texts[slot], sh.vals[slot] = text, v
	sh.mu.Unlock()
	return v
}

// Forget drops text from the memos, so that no copy of it stays in memory
// (a memory a person purged).
func Forget(text string) {
	tokenMemo.forget(text)
	wordMemo.forget(text)
}

func (m *memo) forget(text string) {
	if !memoised(text) {
		return
	}
	sh, slot := m.slot(text)
	sh.mu.Lock()
	if sh.texts[slot] == text {
		sh.texts[slot], sh.vals[slot] = "", packed{}
	}
	sh.mu.Unlock()
}

// slot is where text would be kept.
func (m *memo) slot(text string) (*memoShard, uint64) {
	h := maphash.String(m.seed, text)
	sh := &m.shards[h%memoShards]
	return sh, (h / memoShards) % uint64(len(sh.texts))
}

// tokens is each's output for text, memoised.
func tokens(text string) packed {
	return tokenMemo.get(text, func(text string) packed {
		k := packer{stops: true}
		each(text, k.add)
		return k.done()
	})
}

// strings returns p's terms as a slice of the caller's own, nil when there
// are none.
func (p packed) strings() []string {
	if p.len() == 0 {
		return nil
	}
	out := make([]string, p.len())
	for i := range out {
		out[i] = p.term(i)
	}
	return out
}

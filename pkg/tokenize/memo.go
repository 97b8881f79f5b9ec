package tokenize

import (
	"hash/maphash"
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

// token is one term of a text as each emits it.
type token struct {
	term string
	stop bool
}

type memo[T any] struct {
	seed   maphash.Seed
	shards [memoShards]memoShard[T]
}

type memoShard[T any] struct {
	mu    sync.Mutex
	texts [memoSlots / memoShards]string
	vals  [memoSlots / memoShards][]T
}

var (
	tokenMemo = memo[token]{seed: maphash.MakeSeed()}
	wordMemo  = memo[string]{seed: maphash.MakeSeed()}
)

// get returns what compute gives for text, from the memo when text was
// read lately. The slice returned is shared: callers only read it.
func (m *memo[T]) get(text string, compute func(string) []T) []T {
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
	// Clipped, so that even an append by a careless reader reallocates.
	v = v[:len(v):len(v)]
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

func (m *memo[T]) forget(text string) {
	if !memoised(text) {
		return
	}
	sh, slot := m.slot(text)
	sh.mu.Lock()
	if sh.texts[slot] == text {
		sh.texts[slot], sh.vals[slot] = "", nil
	}
	sh.mu.Unlock()
}

// slot is where text would be kept.
func (m *memo[T]) slot(text string) (*memoShard[T], uint64) {
	h := maphash.String(m.seed, text)
	sh := &m.shards[h%memoShards]
	return sh, (h / memoShards) % uint64(len(sh.texts))
}

// tokens is each's output for text, memoised.
func tokens(text string) []token {
	return tokenMemo.get(text, func(text string) []token {
		var out []token
		each(text, func(t string, stop bool) { out = append(out, token{t, stop}) })
		return out
	})
}

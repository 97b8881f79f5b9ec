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
// never grows with the store (a few megabytes at most). A word or two is
// cheaper to tokenize again than to hash and look up, and a very long
// text would hold too much memory for the little it is read again.
const (
	memoSlots  = 4096
	memoShards = 32
	memoMin    = 16
	memoMax    = 16 << 10
)

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
	if len(text) < memoMin || len(text) > memoMax {
		return compute(text)
	}
	h := maphash.String(m.seed, text)
	sh := &m.shards[h%memoShards]
	slot := (h / memoShards) % uint64(len(sh.texts))
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

// tokens is each's output for text, memoised.
func tokens(text string) []token {
	return tokenMemo.get(text, func(text string) []token {
		var out []token
		each(text, func(t string, stop bool) { out = append(out, token{t, stop}) })
		return out
	})
}

package tree

import (
	"hash/maphash"
	"math/bits"
)

// termCounts maps terms to positive counts: the rarity table, which holds
// every keyword of the memory, about as many terms as leaves, most of
// them short. A map[string]int32 spends on each term a string header and
// allocation, a slot and the map's spare room, several times the term
// itself; this packs the terms end to end in one arena and finds them
// through an open-addressing table of 4-byte indices.
//
// A count that drops to 0 reads as absent; its term stays in the arena
// until the table next grows, which packs the live terms again.
type termCounts struct {
	arena []byte   // the terms end to end
	ends  []uint32 // term i is arena[ends[i-1]:ends[i]]
	n     []int32  // term i's count, 0 when absent
	slots []uint32 // 1 + a term's index, 0 for an empty slot; linear probing
	live  int      // terms counted above 0
	seed  maphash.Seed
}

// maxTermsLoad is the share of slots in use (terms, live or not) at which
// the table grows: linear probing stays short below it.
const maxTermsLoad = 0.75

// reset empties c.
func (c *termCounts) reset() {
	*c = termCounts{seed: maphash.MakeSeed()}
}

// term returns term i's bytes.
func (c *termCounts) term(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.arena[start:c.ends[i]]
}

// find returns term's index and true, or the empty slot where it would go
// and false.
func (c *termCounts) find(term string) (int, bool) {
	if len(c.slots) == 0 {
		return 0, false
	}
	size := uint64(len(c.slots))
	s, _ := bits.Mul64(maphash.String(c.seed, term), size)
	for {
		v := c.slots[s]
		if v == 0 {
			return int(s), false
		}
		if string(c.term(int(v-1))) == term {
			return int(v - 1), true
		}
		if s++; s == size {
			s = 0
		}
	}
}

// get returns term's count, 0 when absent.
func (c *termCounts) get(term string) int32 {
	if i, ok := c.find(term); ok {
		return c.n[i]
	}
	return 0
}

// add adds d to term's count; a count that would drop to 0 or below is
// absent.
func (c *termCounts) add(term string, d int32) {
	i, ok := c.find(term)
	if ok {
		was := c.n[i]
		c.n[i] = max(was+d, 0)
		switch {
		case was == 0 && c.n[i] > 0:
			c.live++
		case was > 0 && c.n[i] == 0:
			c.live--
		}
		return
	}
	if d <= 0 {
		return
	}
	if float64(len(c.ends)+1) > maxTermsLoad*float64(len(c.slots)) {
		c.rehash(2 * (c.live + 1)) // half full: growing costs O(1) a term
		i, _ = c.find(term)
	}
	c.arena = append(c.arena, term...)
	c.ends = append(c.ends, uint32(len(c.arena)))
	c.n = append(c.n, d)
	c.slots[i] = uint32(len(c.ends))
	c.live++
}

// reserve makes room for more new terms without growing the table on the
// way, as Open knows how many the catalog lists. The table is then two
// thirds full: Open's terms are most of what it will ever hold.
func (c *termCounts) reserve(more int) {
	if float64(len(c.ends)+more) > maxTermsLoad*float64(len(c.slots)) {
		c.rehash((c.live + more) * 3 / 2)
	}
}

// rehash repacks the live terms into a table of size slots.
func (c *termCounts) rehash(size int) {
	size = max(size, 16)
	arena := make([]byte, 0, len(c.arena))
	ends := make([]uint32, 0, c.live)
	n := make([]int32, 0, c.live)
	for i, x := range c.n {
		if x > 0 {
			arena = append(arena, c.term(i)...)
			ends = append(ends, uint32(len(arena)))
			n = append(n, x)
		}
	}
	c.arena, c.ends, c.n = arena, ends, n
	c.slots = make([]uint32, size)
	for i := range c.ends {
		s, _ := bits.Mul64(maphash.Bytes(c.seed, c.term(i)), uint64(size))
		for c.slots[s] != 0 {
			if s++; s == uint64(size) {
				s = 0
			}
		}
		c.slots[s] = uint32(i + 1)
	}
}

// clip drops the spare capacity appending left, once Open is done adding.
func (c *termCounts) clip() {
	c.arena = clipped(c.arena)
	c.ends = clipped(c.ends)
	c.n = clipped(c.n)
}

// clipped returns s in a slice of its own length.
func clipped[S ~[]E, E any](s S) S {
	if cap(s) == len(s) {
		return s
	}
	return append(S(nil), s...)
}

// len returns the number of terms counted.
func (c *termCounts) len() int { return c.live }

// toMap returns the counts as a map (its keys share one allocation).
func (c *termCounts) toMap() map[string]int32 {
	m := make(map[string]int32, c.live)
	all := string(c.arena)
	start := uint32(0)
	for i, x := range c.n {
		if x > 0 {
			m[all[start:c.ends[i]]] = x
		}
		start = c.ends[i]
	}
	return m
}

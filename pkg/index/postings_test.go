package index

import (
	"math/rand/v2"
	"testing"
)

// TestPostingListCodec checks the compressed lists against plain ones:
// reading in order, looking a document up, and looking up around a walk,
// for lists of every length around the batch and block sizes, gaps from 0
// to millions and counts from 1 to billions.
func TestPostingListCodec(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for _, n := range []int{0, 1, 2, skipEvery - 1, skipEvery, skipEvery + 1, batch, batch + 1, 3*batch + 7, 5000} {
		var pl plist
		want := map[Doc]uint32{}
		var docs []Doc
		d := Doc(r.IntN(3)) // the first posting may be document 0
		for i := range n {
			if i > 0 {
				switch r.IntN(10) {
				case 0:
					d += Doc(1 + r.IntN(1_000_000))
				case 1:
					d += Doc(60 + r.IntN(100)) // a gap just over one byte
				default:
					d += Doc(1 + r.IntN(3))
				}
			}
			tf := uint32(1)
			switch r.IntN(8) {
			case 0:
				tf = uint32(2 + r.IntN(300))
			case 1:
				tf = uint32(1 + r.Int64N(1<<32-1))
			}
			pl.add(d, tf)
			want[d] = tf
			docs = append(docs, d)
		}
		if pl.n != uint32(n) {
			t.Fatalf("n=%d: list counts %d postings", n, pl.n)
		}

		var got []Doc
		var bd [batch]Doc
		var bt [batch]uint32
		for c := pl.cursor(); ; {
			k := c.fill(&bd, &bt)
			if k == 0 {
				break
			}
			for j := range k {
				if want[bd[j]] != bt[j] {
					t.Fatalf("n=%d: doc %d read with count %d, want %d", n, bd[j], bt[j], want[bd[j]])
				}
				got = append(got, bd[j])
			}
		}
		if len(got) != len(docs) {
			t.Fatalf("n=%d: read %d postings back", n, len(got))
		}
		for j := range got {
			if got[j] != docs[j] {
				t.Fatalf("n=%d: posting %d is doc %d, want %d", n, j, got[j], docs[j])
			}
		}

		// Every document in the list, its neighbours, and random ones.
		probe := func(x Doc, tf func(Doc) uint32) {
			if g := tf(x); g != want[x] {
				t.Fatalf("n=%d: count of doc %d = %d, want %d", n, x, g, want[x])
			}
		}
		for _, x := range docs {
			probe(x, pl.tf)
			probe(x+1, pl.tf)
			if x > 0 {
				probe(x-1, pl.tf)
			}
		}
		for range 200 {
			probe(Doc(r.Uint32()), pl.tf)
		}
	}
}

package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

func TestLinkRanksNeighbours(t *testing.T) {
	ix := New()
	question := ix.Add("Did you go to the concert in Lisbon?", 0)
	answer := ix.Add("Yes, it was amazing, we danced all night", 0)
	other := ix.Add("The staging database runs PostgreSQL", 0)
	ix.Link(question, answer, 0.5, 0.5)

	hits, _ := ix.Search(Query{Terms: tokenize.Terms("concert"), Visible: all, Limit: 10})
	if len(hits) != 2 || hits[0].Doc != question || hits[1].Doc != answer {
		t.Fatalf("hits = %+v, want the question, then the answer linked to it", hits)
	}
	if hits[0].Matched != 1 || hits[0].Related != 0 || hits[1].Matched != 0 || hits[1].Related != 1 {
		t.Errorf("Matched/Related = %b/%b and %b/%b, want own words in Matched, lent ones in Related",
			hits[0].Matched, hits[0].Related, hits[1].Matched, hits[1].Related)
	}
	if ix.Contains(answer, "concert") || !ix.Contains(question, "concert") {
		t.Error("Contains must see the document's own text only")
	}
	// The other way round, and nothing reaches the unlinked memory.
	hits, _ = ix.Search(Query{Terms: tokenize.Terms("danced"), Visible: all, Limit: 10})
	if len(hits) != 2 || hits[0].Doc != answer {
		t.Fatalf("hits = %+v, want the answer first", hits)
	}
	for _, h := range hits {
		if h.Doc == other {
			t.Fatalf("unlinked memory matched: %+v", hits)
		}
	}
}

// TestHiddenNeighbourLendsNothing: a forgotten memory's words must stop
// ranking the memories linked to it, and come back when it is shown again.
func TestHiddenNeighbourLendsNothing(t *testing.T) {
	ix := New()
	secret := ix.Add("the launch code is swordfish", 0)
	next := ix.Add("noted, I will keep it safe", 0)
	ix.Add("swordfish recipe with lemon", 0)
	ix.Link(secret, next, 0.5, 0.5)
	q := Query{Terms: tokenize.Terms("swordfish"), Visible: all, Limit: 10}
	before, _ := ix.Search(q)
	if len(before) != 3 {
		t.Fatalf("positive control: %+v, want 3 hits", before)
	}
	ix.SetLive(secret, false)
	hits, _ := ix.Search(q)
	if len(hits) != 1 || hits[0].Doc == secret || hits[0].Doc == next {
		t.Fatalf("hits = %+v, want only the recipe", hits)
	}
	ix.SetLive(secret, true)
	after, _ := ix.Search(q)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("hide and show changed the ranking: %+v, then %+v", before, after)
	}
}

// TestLinkEqualsBruteForce checks linked scoring against a direct BM25 over
// documents extended by their live neighbours' words at the link weights,
// with some documents hidden and the links made in random order.
func TestLinkEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vocab, word := skewedWords(rng, 200)
	ix := New()
	texts, groups := addTexts(ix, 1500, func() int { return 2 + rng.IntN(20) }, word,
		func(i int) Group { return Group(i / 100 % 3) }) // neighbours share a group
	type pair struct {
		a, b   int
		wa, wb float64 // a counts b's words at wa, b a's at wb
	}
	var pairs []pair
	for i := range texts {
		ws := []float64{0.5, 0.25}
		if i%7 == 0 {
			// More links than a document keeps beside it (Index.more).
			ws = append(ws, 0.125, 0.125, 0.0625)
		}
		for k, w := range ws {
			if j := i - 1 - k; j >= 0 && groups[j] == groups[i] {
				// Most pairs lend each way at different weights, as
				// NeighbourLink's do.
				wa, wb := w, w
				switch rng.IntN(3) {
				case 0:
					wa, wb = w*askAnswer, w*askBorrow
				case 1:
					wb = w * 0.75
				}
				pairs = append(pairs, pair{i, j, wa, wb})
			}
		}
	}
	rng.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
	hidden := map[int]bool{}
	for i, p := range pairs {
		if i == len(pairs)/2 { // hide some before the rest are linked
			for j := 0; j < 40; j++ {
				d := rng.IntN(len(texts))
				hidden[d] = true
				ix.SetLive(Doc(d), false)
			}
		}
		ix.Link(Doc(p.a), Doc(p.b), p.wa, p.wb)
	}

	tf := make([]map[string]float64, len(texts))
	own := make([]map[string]bool, len(texts))
	length := make([]float64, len(texts))
	for i, tx := range texts {
		tf[i], own[i] = map[string]float64{}, map[string]bool{}
		for _, tok := range tokenize.Tokens(tx) {
			tf[i][tok]++
			own[i][tok] = true
			length[i]++
		}
	}
	ownLen := append([]float64(nil), length...)
	df := map[string]float64{} // hidden documents' postings stay, and count
	var n float64
	for i := range texts {
		if !hidden[i] {
			n++
		}
		for tok := range own[i] {
			df[tok]++
		}
	}
	// A neighbour lends its whole length, but only its words that are not
	// common (Index.lends).
	// A pair's lengths count at the mean of its weights (Link).
	lend := func(to, from int, w, lengthWeight float64) {
		if hidden[from] {
			return
		}
		for _, tok := range tokenize.Tokens(texts[from]) {
			if df[tok] <= lendFloor || df[tok]*lendShare <= n {
				tf[to][tok] += w
			}
		}
		length[to] += lengthWeight * ownLen[from]
	}
	for _, p := range pairs {
		lend(p.a, p.b, p.wa, (p.wa+p.wb)/2)
		lend(p.b, p.a, p.wb, (p.wa+p.wb)/2)
	}
	var total float64
	for i := range texts {
		if !hidden[i] {
			total += length[i]
		}
	}
	avg := total / n

	// Queries pair common words with a rare one half of the time, so the
	// search's pruning (MaxScore, see Search) has something to prune; every
	// limit must still give exactly the brute force's best.
	pruned := 0
	for qn := 0; qn < 200; qn++ {
		q := word() + " " + word() + " " + word()
		if qn%2 == 0 {
			q += " " + vocab[len(vocab)-1-rng.IntN(60)]
		}
		terms := tokenize.Terms(q)
		vis := func(g Group) bool { return g == 0 || g == Group(qn%3) }
		var all []Hit
		for i := range texts {
			if hidden[i] || !vis(groups[i]) {
				continue
			}
			var s float64
			var matched, related uint64
			for b, term := range terms {
				f := tf[i][term]
				if f == 0 {
					continue
				}
				if own[i][term] {
					matched |= 1 << b
				} else {
					related |= 1 << b
				}
				idf := math.Log(1 + (n-df[term]+0.5)/(df[term]+0.5))
				s += idf * f * (K1 + 1) / (f + K1*(1-B+B*length[i]/avg))
			}
			if matched|related != 0 {
				all = append(all, Hit{Doc: Doc(i), Score: s, Matched: matched, Related: related})
			}
		}
		sort.Slice(all, func(a, b int) bool { return better(all[a], all[b]) })
		for _, limit := range []int{1, 3, 10, 50} {
			want := all[:min(len(all), limit)]
			got, st := ix.Search(Query{Terms: terms, Visible: vis, Limit: limit})
			if st.DocsScored < len(all) {
				pruned++
			}
			if len(got) != len(want) {
				t.Fatalf("query %v limit %d: %d hits, want %d", terms, limit, len(got), len(want))
			}
			for i := range got {
				if got[i].Doc != want[i].Doc || math.Abs(got[i].Score-want[i].Score) > 1e-9 ||
					got[i].Matched != want[i].Matched || got[i].Related != want[i].Related {
					t.Fatalf("query %v limit %d rank %d: got %+v, want %+v", terms, limit, i, got[i], want[i])
				}
			}
		}
	}
	// The control: the pruned path ran, and the equality above covers it.
	if pruned < 100 {
		t.Errorf("only %d of 800 searches pruned: the test no longer exercises Search's pruning", pruned)
	}
	t.Logf("%d of 800 searches pruned", pruned)
}

// benchTurns are short chat-like memories with a Zipf-ish vocabulary.
func benchTurns(n int) []string {
	rng := rand.New(rand.NewPCG(9, 10))
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		for j := 0; j < 10+rng.IntN(30); j++ {
			fmt.Fprintf(&sb, "word%d ", int(math.Pow(rng.Float64(), 3)*20000))
		}
		out[i] = sb.String()
	}
	return out
}

// BenchmarkAdd is what a save pays to index its text, alone and when it is
// also linked to the two memories before it, as a store linking ±2 would.
func BenchmarkAdd(b *testing.B) {
	turns := benchTurns(10000)
	for _, link := range []bool{false, true} {
		b.Run(fmt.Sprintf("linked=%v", link), func(b *testing.B) {
			var ix *Index
			for i := 0; b.Loop(); i++ {
				if i%len(turns) == 0 {
					ix = New()
				}
				d := ix.Add(turns[i%len(turns)], 0)
				if link {
					for k, w := range []float64{0.5, 0.25} {
						if j := int(d) - 1 - k; j >= 0 {
							ix.Link(d, Doc(j), w, w)
						}
					}
				}
			}
		})
	}
}

func BenchmarkSearchLinked10k(b *testing.B) {
	turns := benchTurns(10000)
	for _, link := range []bool{false, true} {
		b.Run(fmt.Sprintf("linked=%v", link), func(b *testing.B) {
			ix := New()
			for i, tx := range turns {
				d := ix.Add(tx, 0)
				if link {
					for k, w := range []float64{0.5, 0.25} {
						if j := i - 1 - k; j >= 0 {
							ix.Link(d, Doc(j), w, w)
						}
					}
				}
			}
			for i := 0; b.Loop(); i++ {
				ix.Search(Query{Terms: []string{fmt.Sprintf("word%d", i%50), fmt.Sprintf("word%d", 500+i%900), fmt.Sprintf("word%d", 3000+i%5000)}, Visible: all, Limit: 10})
			}
		})
	}
}

func TestAsks(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"What did you paint?", true},
		{"Really?! That's great", true},
		{"Did it work? I hope so.", true},
		{`She said "why?" and left`, true},
		{"¿Dónde vives", true},
		// Positive controls above; no question below.
		{"We painted the fence.", false},
		{"See https://example.com/search?q=ihmt&lang=en for it", false},
		{"the endpoint is /v1/items?id=3", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Asks(tt.text); got != tt.want {
			t.Errorf("Asks(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestNeighbourLink(t *testing.T) {
	tests := []struct {
		distance                 int
		earlierAsks, laterAsks   bool
		wantToLater, wantToEarly float64
	}{
		{1, false, false, 0.5, 0.5},
		{2, false, false, 0.25, 0.25},
		{1, true, false, 0.75, 0.25},   // the answer counts the question's words more, the question the answer's less
		{1, false, true, 0.25, 0.5},    // the later one asks: it counts the earlier's less
		{1, true, true, 0.375, 0.25},   // both
		{2, true, false, 0.375, 0.125}, // and further away
		{3, true, true, 0, 0},
	}
	for _, tt := range tests {
		later, earlier := NeighbourLink(tt.distance, tt.earlierAsks, tt.laterAsks)
		if later != tt.wantToLater || earlier != tt.wantToEarly {
			t.Errorf("NeighbourLink(%d, %v, %v) = %v, %v, want %v, %v", tt.distance, tt.earlierAsks, tt.laterAsks, later, earlier, tt.wantToLater, tt.wantToEarly)
		}
		if later > MaxLinkWeight || earlier > MaxLinkWeight {
			t.Errorf("NeighbourLink(%d, ...) exceeds MaxLinkWeight", tt.distance)
		}
	}
}

// TestLinkLendsEachWayAtItsWeight: the answer to a question counts the
// question's words more than the question counts the answer's.
func TestLinkLendsEachWayAtItsWeight(t *testing.T) {
	ix := New()
	texts := []string{"what did you paint last week?", "a sunset over the lake"}
	question, answer := ix.Add(texts[0], 0), ix.Add(texts[1], 0)
	for _, filler := range []string{"the staging database", "we moved to Valencia", "my cat likes tuna", "tea or coffee"} {
		ix.Add(filler, 0)
	}
	toAnswer, toQuestion := NeighbourLink(1, Asks(texts[0]), Asks(texts[1]))
	if toAnswer <= toQuestion {
		t.Fatalf("NeighbourLink gives the answer %v and the question %v: want the answer to count the question's words more", toAnswer, toQuestion)
	}
	ix.Link(answer, question, toAnswer, toQuestion)
	score := func(query string, d Doc) float64 {
		hits, _ := ix.Search(Query{Terms: tokenize.Terms(query), Visible: all, Limit: 10})
		for _, h := range hits {
			if h.Doc == d {
				return h.Score
			}
		}
		t.Fatalf("%q: doc %d not found in %+v", query, d, hits)
		return 0
	}
	// One word, in one document of six each, lent to the other: "paint"
	// lent to the answer scores higher there than "sunset" lent to the
	// question (the two read about as long: Link).
	lentToAnswer, lentToQuestion := score("paint", answer), score("sunset", question)
	if !(lentToAnswer > lentToQuestion) {
		t.Errorf("paint in the answer scores %v, sunset in the question %v: want the first higher", lentToAnswer, lentToQuestion)
	}
	// Positive control: each document's own word outscores the lent one.
	if own := score("paint", question); !(own > lentToAnswer) {
		t.Errorf("paint in its own text scores %v, lent %v", own, lentToAnswer)
	}
	// A one-way weight of zero makes no link at all.
	ix2 := New()
	a, b := ix2.Add("alpha", 0), ix2.Add("beta", 0)
	ix2.Link(a, b, 0.5, 0)
	if hits, _ := ix2.Search(Query{Terms: []string{"beta"}, Visible: all, Limit: 10}); len(hits) != 1 {
		t.Errorf("a link with a zero weight lent words: %+v", hits)
	}
}

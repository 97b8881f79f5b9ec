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

func all(Group) bool { return true }

func TestSearchRanksAndFilters(t *testing.T) {
	ix := New()
	madrid := ix.Add("I live in Madrid", 0)
	valencia := ix.Add("The office is in Valencia, I live nearby", 1)
	other := ix.Add("I live in Lisbon", 2)
	ix.Add("Unrelated note about tabs", 0)

	hits, st := ix.Search(Query{Terms: []string{"live", "madrid"}, Visible: all, Limit: 10})
	if len(hits) != 3 || hits[0].Doc != madrid {
		t.Fatalf("hits = %+v, want madrid first of 3", hits)
	}
	if hits[0].Matched != 0b11 {
		t.Errorf("Matched = %b, want both terms", hits[0].Matched)
	}
	if st.PostingsRead != 2 || st.DocsScored != 3 || st.Visible != 4 {
		t.Errorf("stats = %+v", st)
	}

	// Group 2 is invisible: its document is not returned, while the visible
	// ones still are (positive control in the same query).
	vis := func(g Group) bool { return g != 2 }
	hits, st = ix.Search(Query{Terms: []string{"live"}, Visible: vis, Limit: 10})
	for _, h := range hits {
		if h.Doc == other {
			t.Fatalf("invisible document returned: %+v", hits)
		}
	}
	if len(hits) != 2 || st.Visible != 3 {
		t.Fatalf("hits = %+v, stats %+v; want the 2 visible matches of 3 visible docs", hits, st)
	}
	if !ix.Contains(valencia, "valencia") || ix.Contains(valencia, "madrid") {
		t.Error("Contains is wrong")
	}
}

func TestSearchNoMatch(t *testing.T) {
	ix := New()
	ix.Add("alpha beta", 0)
	if hits, _ := ix.Search(Query{Terms: []string{"gamma"}, Visible: all, Limit: 5}); len(hits) != 0 {
		t.Fatalf("hits = %v, want none", hits)
	}
	if hits, _ := ix.Search(Query{Terms: []string{"beta"}, Visible: all, Limit: 5}); len(hits) != 1 {
		t.Fatalf("positive control: hits = %v, want 1", hits)
	}
}

// TestSearchEqualsBruteForce checks the index against a direct, obviously
// correct BM25 over every visible document.
func TestSearchEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	_, word := skewedWords(rng, 300)
	ix := New()
	texts, groups := addTexts(ix, 3000, func() int { return 3 + rng.IntN(40) }, word,
		func(int) Group { return Group(rng.IntN(4)) })
	for q := 0; q < 200; q++ {
		terms := tokenize.Terms(word() + " " + word() + " " + word())
		vis := func(g Group) bool { return g == 0 || g == Group(q%4) }
		got, _ := ix.Search(Query{Terms: terms, Visible: vis, Limit: 10})
		want := bruteForce(texts, groups, terms, vis, 10)
		if len(got) != len(want) {
			t.Fatalf("query %v: %d hits, want %d", terms, len(got), len(want))
		}
		for i := range got {
			if got[i].Doc != want[i].Doc || math.Abs(got[i].Score-want[i].Score) > 1e-9 {
				t.Fatalf("query %v rank %d: got %+v, want %+v", terms, i, got[i], want[i])
			}
		}
	}
}

// skewedWords returns a vocabulary of size words, "w0" on, and a draw from
// it in which the first words are far more frequent than the last.
func skewedWords(rng *rand.Rand, size int) (vocab []string, word func() string) {
	vocab = make([]string, size)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	return vocab, func() string { return vocab[int(math.Pow(rng.Float64(), 2)*float64(len(vocab)))] }
}

// addTexts adds n texts to ix, the i-th made of length() words drawn by
// word, in group(i), and returns them with their groups.
func addTexts(ix *Index, n int, length func() int, word func() string, group func(i int) Group) (texts []string, groups []Group) {
	for i := range n {
		ws := make([]string, length())
		for j := range ws {
			ws[j] = word()
		}
		texts = append(texts, strings.Join(ws, " "))
		groups = append(groups, group(i))
		ix.Add(texts[i], groups[i])
	}
	return texts, groups
}

func bruteForce(texts []string, groups []Group, terms []string, vis func(Group) bool, k int) []Hit {
	n := float64(len(texts))
	var total float64
	toks := make([][]string, len(texts))
	df := map[string]float64{}
	for i, tx := range texts {
		toks[i] = tokenize.Tokens(tx)
		total += float64(len(toks[i]))
		seen := map[string]bool{}
		for _, t := range toks[i] {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	avg := total / n
	var hits []Hit
	for i := range texts {
		if !vis(groups[i]) {
			continue
		}
		var s float64
		matched := false
		for _, term := range terms {
			tf := 0.0
			for _, t := range toks[i] {
				if t == term {
					tf++
				}
			}
			if tf == 0 {
				continue
			}
			matched = true
			idf := math.Log(1 + (n-df[term]+0.5)/(df[term]+0.5))
			s += idf * tf * (K1 + 1) / (tf + K1*(1-B+B*float64(len(toks[i]))/avg))
		}
		if matched {
			hits = append(hits, Hit{Doc: Doc(i), Score: s})
		}
	}
	sort.Slice(hits, func(a, b int) bool { return better(hits[a], hits[b]) })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

func BenchmarkSearch10k(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	ix := New()
	for i := 0; i < 10000; i++ {
		var sb strings.Builder
		for j := 0; j < 60; j++ {
			fmt.Fprintf(&sb, "w%d ", int(math.Pow(rng.Float64(), 2)*5000))
		}
		ix.Add(sb.String(), Group(i%3))
	}
	vis := func(g Group) bool { return g != 2 }
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Search(Query{Terms: []string{fmt.Sprintf("w%d", i%50), fmt.Sprintf("w%d", 100+i%900)}, Visible: vis, Limit: 10})
	}
}

func TestWeightsAndGroupFreq(t *testing.T) {
	ix := New()
	a := ix.Add("the session cache runs on redis", 1)
	b := ix.Add("valkey holds the session cache now", 1)
	ix.Add("redis in another group", 2)
	all := func(Group) bool { return true }
	redis, valkey, session := tokenize.Terms("redis")[0], tokenize.Terms("valkey")[0], tokenize.Terms("session")[0]
	plain, _ := ix.Search(Query{Terms: []string{redis, valkey}, Visible: all, Limit: 3})
	weighted, _ := ix.Search(Query{Terms: []string{redis, valkey}, Weights: []float64{1, 0.1}, Visible: all, Limit: 3})
	score := func(hs []Hit, d Doc) float64 {
		for _, h := range hs {
			if h.Doc == d {
				return h.Score
			}
		}
		return -1
	}
	if !(score(weighted, b) < score(plain, b)) || score(weighted, a) != score(plain, a) {
		t.Errorf("a weight below 1 should lower only its term's share: plain %v, weighted %v", plain, weighted)
	}
	sc := ix.WeightedScorer([]string{redis, valkey}, []float64{1, 0.1}, all)
	if got, _, _ := sc.Score(b); got != score(weighted, b) {
		t.Errorf("WeightedScorer scores %v, Search %v: they must agree", got, score(weighted, b))
	}
	if n := ix.GroupFreq(redis, 1, 10); n != 1 {
		t.Errorf("GroupFreq(redis, 1) = %d, want 1 (the other group's memory does not count)", n)
	}
	if n := ix.GroupFreq(session, 1, 10); n != 2 {
		t.Errorf("GroupFreq(session, 1) = %d, want 2", n)
	}
	if n := ix.GroupFreq(session, 1, 0); n != 1 {
		t.Errorf("GroupFreq past its limit = %d, want limit+1", n)
	}
}

package recall

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		name string
		src  *leaf.Source
		want Kind
	}{
		{"a save", nil, KindStated},
		{"a long save's part", &leaf.Source{Type: "generic", Part: 1, Parts: 2}, KindStated},
		{"a long save of code", &leaf.Source{Type: "code", Part: 1, Parts: 2}, KindCode},
		{"a README block", &leaf.Source{Name: "/r/README.md", Type: "generic"}, KindDocument},
		{"a journal entry", &leaf.Source{Name: "/n/diary.txt", Type: "temporal"}, KindDocument},
		{"a Go block", &leaf.Source{Name: "/r/a.go", Type: "code"}, KindCode},
	}
	for _, tt := range tests {
		if got := KindOf(&leaf.Header{Source: tt.src}); got != tt.want {
			t.Errorf("%s: kind %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestAboutCode(t *testing.T) {
	tests := []struct {
		query string
		want  bool
	}{
		{"reserveStock soft hold", true},
		{"what does linkNeighbours do", true},
		{"which function opens the store", true},
		{"the Open method of Store", true},
		{"Where do I live?", false},
		{"who reviews the storage layer", false},
		{"homebrew or apt at home", false},
		{"database migrations", false},
	}
	for _, tt := range tests {
		if got := aboutCode(tokenize.Terms(tt.query)); got != tt.want {
			t.Errorf("aboutCode(%q) (terms %q) = %v, want %v", tt.query, tokenize.Terms(tt.query), got, tt.want)
		}
	}
}

// codeAboutLiving is the blocks of a Go file whose every function says
// "live" often, as a store's own sources do (isLive, SetLive): a plain
// BM25 ranks them above a memory that says it once.
func codeAboutLiving(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("// live%d reports whether the document is live: live documents answer.\nfunc live%d(d doc) bool {\n\treturn d.live && d.Live() && d.liveSince > %d\n}", i, i, i))
	}
	return out
}

// addCode adds blocks as the parts of a code file.
func addCode(t *testing.T, m *memReader, name string, blocks []string) {
	for i, b := range blocks {
		m.add(t, leaf.Header{Source: &leaf.Source{Name: name, Type: "code", Part: i + 1, Parts: len(blocks)}}, b)
	}
}

// TestCodeYieldsToProse: a question about the person is answered by the
// memory, not by code blocks that share its word. The control: plain
// BM25 over the same memories ranks code first, deep enough that the
// memory is not in the first pool at all.
func TestCodeYieldsToProse(t *testing.T) {
	m := newMemReader()
	home := m.add(t, leaf.Header{}, "I live in Porto, in Bonfim.")
	addCode(t, m, "/src/living/l.go", codeAboutLiving(360))
	s := searcherOver(m)
	terms := expand(tokenize.Terms("where do I live"), nil, true)
	vis := func(index.Group) bool { return true }
	plain, _ := s.scoreBM25(false, terms, vis, Moment{}, verdict.Pool)
	if slices.ContainsFunc(plain, func(h index.Hit) bool { return h.Doc == home }) {
		t.Fatalf("control: plain BM25's first %d already hold the memory; the test needs more code", verdict.Pool)
	}
	weighed, _ := s.score(false, terms, vis, Moment{}, verdict.Pool)
	if len(weighed) == 0 || weighed[0].Doc != home {
		t.Fatalf("with the priors the first hits are %v, want the memory %d", weighed[:min(3, len(weighed))], home)
	}
	code, _ := s.score(false, expand(tokenize.Terms("what does the isLive function return"), nil, true), vis, Moment{}, verdict.Pool)
	if len(code) == 0 || KindOf(&m.docs[code[0].Doc].Header) != KindCode {
		t.Errorf("a code question → %v, want code first", code)
	}
}

// TestWeighKindsIsExhaustive: with priors, the k best are those of an
// exhaustive scoring with the priors applied to every memory.
func TestWeighKindsIsExhaustive(t *testing.T) {
	m := newMemReader()
	for i := range 30 {
		m.add(t, leaf.Header{}, fmt.Sprintf("Memory %d: the document is live on host h%d.", i, i))
	}
	addCode(t, m, "/src/l.go", codeAboutLiving(200))
	for i := range 40 {
		m.add(t, leaf.Header{Source: &leaf.Source{Name: "/doc/live.md", Type: "generic", Part: i + 1, Parts: 40}}, "A live document is one that answers searches, live or not.")
	}
	s := searcherOver(m)
	vis := func(index.Group) bool { return true }
	for _, q := range []string{"live document", "live host", "isLive function", "document"} {
		terms := tokenize.Terms(q)
		every, _ := s.scoreBM25(false, expand(terms, nil, true), vis, Moment{}, 1<<20)
		want, weighed := s.applyPriors(every, aboutCode(terms))
		if !weighed && q != "isLive function" {
			t.Fatalf("%q: control: no prior changed a score", q)
		}
		for _, k := range []int{1, 5, 50} {
			got, _ := s.score(false, expand(terms, nil, true), vis, Moment{}, k)
			if !sameRanking(got, want[:min(k, len(want))]) {
				t.Errorf("%q k=%d:\n got  %v\n want %v", q, k, got, want[:min(k, len(want))])
			}
		}
	}
}

// sameRanking compares two top-k lists: the same scores in order, and the
// same documents wherever a score is not tied at the cut.
func sameRanking(a, b []index.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	last := b[len(b)-1].Score
	set := func(hs []index.Hit) []index.Doc {
		var ds []index.Doc
		for _, h := range hs {
			if h.Score != last {
				ds = append(ds, h.Doc)
			}
		}
		slices.Sort(ds)
		return ds
	}
	for i := range a {
		if d := a[i].Score - b[i].Score; d > 1e-9 || d < -1e-9 {
			return false
		}
	}
	return slices.Equal(set(a), set(b))
}

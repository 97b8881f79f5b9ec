package lookup

import (
	"errors"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

func TestSearch(t *testing.T) {
	texts := []string{
		"Alice reviews the billing module pull requests.",
		"Bob reviews the billing module pull requests.",
		"The staging cluster runs in eu-west-1.",
		"import billing, module, alice, bob",
	}
	ix := index.New()
	for i, s := range texts {
		ix.Add(s, index.Group(i%2))
	}
	words := func(d index.Doc) []string { return tokenize.Terms(texts[d]) }
	for _, c := range []struct {
		name string
		q    Query
		want verdict.Verdict
		top  string // in the first shown hit
	}{
		{"found", Query{Text: "staging cluster region"}, verdict.Found, "eu-west-1"},
		{"exact tie between different things", Query{Text: "who reviews billing module pull requests"}, verdict.Ambiguous, ""},
		{"the clue decides", Query{Text: "who reviews billing module pull requests", Clue: "Bob"}, verdict.Found, "Bob"},
		{"nothing shares a word", Query{Text: "kubernetes helm"}, verdict.NotFound, ""},
		{"invisible group", Query{Text: "staging cluster region", Visible: func(g index.Group) bool { return g == 1 }}, verdict.NotFound, ""},
		{"without the weight", Query{Text: "billing module alice import"}, verdict.Found, "import"}, // the control
		{"a weight demotes", Query{Text: "billing module alice import", Weigh: func(d index.Doc, s float64) float64 {
			if strings.HasPrefix(texts[d], "import") {
				return s * 0.01
			}
			return s
		}}, verdict.Found, "Alice reviews"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.q.Words = words
			a, err := Search(ix, c.q)
			if err != nil {
				t.Fatal(err)
			}
			if a.Verdict != c.want {
				t.Fatalf("verdict %v, want %v (shown %v)", a.Verdict, c.want, a.Shown)
			}
			if c.top != "" && !strings.Contains(texts[a.Shown[0].Doc], c.top) {
				t.Errorf("first %q, want one with %q", texts[a.Shown[0].Doc], c.top)
			}
			if c.want == verdict.Ambiguous && len(a.Shown) != 2 {
				t.Errorf("a tie shows %d, want the two tied", len(a.Shown))
			}
		})
	}
	for _, bad := range []Query{{Text: ""}, {Text: "the a of"[:0]}, {Text: "x\xff"}, {Text: strings.Repeat("word ", 1000)}, {Text: "ok", Clue: "\xff"}} {
		if _, err := Search(ix, bad); !errors.Is(err, leaf.ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", bad.Text, err)
		}
	}
}

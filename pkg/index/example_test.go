package index_test

import (
	"fmt"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// A search sees only the groups the caller may see: here the global group
// and one project's, not another project's memory about the same thing.
func Example() {
	const (
		global   index.Group = 0
		projectA index.Group = 1
		projectB index.Group = 2
	)
	ix := index.New()
	texts := []string{
		"The staging database runs PostgreSQL 17 on db2.internal.",
		"I prefer tabs over spaces.",
		"Project B's staging database is MySQL.",
		"We moved the staging cache to Redis.",
	}
	groups := []index.Group{projectA, global, projectB, projectA}
	for i, t := range texts {
		ix.Add(t, groups[i])
	}
	visible := func(g index.Group) bool { return g == global || g == projectA }
	hits, _ := ix.Search(index.Query{Terms: tokenize.Terms("staging database"), Visible: visible, Limit: 5})
	for _, h := range hits {
		fmt.Printf("%s (terms matched %b)\n", texts[h.Doc], h.Matched)
	}
	// Output:
	// The staging database runs PostgreSQL 17 on db2.internal. (terms matched 11)
	// We moved the staging cache to Redis. (terms matched 1)
}

// A link lends a document its neighbour's words at a lower weight, so an
// answer is found by the question the memory before it asked; a hidden
// neighbour lends nothing.
func ExampleIndex_Link() {
	ix := index.New()
	question := ix.Add("Which city did Ana move to last spring?", 0)
	answer := ix.Add("Valencia, in May.", 0)
	ix.Add("Ana likes the city of Bilbao.", 0)
	toAnswer, toQuestion := index.NeighbourLink(1, index.Asks("Which city did Ana move to last spring?"), index.Asks("Valencia, in May."))
	ix.Link(answer, question, toAnswer, toQuestion)

	q := index.Query{Terms: tokenize.Terms("where did Ana move"), Visible: func(index.Group) bool { return true }, Limit: 3}
	hits, _ := ix.Search(q)
	for _, h := range hits {
		fmt.Printf("doc %d: own %b, lent %b\n", h.Doc, h.Matched, h.Related)
	}
	ix.SetLive(question, false)
	hits, _ = ix.Search(q)
	fmt.Println("with the question hidden:", len(hits), "hit")
	// Output:
	// doc 0: own 11, lent 0
	// doc 1: own 0, lent 11
	// doc 2: own 1, lent 0
	// with the question hidden: 1 hit
}

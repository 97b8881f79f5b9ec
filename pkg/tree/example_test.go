package tree_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// notes are the leaves of the examples: two groups, a few memories each.
var notes = []tree.Item{
	{ID: "0000000000000001", Group: "global|software.go", Text: "The staging database runs PostgreSQL 17."},
	{ID: "0000000000000002", Group: "global|software.go", Text: "Migrations run with goose before every deploy."},
	{ID: "0000000000000003", Group: "global|software.go", Text: "The staging database is backed up nightly."},
	{ID: "0000000000000004", Group: "global|software.go", Text: "Deploys go out on Tuesdays after the database backup."},
	{ID: "0000000000000005", Group: "global|personal", Text: "I prefer tabs over spaces."},
}

// openExample opens a tree of branches of two items in a fresh directory,
// stamping branches with a fixed time so that its files are the same on
// every run.
func openExample() (*tree.Tree, func()) {
	dir, err := os.MkdirTemp("", "tree-example")
	if err != nil {
		panic(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 11, 9, 30, 0, 0, time.UTC) }
	t, err := tree.Open(dir, tree.Options{BranchFactor: 2, Now: now})
	if err != nil {
		panic(err)
	}
	return t, func() { os.RemoveAll(dir) }
}

// Leaves are added as they are saved and consolidated into branches per
// group, layer over layer; the outline is what `ihmt tree` prints, and a
// leaf's path is the branches from the root down to it.
func Example() {
	t, done := openExample()
	defer done()
	for _, it := range notes {
		if err := t.Add(it); err != nil {
			panic(err)
		}
	}
	written, err := t.Consolidate(false)
	if err != nil {
		panic(err)
	}
	fmt.Println("branches written:", written)
	for _, l := range t.Outline(0) {
		fmt.Println(l)
	}
	fmt.Println("path of leaf 3:", len(t.Path("0000000000000003")), "branches")
	// Output:
	// branches written: 3
	// I prefer tabs over spaces. (global|personal)
	// deploy, database, staging, Migrations [layer 2, 2 items] (global|software.go)
	//   PostgreSQL, every, goose, Migrations [layer 1, 2 items]
	//     The staging database runs PostgreSQL 17.
	//     Migrations run with goose before every deploy.
	//   database, Tuesdays, backed, backup [layer 1, 2 items]
	//     The staging database is backed up nightly.
	//     Deploys go out on Tuesdays after the database backup.
	// path of leaf 3: 2 branches
}

// countScorer is a Scorer for the example: a leaf scores one point per
// occurrence of a query term. A real caller passes its BM25 index.
type countScorer struct {
	terms []string
	texts map[string]string
}

func (s countScorer) Terms() []string { return s.terms }

func (s countScorer) count(id string, i int) int {
	return strings.Count(strings.ToLower(s.texts[id]), s.terms[i])
}

func (s countScorer) UpperBound(i int) float64 {
	top := 0
	for id := range s.texts {
		top = max(top, s.count(id, i))
	}
	return float64(top)
}

func (s countScorer) Postings(i int, fn func(string)) {
	for id := range s.texts {
		if s.count(id, i) > 0 {
			fn(id)
		}
	}
}

func (s countScorer) Score(id string) (float64, uint64, bool) {
	var score float64
	var matched uint64
	for i := range s.terms {
		if n := s.count(id, i); n > 0 {
			score += float64(n)
			matched |= 1 << i
		}
	}
	return score, matched, true
}

// Search descends the branches whose summaries match the query, then
// scores every leaf that could still beat the k-th result, so its top K is
// the caller's exhaustive ranking.
func ExampleTree_Search() {
	t, done := openExample()
	defer done()
	texts := map[string]string{}
	for _, it := range notes {
		texts[it.ID] = it.Text
		if err := t.Add(it); err != nil {
			panic(err)
		}
	}
	if _, err := t.Consolidate(true); err != nil {
		panic(err)
	}
	res := t.Search(tree.Query{Scorer: countScorer{terms: []string{"database", "staging"}, texts: texts}, K: 2})
	for _, h := range res.Hits {
		fmt.Println(texts[h.ID], h.Score, len(h.Path), "branches down")
	}
	fmt.Println("exhaustive:", res.Exhaustive)
	// Output:
	// The staging database runs PostgreSQL 17. 2 2 branches down
	// The staging database is backed up nightly. 2 2 branches down
	// exhaustive: true
}

// Package words holds the small closed word lists the engine reads
// sentences and questions by — articles, titles, auxiliaries, month names
// — as data (words.json), in English and Spanish. A list is looked up by
// name; the names are fixed by the code that reads them, the words are not.
// It imports nothing, so any package of the engine may read it.
package words

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
)

//go:embed words.json
var data []byte

type file struct {
	Lists map[string]struct {
		Why   string   `json:"why"`
		Words []string `json:"words"`
	} `json:"lists"`
}

var lists = func() map[string][]string {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		panic(fmt.Sprintf("words.json: %v", err)) // embedded and tested: a build error, not a user's
	}
	out := make(map[string][]string, len(f.Lists))
	for name, l := range f.Lists {
		out[name] = l.Words
	}
	return out
}()

// List returns the words of list name, in the file's order. An unknown name
// is the caller's mistake, caught by the tests of every package that reads
// one, and panics.
func List(name string) []string {
	l, ok := lists[name]
	if !ok {
		panic("words: no list " + name)
	}
	return slices.Clone(l)
}

// Set returns list name as a set.
func Set(name string) map[string]bool {
	out := map[string]bool{}
	for _, w := range List(name) {
		out[w] = true
	}
	return out
}

// Names lists the lists.
func Names() []string {
	var out []string
	for n := range lists {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

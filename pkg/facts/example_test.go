package facts_test

import (
	"fmt"
	"os"

	"github.com/ihmt-dev/ihmt/pkg/facts"
)

// Extract finds the durable facts a text states, each with the phrase a
// notice says it in; what is not a fact (a question, a negation, an
// opinion) yields nothing.
func ExampleExtractor_Extract() {
	x := facts.Default()
	for _, text := range []string{
		"2025-09-02: I moved to Valencia. The staging database is now PostgreSQL 17.",
		"We switched from Jest to Vitest for unit tests.",
		"Do I live in Madrid? The test is flaky. I don't live in Madrid anymore.",
	} {
		fs := x.Extract(text)
		if len(fs) == 0 {
			fmt.Println("no facts")
		}
		for _, f := range fs {
			fmt.Printf("%s / %s = %q (from %q): %s\n", f.Subject, f.Attribute, f.Value, f.From, f.Phrase)
		}
	}
	// Output:
	// user / lives_in = "Valencia" (from ""): you moved to Valencia
	// staging database / is = "PostgreSQL 17" (from ""): the staging database is PostgreSQL 17
	// unit tests / tool = "Vitest" (from "Jest"): you switched from Jest to Vitest for unit tests
	// no facts
}

// Load adds a person's own patterns to the built-in ones: here a new
// attribute, and a built-in pattern turned off.
func ExampleLoad() {
	user := `{
	  "terms": ["jujutsu"],
	  "patterns": [
	    {"name": "vcs.en", "regex": "(?i)\\bI (?:now )?version (?:my code )?with (?P<value>.+)",
	     "subject": "user", "attribute": "vcs", "phrase": "you version with {value}", "value": "term",
	     "examples": ["I now version my code with Jujutsu."]},
	    {"name": "moved_to.en", "disabled": true}
	  ]
	}`
	f, err := os.CreateTemp("", "patterns-*.json")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(user); err != nil {
		panic(err)
	}
	f.Close()
	x, err := facts.Load(f.Name())
	if err != nil {
		panic(err)
	}
	for _, f := range x.Extract("I now version my code with jujutsu.") {
		fmt.Printf("%s / %s = %q: %s\n", f.Subject, f.Attribute, f.Value, f.Phrase)
	}
	fmt.Println("moves, with the file and without:", len(x.Extract("I moved to Valencia.")), len(facts.Default().Extract("I moved to Valencia.")))
	// Output:
	// user / vcs = "jujutsu": you version with jujutsu
	// moves, with the file and without: 0 1
}

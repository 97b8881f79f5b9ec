package facts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "patterns.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadMissingFileIsDefault(t *testing.T) {
	x, err := Load(filepath.Join(t.TempDir(), "absent.json"))
	if err != nil || x != Default() {
		t.Fatalf("Load(missing) = %p, %v; want Default()", x, err)
	}
}

func TestLoadExtends(t *testing.T) {
	// The example of the package comment, verbatim in spirit: a new
	// pattern, a role added to a default macro's list, a term.
	p := writeFile(t, `{
	  "terms": ["jujutsu"],
	  "kinds": {"vcs": "vcs", "version control": "vcs"},
	  "roles": ["release captain"],
	  "stops": ["for the time being"],
	  "patterns": [
	    {
	      "name": "vcs.en",
	      "lang": "en",
	      "regex": "(?i)\\bI (?:now )?version (?:my code )?with (?P<value>.+)",
	      "subject": "user",
	      "attribute": "vcs",
	      "phrase": "you version with {value}",
	      "value": "term",
	      "examples": ["I now version my code with Jujutsu."]
	    },
	    {"name": "moved_to.en", "disabled": true}
	  ]
	}`)
	x, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	checkExtract(t, x, []extractCase{
		{"I now version my code with jujutsu for the time being.", []Fact{{Subject: "user", Attribute: "vcs", Value: "jujutsu", Phrase: "you version with jujutsu"}}},
		{"My version control is Jujutsu.", []Fact{f("user", "vcs", "Jujutsu")}},
		{"Marta is now the release captain.", []Fact{f("marta", "role", "release captain")}},
		{"I moved to Valencia.", nil},                                      // disabled
		{"I live in Valencia.", []Fact{f("user", "lives_in", "Valencia")}}, // the rest still there
	})
	// The default extractor is unchanged.
	if got := Default().Extract("I moved to Valencia."); len(got) != 1 {
		t.Errorf("Default changed by Load: %+v", got)
	}
}

func TestLoadReplacesByName(t *testing.T) {
	p := writeFile(t, `{"patterns": [{"name": "lives_in.en", "regex": "(?i)\\bhome is (?P<value>.+)",
		"subject": "user", "attribute": "lives_in", "value": "place", "phrase": "home is {value}"}]}`)
	x, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := x.Extract("Home is Lisbon."); !sameFacts(got, []Fact{f("user", "lives_in", "Lisbon")}) {
		t.Errorf("replacement pattern: %+v", got)
	}
	if got := x.Extract("I live in Lisbon."); len(got) != 0 {
		t.Errorf("replaced pattern still matches: %+v", got)
	}
}

func TestLoadErrorsNameFileAndPattern(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"syntax", `{"patterns": [`, []string{"unexpected EOF"}},
		{"syntax in the middle", "{\n\"patterns\": [,]}", []string{"line 2"}},
		{"unknown field", `{"patterns": [], "patern": 1}`, []string{`unknown field "patern"`}},
		{"trailing", `{"patterns": []} {}`, []string{"trailing data"}},
		{"bad regex", `{"patterns": [{"name": "ok", "regex": "(?P<value>x)", "subject": "s", "attribute": "a"},
			{"name": "broken", "regex": "(?P<value>x", "subject": "s", "attribute": "a"}]}`,
			[]string{"patterns[1]", `"broken"`, "regex"}},
		{"no value group", `{"patterns": [{"name": "n", "regex": "x", "subject": "s", "attribute": "a"}]}`,
			[]string{"patterns[0]", "value"}},
		{"unknown group", `{"patterns": [{"name": "n", "regex": "(?P<value>x)(?P<valeu>y)", "subject": "s", "attribute": "a"}]}`,
			[]string{"patterns[0]", "valeu"}},
		{"no attribute", `{"patterns": [{"name": "n", "regex": "(?P<value>x)", "subject": "s"}]}`,
			[]string{"patterns[0]", "attribute"}},
		{"no subject", `{"patterns": [{"name": "n", "regex": "(?P<value>x)", "attribute": "a"}]}`,
			[]string{"patterns[0]", "subject"}},
		{"unknown macro", `{"patterns": [{"name": "n", "regex": "{{nope}}(?P<value>x)", "subject": "s", "attribute": "a"}]}`,
			[]string{"patterns[0]", "{{nope}}"}},
		{"bad placeholder", `{"patterns": [{"name": "n", "regex": "(?P<value>x)", "subject": "s", "attribute": "a", "phrase": "{valeu}"}]}`,
			[]string{"patterns[0]", "{valeu}"}},
		{"bad kind", `{"patterns": [{"name": "n", "regex": "(?P<value>x)", "subject": "s", "attribute": "a", "value": "colour"}]}`,
			[]string{"patterns[0]", "colour"}},
		{"example fails", `{"patterns": [{"name": "n", "regex": "(?i)\\bfoo (?P<value>\\d+)", "subject": "s", "attribute": "a",
			"examples": ["foo bar"]}]}`, []string{"patterns[0]", `"foo bar"`}},
		{"duplicate", `{"patterns": [{"name": "n", "regex": "(?P<value>x)", "subject": "s", "attribute": "a"},
			{"name": "n", "regex": "(?P<value>y)", "subject": "s", "attribute": "a"}]}`, []string{"patterns[1]", "duplicate"}},
		{"bad stop", `{"stops": ["(unclosed"], "patterns": []}`, []string{"stops[0]"}},
		{"recursive macro", `{"macros": {"loop": "{{loop}}"}, "patterns": [{"name": "n", "regex": "{{loop}}(?P<value>x)", "subject": "s", "attribute": "a"}]}`,
			[]string{"patterns[0]", "nest"}},
	}
	for _, tt := range tests {
		p := writeFile(t, tt.content)
		_, err := Load(p)
		if err == nil {
			t.Errorf("%s: Load succeeded", tt.name)
			continue
		}
		for _, w := range append([]string{p}, tt.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tt.name, err, w)
			}
		}
	}
}

func TestDefaultFileIsValid(t *testing.T) {
	f, err := parseFile("patterns.json", defaultFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compile(f, "patterns.json", 0); err != nil {
		t.Fatal(err)
	}
	langs := map[string]int{}
	for _, p := range f.Patterns {
		langs[p.Lang]++
	}
	if langs["en"] == 0 || langs["es"] == 0 {
		t.Errorf("languages: %v", langs)
	}
}

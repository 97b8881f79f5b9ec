package timeline

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/facts"
)

// correction is one case of testdata/corrections.json: a memory, a later
// one that corrects it in other words, and the questions a user would
// ask now and as of a date between the two. The store runs the same file
// end to end through search ranking; this test checks the part that is
// this package's: extraction finds a fact in both, the facts land on one
// timeline, and the views say the right thing.
type correction struct {
	Name         string `json:"name"`
	Lang         string `json:"lang"`
	Old          string `json:"old"`
	OldDate      string `json:"old_date"`
	New          string `json:"new"`
	NewDate      string `json:"new_date"`
	QuestionNow  string `json:"question_now"`
	QuestionThen string `json:"question_then"`
	AsOf         string `json:"as_of"`
}

func loadCorrections(t *testing.T) []correction {
	t.Helper()
	data, err := os.ReadFile("testdata/corrections.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []correction
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestCorrectionsFile(t *testing.T) {
	cs := loadCorrections(t)
	if len(cs) < 32 {
		t.Errorf("%d cases, want at least 32", len(cs))
	}
	langs := map[string]int{}
	names := map[string]bool{}
	for _, c := range cs {
		langs[c.Lang]++
		if names[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		names[c.Name] = true
		if !(c.OldDate < c.AsOf && c.AsOf < c.NewDate) {
			t.Errorf("%s: as_of %s is not between %s and %s", c.Name, c.AsOf, c.OldDate, c.NewDate)
		}
		for _, d := range []string{c.OldDate, c.NewDate, c.AsOf} {
			date(d) // panics on a malformed date
		}
		if c.Old == c.New {
			t.Errorf("%s: old and new are the same text", c.Name)
		}
		// A real question shares a word that matters with what it is
		// about; otherwise no ranking could connect them.
		for _, q := range []string{c.QuestionNow, c.QuestionThen} {
			if !sharesWord(q, c.Old+" "+c.New) {
				t.Errorf("%s: question %q shares no informative word with the texts", c.Name, q)
			}
		}
	}
	if langs["en"] < 10 || langs["es"] < 10 {
		t.Errorf("languages %v, want at least 10 cases each of en and es", langs)
	}
}

// questionWords are the function words of questions, which connect a
// question to nothing.
var questionWords = map[string]bool{
	"what": true, "which": true, "who": true, "where": true, "when": true, "how": true, "do": true,
	"does": true, "did": true, "is": true, "are": true, "was": true, "were": true, "the": true,
	"a": true, "an": true, "i": true, "we": true, "my": true, "our": true, "on": true, "in": true,
	"at": true, "for": true, "of": true, "to": true, "use": true, "have": true, "back": true,
	"then": true, "now": true, "que": true, "quien": true, "donde": true, "cual": true, "el": true,
	"la": true, "los": true, "las": true, "de": true, "en": true, "para": true, "con": true,
	"mi": true, "es": true, "ahora": true, "tiene": true,
}

// sharesWord reports whether q and text share a word that is not a
// question's function word (accents and case ignored): a crude stand-in
// for the index's informative terms, enough to keep the questions honest.
func sharesWord(q, text string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	in := map[string]bool{}
	for _, w := range split(text) {
		in[w] = true
	}
	for _, w := range split(q) {
		if !questionWords[w] && in[w] {
			return true
		}
	}
	return false
}

func TestCorrections(t *testing.T) {
	x := facts.Default()
	pass := 0
	cs := loadCorrections(t)
	for _, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			oldFacts, newFacts := x.Extract(c.Old), x.Extract(c.New)
			if len(oldFacts) == 0 || len(newFacts) == 0 {
				t.Fatalf("no facts: old %+v, new %+v", oldFacts, newFacts)
			}
			tl := New()
			tl.Add(Source{Leaf: "old", ValidFrom: date(c.OldDate), RecordedAt: date(c.OldDate)}, oldFacts)
			tl.Add(Source{Leaf: "new", ValidFrom: date(c.NewDate), RecordedAt: date(c.NewDate)}, newFacts)

			// Now: the new one is current, the old one outdated by it.
			st := tl.Status("old", View{})
			if !st.Outdated || len(st.Successors) == 0 || st.Successors[0] != "new" || len(st.Notices) == 0 {
				t.Fatalf("now: Status(old) = %+v, want outdated by new with a notice\nold facts %+v\nnew facts %+v", st, oldFacts, newFacts)
			}
			if !strings.Contains(st.Notices[0], "On "+c.OldDate) || !strings.Contains(st.Notices[0], "on "+c.NewDate) {
				t.Errorf("notice %q lacks the dates", st.Notices[0])
			}
			if st := tl.Status("new", View{}); st.Outdated {
				t.Errorf("now: Status(new) = %+v, want current", st)
			}
			// Then: the old one was current and not outdated.
			then := View{AsOf: endOfDay(c.AsOf)}
			if st := tl.Status("old", then); st.Outdated {
				t.Errorf("as of %s: Status(old) = %+v, want current", c.AsOf, st)
			}
			for _, k := range tl.Keys(nil, "") {
				if h := tl.History(k, View{}); len(h) == 2 {
					if e, ok := tl.Current(k, then); !ok || e.Leaf != "old" {
						t.Errorf("as of %s: Current(%v) = %+v, want the old statement", c.AsOf, k, e)
					}
					if e, ok := tl.Current(k, View{}); !ok || e.Leaf != "new" {
						t.Errorf("now: Current(%v) = %+v, want the new statement", k, e)
					}
				}
			}
			if !t.Failed() {
				pass++
			}
		})
	}
	t.Logf("%d of %d corrections pass", pass, len(cs))
}

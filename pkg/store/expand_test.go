package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/lexicon"
)

func TestBounded(t *testing.T) {
	df := map[string]int{"reunion": 4, "junta": 9, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "x": 7}
	exp := []lexicon.Expansion{
		{Term: "reunion", For: 0, Source: lexicon.FromGlossary},
		{Term: "nowhere", For: 0, Source: lexicon.FromGlossary}, // no memory holds it
		{Term: "junta", For: 0, Source: lexicon.FromConcept},
		{Term: "e", For: 1, Source: lexicon.FromSynonyms},
		{Term: "d", For: 1, Source: lexicon.FromSynonyms},
		{Term: "c", For: 1, Source: lexicon.FromSynonyms},
		{Term: "b", For: 1, Source: lexicon.FromSynonyms},
		{Term: "a", For: 1, Source: lexicon.FromSynonyms},
		{Term: "x", For: 1, Source: lexicon.FromTranslation}, // its own source's bound
		{Term: "e", For: 2, Source: lexicon.FromCognate},     // another query word's
		{Term: "zzz", For: 2, Source: lexicon.FromCognate},
	}
	got := bounded(exp, func(t string) int { return df[t] })
	var terms []string
	for _, x := range got.exp {
		terms = append(terms, fmt.Sprintf("%s/%d", x.Term, x.For))
	}
	want := []string{"reunion/0", "junta/0", "a/1", "b/1", "c/1", "x/1", "e/2"}
	if !slices.Equal(terms, want) {
		t.Errorf("bounded = %v, want %v: the curated words whole, a dictionary's %d rarest a word and source, none no memory holds", terms, want, perTerm)
	}
	if len(bounded(nil, func(string) int { return 1 }).exp) != 0 {
		t.Error("nothing to bound gives something")
	}
}

// TestExpandWeighsAbsentWords: the glossary's word for a query word no
// memory holds weighs as that word; one for a word the memories hold, and
// a dictionary's word either way, keep their share.
func TestExpandWeighsAbsentWords(t *testing.T) {
	df := map[string]int{"birthday": 0, "meet": 3, "cumpleano": 1, "reunion": 2, "natal": 1}
	terms := []string{"birthday", "meet"}
	exp := []lexicon.Expansion{
		{Term: "cumpleano", For: 0, Source: lexicon.FromGlossary}, // "birthday" is in no memory
		{Term: "reunion", For: 1, Source: lexicon.FromGlossary},   // control: "meet" is
		{Term: "natal", For: 0, Source: lexicon.FromSynonyms},     // control: not curated
	}
	e := expand(terms, bounded(exp, func(t string) int { return df[t] }), true)
	want := []float64{1, 1, 1, 0.3, 0.3}
	if !slices.Equal(e.weights, want) {
		t.Errorf("weights = %v for %v, want %v", e.weights, e.terms, want)
	}
	if e := expand(terms, nil, true); len(e.terms) != len(terms) {
		t.Errorf("expand(nil) = %v, want the query's own terms", e.terms)
	}
}

// TestAbsentWordFoundInOtherLanguage: a question whose words the memories
// only hold in the other language ranks the memory that says them so
// above one that shares a single word in the question's own language.
func TestAbsentWordFoundInOtherLanguage(t *testing.T) {
	s := open(t, t.TempDir())
	answer := "Cumpleaños de mi hermano: 9 de septiembre."
	for _, m := range []string{
		answer,
		"The party playlist is on Spotify.", // one of the question's words, in its own language
		"Backups run nightly to the NAS.",
		"The staging database is Postgres 16.",
	} {
		save(t, s, alice, m, ScopeUnspecified)
	}
	res := search(t, s, alice, "When is my brother's birthday party?", ScopeDefault)
	if len(res.Hits) == 0 || res.Hits[0].Leaf.Text != answer {
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Leaf.Text)
		}
		t.Errorf("answered %q, want %q first", got, answer)
	}
}

// TestExpansionFindsOtherWords: a question worded with a synonym, a
// cognate or (with FreeDict) a translation of a memory's word finds it,
// and a memory in the question's own words still ranks first.
func TestExpansionFindsOtherWords(t *testing.T) {
	dicts := t.TempDir()
	writeFixtureDict(t, dicts, "freedict-spa-eng", map[string]string{"tortuga": "tortuga /tortuɣa/\nturtle, tortoise\n"})
	tr, err := lexicon.ReadFreeDict(dicts)
	if err != nil || tr == nil {
		t.Fatalf("fixture FreeDict: %v, %v", tr, err)
	}
	memories := []string{
		"Ana repaired the boiler.",
		"Luis bought the dishwasher.",
		"Incidente: llegaban eventos con timestamps del futuro; ahora se descartan.",
		"Raw events are archived hourly to the bucket.",
		"La tortuga duerme en el jardín.",
		"The dog sleeps in the garden.",
	}
	tests := []struct {
		query string
		trans bool // found only with the FreeDict fixture
		first string
	}{
		{"what got fixed?", false, memories[0]},  // WordNet: fix = repair, no word in common
		{"what got bought?", false, memories[1]}, // control
		{"what drops events stamped in the future?", false, memories[2]},
		{"where are raw events archived?", false, memories[3]}, // control: own words first
		{"anything about the turtle?", true, memories[4]},
		{"where does the dog sleep?", false, memories[5]}, // control
	}
	for _, with := range []bool{false, true} {
		lex := lexicon.Default()
		if with {
			lex = lex.WithTranslations(tr)
		}
		s, err := Open(t.TempDir(), Options{Lexicon: lex})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range memories {
			save(t, s, alice, m, ScopeUnspecified)
		}
		for _, tt := range tests {
			res := search(t, s, alice, tt.query, ScopeDefault)
			first := ""
			if len(res.Hits) > 0 {
				first = res.Hits[0].Leaf.Text
			}
			switch {
			case (with || !tt.trans) && first != tt.first:
				t.Errorf("FreeDict %v: %q answered %q first, want %q", with, tt.query, first, tt.first)
			case tt.trans && !with && first == tt.first:
				t.Errorf("without FreeDict, %q found %q: the translation is not what finds it", tt.query, first)
			}
		}
		s.Close()
	}
}

// writeFixtureDict writes a dictd dictionary (name.index, name.dict) of
// the given headwords and bodies.
func writeFixtureDict(t testing.TB, dir, name string, entries map[string]string) {
	t.Helper()
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	enc := func(n int) string {
		s := string(digits[n%64])
		for n /= 64; n > 0; n /= 64 {
			s = string(digits[n%64]) + s
		}
		return s
	}
	var body, index strings.Builder
	for head, text := range entries {
		fmt.Fprintf(&index, "%s\t%s\t%s\n", head, enc(body.Len()), enc(len(text)))
		body.WriteString(text)
	}
	for file, data := range map[string]string{name + ".index": index.String(), name + ".dict": body.String()} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExpandWeighsLightWords: a light query word, and what is added for
// it, weigh less than the word the question is about.
func TestExpandWeighsLightWords(t *testing.T) {
	df := map[string]int{"get": 1, "homelab": 2, "obtain": 1, "home": 3}
	terms := []string{"get", "homelab"}
	exp := []lexicon.Expansion{
		{Term: "obtain", For: 0, Source: lexicon.FromSynonyms},
		{Term: "home", For: 1, Source: lexicon.FromSynonyms}, // control: not light
	}
	e := expand(terms, bounded(exp, func(t string) int { return df[t] }), true)
	want := []float64{lightWeight, 1, lightWeight * 0.3, 0.3}
	if !slices.Equal(e.weights, want) {
		t.Errorf("weights = %v for %v, want %v", e.weights, e.terms, want)
	}
}

// TestLightWordRanksBelowTopic: a memory that shares the question's topic
// word outranks one that shares only a light word with it, however rare
// that light word is among the memories; with no light word in the
// question, the rarer shared word still decides.
func TestLightWordRanksBelowTopic(t *testing.T) {
	s := open(t, t.TempDir())
	remote := "Homelab remote access is Tailscale now."
	reload := "Homelab automations get reloaded from the UI."
	for _, m := range []string{
		remote,
		reload,
		"Remote desktop to the office printer is disabled.",
		"Backups run nightly to the NAS.",
		"The staging database is Postgres 16.",
	} {
		save(t, s, alice, m, ScopeUnspecified)
	}
	tests := []struct{ query, first string }{
		{"How do I get remote into the homelab?", remote},
		{"Are the homelab automations reloaded or remote?", reload}, // control: no light word
	}
	for _, tt := range tests {
		res := search(t, s, alice, tt.query, ScopeDefault)
		if len(res.Hits) == 0 || res.Hits[0].Leaf.Text != tt.first {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Leaf.Text)
			}
			t.Errorf("%q answered %q, want %q first", tt.query, got, tt.first)
		}
	}
}

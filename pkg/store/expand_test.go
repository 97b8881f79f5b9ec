package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/lexicon"
)

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

package tokenize

import (
	"strings"
	"testing"
)

// TestStemFamilies: every word of a family gets the same stem.
func TestStemFamilies(t *testing.T) {
	families := []string{
		// English inflection
		"live lives lived living",
		"hope hopes hoped hoping",
		"hop hops hopped hopping",
		"care cares cared caring",
		"use uses used using",
		"run runs running",
		"study studies studied studying",
		"try tries tried trying",
		"tie ties tied",
		"die dies died dying",
		"city cities",
		"movie movies",
		"box boxes",
		"class classes",
		"agree agrees agreed agreeing",
		"need needs needed",
		"create creates created creating creation",
		"dance dances danced dancing",
		"excite excited exciting excitement",
		"organize organized organizing organization",
		"deploy deploys deployed deploying deployment deployments",
		"test tests tested testing",
		"index indexes indexed",
		"query queries queried",
		"parse parses parsed parsing",
		// English irregular forms
		"go goes going went gone",
		"buy buys buying bought",
		"write writes writing wrote written",
		"lose loses losing lost",
		"child children",
		"person people",
		// English derivation
		"happy happily happiness",
		"quick quickly",
		"care careful carefully",
		"govern government",
		"educate education educated",
		"lonely loneliness",
		"recommend recommends recommended recommendation recommendations",
		"inform informed information",
		"passion passionate",
		"deprecate deprecated deprecation",
		"allocate allocated allocation",
		"win wins winning won",
		"meet meets meeting met",
		// Spanish
		"canción canciones",
		"trabajar trabajando trabajado trabajada trabajados",
		"comer comiendo comido",
		"mudar mudando mudado",
		"cansado cansada cansados cansadas",
		"rápida rápidamente",
		"casa casas",
		"ciudad ciudades",
		"mujer mujeres",
		"grande grandes",
	}
	for _, fam := range families {
		words := strings.Fields(fam)
		want := Stem(fold(words[0]))
		for _, w := range words[1:] {
			if got := Stem(fold(w)); got != want {
				t.Errorf("Stem(%q) = %q, want %q like %q", w, got, want, words[0])
			}
		}
	}
}

// TestStemKeepsApart: words of different families stay different, the
// precision side of the stemmer (each pair is a classic over-stemming).
func TestStemKeepsApart(t *testing.T) {
	pairs := [][2]string{
		{"care", "car"}, {"hope", "hop"}, {"note", "not"}, {"hate", "hat"},
		{"mother", "moth"}, {"brother", "broth"}, {"corner", "corn"}, {"poster", "post"},
		{"counter", "count"}, {"center", "cent"}, {"dollar", "doll"}, {"cellar", "cell"},
		{"business", "busy"}, {"evening", "even"}, {"news", "new"}, {"early", "ear"},
		{"need", "ne"}, {"moment", "mom"}, {"comment", "come"}, {"nation", "nate"},
		{"left", "leave"}, {"saw", "see"}, {"found", "find"}, {"drew", "draw"},
		{"lado", "lar"}, {"vida", "ver"}, {"thing", "th"}, {"sing", "s"},
		{"state", "stat"}, {"late", "lat"}, {"private", "priv"}, {"migrate", "migr"},
		{"candidate", "candid"}, {"literate", "liter"},
	}
	for _, p := range pairs {
		if a, b := Stem(p[0]), Stem(p[1]); a == b {
			t.Errorf("Stem(%q) = Stem(%q) = %q", p[0], p[1], a)
		}
	}
}

func TestStemLeavesAlone(t *testing.T) {
	for _, w := range []string{"k8s", "utf8", "ipv6", "2023", "x", "is", "ok", "mudanza", "vivo", "gas", "bus", "yes", "status", "cancion"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

// TestTokensStemsWordsNotIdentifiers checks what the index stores: stop
// words and identifiers as written, other words stemmed.
func TestTokensStemsWordsNotIdentifiers(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"She was living in Lyon", "she was live in lyon"},
		{"loadUsers load_users", "load user loadusers load user"},
		{"k8s clusters", "k8s cluster"},
		{"cans of soup", "cans of soup"}, // "can" would be a stop word
		{"Estábamos trabajando", "estabamo trabajar"},
	}
	for _, tt := range tests {
		if got := strings.Join(Tokens(tt.in), " "); got != tt.want {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"living", "studies", "agreed", "trabajando", "canciones", "rapidamente", "ies", "ied", "eed", "ing", "ization", "y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Stem(s)
		if got == "" && s != "" || len(got) > len(s) {
			t.Fatalf("Stem(%q) = %q", s, got)
		}
		if Stem(s) != got {
			t.Fatalf("Stem(%q) is not deterministic", s)
		}
	})
}

package lexicon

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestConceptsAndCues(t *testing.T) {
	x := Default()
	tests := []struct {
		text     string
		concepts []string
		cue      bool
	}{
		{"Finally unpacked in the new flat in Valencia.", []string{"residence"}, true},
		{"I live in Zaragoza and work remotely.", []string{"residence"}, false},
		{"kelpie's ClickHouse is 23.8 LTS.", []string{"database"}, false}, // a compound is not a house
		{"Switched the login shell to fish 3.7.", []string{"shell"}, true},
		{"El standup pasa a las 9:30 desde septiembre.", []string{"schedule"}, true},
		{"Ya no usamos Docker Desktop: ahora Colima.", []string{"runtime"}, true},
		{"The cat sat on the mat.", nil, false},
		{"When does the offsite copy of the NAS start?", []string{"backup"}, false}, // an offsite copy is a backup
		// A value alone shows a concept whose lexicon entry says so (a
		// price per hour is a rate); an IP address does not show a host.
		{"El soporte lo facturo a 80 €/hora.", []string{"rate"}, false},
		{"faro is at 10.0.10.20.", nil, false},
		{"Cambié Pi-hole por AdGuard Home en el homelab.", nil, true},
		// A cue governed by a preposition of time says when, not what
		// changed; one with a subject of its own still says a change.
		{"Reinstalled the podman-compose plugin after the Fedora 42 upgrade.", []string{"runtime"}, false},
		{"Reinstalé el plugin tras el upgrade de Fedora 42.", []string{"os"}, false},
		{"After the outage we upgraded Postgres to 16.", []string{"database"}, true},
		{"Upgraded Postgres to 16 after the outage.", []string{"database"}, true},
	}
	for _, tt := range tests {
		got := x.Names(x.Concepts(tt.text))
		for _, c := range tt.concepts {
			if !slices.Contains(got, c) {
				t.Errorf("Concepts(%q) = %v, want %s among them", tt.text, got, c)
			}
		}
		if tt.concepts == nil && len(got) > 0 {
			t.Errorf("Concepts(%q) = %v, want none", tt.text, got)
		}
		if c := x.ChangeCue(tt.text); c != tt.cue {
			t.Errorf("ChangeCue(%q) = %v, want %v", tt.text, c, tt.cue)
		}
	}
}

func TestAsksAndHolds(t *testing.T) {
	x := Default()
	tests := []struct {
		question, wants string
		holds, lacks    string
	}{
		{"What's Priya's phone number?", "phone", "Call me on +34 600 123 456.", "Priya reviews every pull request."},
		{"What's the email address of the client?", "email", "Write to nuria@example.com.", "The client is in Madrid."},
		{"Which port does Jellyfin listen on?", "port", "Jellyfin runs on port 8096.", "Jellyfin serves the films."},
		{"How much does the laptop cost?", "money", "It cost 1,450 € in March.", "A Framework laptop with 64 GB."},
		{"¿Cuál es el teléfono de Carmen?", "phone", "El móvil de Carmen es 612 345 678.", "Carmen vive en Santander."},
		{"What's the NAS's IP address?", "host", "faro is at 192.168.1.20.", "faro exports the media share."},
		{"When is the dentist appointment?", "", "", ""},     // a date is no sign of an answer: every memory has one
		{"What's the staging database called?", "", "", ""},  // "called" is not a street (calle)
		{"When do we rotate the staging token?", "", "", ""}, // asks for a time, not the token
		{"What's the API token for the registry?", "secret", "The token is in the 1Password vault.", "The registry mirrors crates."},
		{"Where are the rate-limit counters kept?", "", "", ""},
		// A cue before a head noun names what the head is of: the question
		// asks for the limit, the policy, the format (beside each, its
		// positive control asking for the cue's own value).
		{"What's the per-API-key request limit on the collector?", "", "", ""},
		{"What's the API key for the collector?", "secret", "The API key is in the kelpie vault.", "The collector rejects unknown keys."},
		{"What is the password rotation policy?", "", "", ""},
		{"¿Cuál es el límite de peticiones por clave de API?", "", "", ""},
		{"¿Cuál es la clave de API del colector?", "secret", "La clave de API está en el vault de kelpie.", "El colector rechaza claves desconocidas."},
	}
	for _, tt := range tests {
		ty := x.Asks(tt.question)
		if ty.Name != tt.wants {
			t.Errorf("Asks(%q) = %q, want %q", tt.question, ty.Name, tt.wants)
			continue
		}
		if tt.wants == "" {
			if !x.Holds(ty, "anything") {
				t.Errorf("every text holds a value of the zero type")
			}
			continue
		}
		if !x.Holds(ty, tt.holds) {
			t.Errorf("Holds(%s, %q) = false (positive control)", tt.wants, tt.holds)
		}
		if x.Holds(ty, tt.lacks) {
			t.Errorf("Holds(%s, %q) = true", tt.wants, tt.lacks)
		}
	}
}

func TestExpand(t *testing.T) {
	x := Default()
	terms := []string{"reunion", "jefe"} // as pkg/tokenize folds "reunión"
	got := x.Expand("¿la reunión con mi jefe?", terms)
	var words []string
	for _, e := range got {
		words = append(words, e.Term)
		if e.For < 0 || e.For >= len(terms) {
			t.Errorf("%q stands for term %d of %d", e.Term, e.For, len(terms))
		}
	}
	for _, want := range []string{"meet", "manag"} {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("Expand = %v, want a form of %q", words, want)
		}
	}
	for _, w := range words {
		if slices.Contains(terms, w) || w == "de" {
			t.Errorf("Expand added %q, a query term or a phrase's common word", w)
		}
	}
	for _, e := range x.Expand("zxqv", []string{"zxqv"}) {
		if e.Source != FromCognate { // a guess at its spelling in the other language, which pkg/store keeps only if a memory holds it
			t.Errorf("a word in no group expands to %+v", e)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if x, err := Load(filepath.Join(dir, "missing.json")); err != nil || x == nil {
		t.Fatalf("a missing file is the built-in lexicon: %v", err)
	}
	good := filepath.Join(dir, "lexicon.json")
	os.WriteFile(good, []byte(`{"concepts":[{"name":"residence","words":["digs"]},{"name":"boat","words":["sailboat","mooring"]}],"groups":[["velero","sailboat"]]}`), 0o600)
	x, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if got := x.Names(x.Concepts("My new digs are by the mooring.")); !slices.Contains(got, "residence") || !slices.Contains(got, "boat") {
		t.Errorf("the person's words did not join: %v", got)
	}
	if got := Default().Names(Default().Concepts("My new digs are by the mooring.")); len(got) != 0 {
		t.Errorf("positive control: the built-in lexicon knows no digs: %v", got)
	}
	for name, text := range map[string]string{
		"not json":         `{`,
		"unknown detector": `{"types":[{"name":"x","cues":["x"],"detector":"nope"}]}`,
		"nameless concept": `{"concepts":[{"words":["x"]}]}`,
	} {
		bad := filepath.Join(dir, "bad.json")
		os.WriteFile(bad, []byte(text), 0o600)
		if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

func TestLanguage(t *testing.T) {
	for text, want := range map[string]string{
		"Carmen se ha mudado a Santander: le han dado plaza en el hospital.": "es",
		"Bajamos el muestreo de trazas de switchyard en prod al 2%.":         "es",
		"switchyard traces go over OTLP to Tempo; prod sampling is 5%.":      "en",
		"The NAS, faro, is at 192.168.1.20.":                                 "en",
		"kelpie":                                                             "en",
		"Cambié a Neovim":                                                    "es",
		"Me mudé a Valencia":                                                 "es",
		"A cache sits in front of the API.":                                  "en",
		"Lucía lives in Zaragoza and works remotely.":                        "en",
	} {
		if got := Language(text); got != want {
			t.Errorf("Language(%q) = %s, want %s", text, got, want)
		}
	}
}

func TestTimeWords(t *testing.T) {
	x := Default()
	for query, want := range map[string][]string{
		"Where was I living back then?":            {"back", "then"},
		"Which city am I based in these days?":     {"these", "days"},
		"¿Dónde vive ahora mi hermana?":            {"ahora"},
		"How do I back up the NAS?":                nil, // "back" of "back up" points at no time
		"Which standup time did we agree on then?": nil,
	} {
		got := x.TimeWords(query)
		for _, w := range want {
			for _, t2 := range stems(w) {
				if !got[t2] {
					t.Errorf("TimeWords(%q) = %v, want %q among them", query, got, t2)
				}
			}
		}
		if want == nil && len(got) > 0 {
			t.Errorf("TimeWords(%q) = %v, want none", query, got)
		}
	}
}

func TestAsksPast(t *testing.T) {
	x := Default()
	for query, want := range map[string]bool{
		"Which editor was I using back then?":        true,
		"What did we use to deploy with originally?": true,
		"¿Qué editor usaba por aquel entonces?":      true,
		"Which editor do I use these days?":          false,
		"Which Elixir release are we on?":            false,
		"How do I back up the NAS?":                  false, // "back" of "back up"
		"¿Y entonces qué puerto uso?":                false, // "entonces" is also "so"
	} {
		if got := x.AsksPast(query); got != want {
			t.Errorf("AsksPast(%q) = %v, want %v", query, got, want)
		}
	}
}

func TestBothHoldAPlace(t *testing.T) {
	x := Default()
	residence := x.Named([]string{"residence"})
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"Mi hermana Carmen vive en Bilbao.", "Carmen se ha mudado a Santander.", true},
		{"Lucía lives in Zaragoza.", "Finally unpacked in the new flat in Valencia.", true},
		{"I live in the flat by the river.", "We moved house last spring.", false},
	} {
		if got := x.BothHold(residence, tt.a, tt.b); got != tt.want {
			t.Errorf("BothHold(residence, %q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

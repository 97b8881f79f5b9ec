package store

import (
	"strings"
	"testing"
)

// TestThingNeverStoredOfSomeone: a question for a thing of someone the
// memory knows, when no memory holds the two together, is not found and
// names what is missing; the controls in the same store — the same owner
// with a thing stored, a thing stored in the other language, a thing
// asked of a school a memory names — are found.
func TestThingNeverStoredOfSomeone(t *testing.T) {
	s := open(t, t.TempDir())
	for _, text := range []string{
		"Yerba's vet is Veterinaria San Roque, Dr. Pereyra; annual vaccines in August.",
		"Familia: esposa Valentina (Vale), hija Olivia, gata Yerba.",
		"Vale accepted the offer in Montevideo; relocation planned for April.",
		"Cumpleaños de mi hermano Martín: 9 de septiembre.",
		"Olivia goes to the Pequeños Pasos nursery school on Tuesdays.",
		"Lucía works at Globant as a QA lead.",
		"Kelpie listens on :8080 behind Caddy.",
		"Nico Albornoz: +54 9 11 5555-0199 (whatsapp).",
		"Sosa's dental office is at Av. Rivadavia 1234.",
		"Sosa said the crown needs replacing.",
	} {
		saveIn(t, s, SaveInput{Caller: alice, Content: text})
	}
	for _, tt := range []struct {
		query   string
		verdict Verdict
		first   string // a word of the first memory a found answer returns
		missing string // what a not-found answer says is missing
	}{
		{"What's Yerba's microchip number?", NotFound, "", "Yerba's microchip number"},
		{"When is Vale's birthday?", NotFound, "", "Vale's birthday"},
		{"What's the address of Dr. Sosa's home?", NotFound, "", "address of Dr. Sosa's home"},
		{"Who is Yerba's vet?", Found, "Pereyra", ""},
		{"When is Martín's birthday?", Found, "Martín", ""},
		{"What's the name of Olivia's school?", Found, "Pequeños", ""},
		// A fact said with a verb, a kind of value, a title, the owner's
		// other memories: all found.
		{"Who is Lucía's employer?", Found, "Globant", ""},
		{"What is Kelpie's port?", Found, "8080", ""},
		{"What's Nico Albornoz's phone number?", Found, "5555", ""},
		{"Where is Dr. Sosa's office?", Found, "Rivadavia", ""},
	} {
		r := find(t, s, SearchInput{Query: tt.query})
		if r.Verdict != tt.verdict || tt.first != "" && (len(r.Hits) == 0 || !strings.Contains(r.Hits[0].Leaf.Text, tt.first)) {
			t.Errorf("%q: %v, first %v; want %v with a memory of %q", tt.query, r.Verdict, r.Hits, tt.verdict, tt.first)
		}
		if tt.verdict == NotFound && !strings.Contains(r.Message, tt.missing) {
			t.Errorf("%q: message %q should name what is missing", tt.query, r.Message)
		}
	}
}

// TestAskedKindIsNoName: "URL" in "What's the Home Assistant URL?" asks for
// an address, not about something called URL that no memory holds; the
// memory holding one answers, and one that only names Home Assistant is no
// rival to it. The control: asked of what no memory gives an address for,
// the answer is not found.
func TestAskedKindIsNoName(t *testing.T) {
	s := open(t, t.TempDir())
	for _, text := range []string{
		"The home server runs the house apps: Home Assistant, Home Assistant add-ons, Vaultwarden and Grafana.",
		"Home Assistant on hornero at ha.galpon.example; Zigbee through a USB dongle.",
		"Grafana dashboards for the house show the power use.",
	} {
		saveIn(t, s, SaveInput{Caller: alice, Content: text})
	}
	r := find(t, s, SearchInput{Query: "What's the Home Assistant URL?"})
	if r.Verdict != Found || len(r.Hits) == 0 || !strings.Contains(r.Hits[0].Leaf.Text, "ha.galpon.example") {
		t.Errorf("Home Assistant URL: %v %v, want found with the address first", r.Verdict, r.Hits)
	}
	if r := find(t, s, SearchInput{Query: "What's the Grafana URL?"}); r.Verdict != NotFound {
		t.Errorf("Grafana URL: %v, want not found (no memory gives its address)", r.Verdict)
	}
}

package recall

import (
	"slices"
	"testing"
)

func TestOwnershipIn(t *testing.T) {
	for _, tt := range []struct {
		query        string
		thing, owner []string
	}{
		{"What's Yerba's microchip number?", []string{"microchip", "number"}, []string{"yerba"}},
		{"What's the address of Dr. Sosa's dental office?", []string{"address", "dental", "offic"}, []string{"sosa"}},
		{"What's Nico Albornoz's phone number?", []string{"phone", "number"}, []string{"nico", "albornoz"}},
		{"¿Cuál es el cumpleaños de Vale?", []string{"cumpleano"}, []string{"vale"}},
		{"When is my brother Martín's birthday?", []string{"birthday"}, []string{"martin"}},
		// No one by name: a kind of thing, an acronym, a common noun, a
		// question word, a month, an English "of" (what a thing shows, where
		// it is), no owner.
		{"What is the painting of Aragorn a reminder of?", nil, nil},
		{"Which movie's theme does Tim play?", nil, nil},
		{"What was Jolene doing at the beginning of January?", nil, nil},
		{"What's the NAS's IP address?", nil, nil},
		{"What time does the nightly copy of the NAS start?", nil, nil},
		{"What kind of database does kelpie use?", nil, nil},
		{"What time is the team's daily sync?", nil, nil},
		{"¿A qué hora es la reunión de los lunes?", nil, nil},
		{"What's the VPN's config file?", nil, nil},
		{"Where do I live?", nil, nil},
	} {
		o := ownershipIn(tt.query)
		if !slices.Equal(o.thing, tt.thing) || !slices.Equal(o.owner, tt.owner) {
			t.Errorf("ownershipIn(%q) = thing %q owner %q, want %q %q", tt.query, o.thing, o.owner, tt.thing, tt.owner)
		}
	}
}

// FuzzOwnershipIn: any question reads without a panic, and what it asks
// of whom is words of the question.
func FuzzOwnershipIn(f *testing.F) {
	for _, q := range []string{"What's Yerba's microchip number?", "What's the name of Mateo's school?", "the A of B's C of D's",
		"What is the name of the band's song of Tim's", "'s", "of 's of", "el cumpleaños de Vale", "X of Y's", "of the of Mateo's", "name of Tim's favorite band"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		o := ownershipIn(q)
		if (len(o.owner) == 0) != (o.phrase == "") && len(o.thing) > 0 {
			t.Errorf("%q: owner %q but phrase %q", q, o.owner, o.phrase)
		}
	})
}

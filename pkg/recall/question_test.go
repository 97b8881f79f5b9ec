package recall

import (
	"slices"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

func TestNamesIn(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"What does Marta do?", []string{"Marta"}},
		{"Which Kafka topic does kelpie's collector write to?", []string{"Kafka"}},
		// A word that opens a sentence is capitalised for that reason.
		{"Was it a good month for Nate? Answer yes or no.", []string{"Nate"}},
		{"Where is it? Marta knows.", nil},
		{"When is the dentist appointment in December?", nil},
		{`Who sang "The Four Seasons" at the party?`, nil},
		{"Is Mateo's school in Ruzafa?", []string{"Mateo", "Ruzafa"}},
	}
	for _, tt := range tests {
		if got := namesIn(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("namesIn(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestUntimed: the words that only point at a time leave the query (the
// view says when), unless nothing else is left to search for.
func TestUntimed(t *testing.T) {
	s := searcherOver(newMemReader())
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"Where was I living back then?", []string{"live"}},
		{"Which city am I based in these days?", []string{"citi", "base"}},
		{"How do I back up the NAS?", []string{"back", "nas"}},
		{"now?", []string{"now"}},
	} {
		if got := s.untimed(tt.query, tokenize.Terms(tt.query)); !slices.Equal(got, tt.want) {
			t.Errorf("untimed(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
}

// TestNamedIn: the full name a text gives for a first name, wherever it
// stands, within one sentence; none for the name alone or a common word.
func TestNamedIn(t *testing.T) {
	tests := []struct{ text, name, want string }{
		{"Contacto técnico en la clínica: Nico Albornoz (administración e IT).", "nico", "nico albornoz"},
		{"PR reviews on canopy go to Nico Ferraro. He wants small PRs.", "nico", "nico ferraro"},
		{"Nico Ferraro's last day at Pampero was Friday.", "nico", "nico ferraro"},
		{"Nico and Ingrid agreed.", "nico", ""},
		{"Ask Nico. Then wait.", "nico", ""},
		{"outside that window Slack can wait", "window", ""},
	}
	for _, tt := range tests {
		if got := namedIn(tt.text, tt.name); got != tt.want {
			t.Errorf("namedIn(%q, %q) = %q, want %q", tt.text, tt.name, got, tt.want)
		}
	}
}

// TestCapitalised: a name written as one, not the same word in lower case.
func TestCapitalised(t *testing.T) {
	tests := []struct {
		text, name string
		want       bool
	}{
		{"Cumpleaños de mi hermano Martín: 9 de septiembre.", "martin", true},
		{"Martín's birthday", "martin", true},
		{"linux/macos/windows matrix", "window", false},
		{"outside that window", "window", false},
	}
	for _, tt := range tests {
		if got := capitalised(tt.text, tt.name); got != tt.want {
			t.Errorf("capitalised(%q, %q) = %v, want %v", tt.text, tt.name, got, tt.want)
		}
	}
}

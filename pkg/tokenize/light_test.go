package tokenize

import "testing"

func TestIsLight(t *testing.T) {
	tests := []struct {
		word  string
		light bool
	}{
		{"get", true},
		{"got", true}, // as a term: an inflection is its verb
		{"using", true},
		{"made", true},
		{"usa", true},
		{"homelab", false}, // control: what a question is about
		{"chart", false},
		{"deploy", false},
		{"want", false}, // a preference's own verb
	}
	for _, tt := range tests {
		terms := Terms(tt.word)
		if len(terms) != 1 {
			t.Fatalf("Terms(%q) = %v, want one term", tt.word, terms)
		}
		if got := IsLight(terms[0]); got != tt.light {
			t.Errorf("IsLight(%q as %q) = %v, want %v", tt.word, terms[0], got, tt.light)
		}
	}
}

package recall

import (
	"testing"
)

// TestSubstantive: a question's function verbs are set aside from what a
// memory holds of it, unless they are all it holds.
func TestSubstantive(t *testing.T) {
	terms := []string{"go", "wrong", "migrat"} // "what went wrong during the migration?"
	tests := []struct {
		name          string
		matched, want uint64
	}{
		{"the verb and the noun: the noun", 0b101, 0b100},
		{"the noun alone", 0b100, 0b100},
		{"nothing but the verb: the verb", 0b001, 0b001},
		{"no verb", 0b110, 0b110},
	}
	for _, tt := range tests {
		if got := substantive(tt.matched, terms, nil); got != tt.want {
			t.Errorf("%s: substantive(%b) = %b, want %b", tt.name, tt.matched, got, tt.want)
		}
	}
}

// TestNamesAreNotLight: "Go" written as a name is the language, not the
// light verb (store's TestGoWrittenAsANameRanks shows what it changes).
func TestNamesAreNotLight(t *testing.T) {
	if light("go", []string{"go"}) || !light("go", nil) {
		t.Fatalf("light: a name is not light, the verb is")
	}
}

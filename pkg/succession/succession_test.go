package succession

import (
	"testing"
)

// TestSuccessionConfidence is the inference policy's table: no piece of
// evidence links alone; together they do, with a confidence that grows
// with them.
func TestSuccessionConfidence(t *testing.T) {
	tests := []struct {
		name string
		e    Evidence
		link bool
	}{
		{"nothing in common", Evidence{}, false},
		{"a change cue alone", Evidence{Cue: true}, false},
		{"a concept alone", Evidence{Concept: true}, false},
		{"a concept and a cue", Evidence{Concept: true, Cue: true}, false},
		{"one rare word and a concept", Evidence{Rare: 1, Similarity: 0.1, Concept: true}, false},
		{"two rare words in a short memory", Evidence{Rare: 2, Similarity: 0.6}, true},
		{"a concept, its value in both, a cue", Evidence{Similarity: 0.15, Concept: true, Value: true, Cue: true}, true},
		{"one rare word, a concept with values, a cue", Evidence{Rare: 1, Similarity: 0.1, Concept: true, Value: true, Cue: true}, true},
		{"one common word, a concept with values, a cue", Evidence{Similarity: 0.06, Concept: true, Value: true, Cue: true}, false},
		{"the same, with one name given two versions", Evidence{Similarity: 0.06, Concept: true, Value: true, Cue: true, Versioned: true}, true},
		{"two rare words, a concept, a cue", Evidence{Rare: 2, Similarity: 0.12, Concept: true, Cue: true}, false},
		{"the same, one of them said to be gone", Evidence{Rare: 2, Similarity: 0.12, Concept: true, Cue: true, Removed: true}, true},
		{"mostly the same words", Evidence{Rare: 4, Similarity: 0.9, Concept: true, Cue: true, Value: true}, true},
	}
	prev := 0.0
	for _, tt := range tests {
		c := Confidence(tt.e)
		if (c > 0) != tt.link || c < 0 || c > 1 {
			t.Errorf("%s: confidence %v, want a link: %v", tt.name, c, tt.link)
		}
		if tt.link {
			prev = c
		}
	}
	if prev != 1 {
		t.Errorf("the strongest evidence gives confidence %v, want 1", prev)
	}
}

func TestSubjectName(t *testing.T) {
	tests := []struct{ text, name string }{
		{"Lucía has moved from VS Code to Helix.", "lucia"},
		{"Carmen se ha mudado a Santander.", "carmen"},
		{"Carmen Soler ya no vive en Bilbao.", "carmen"},
		// A sentence's first word is as often a verb or an adjective.
		{"Reinstalled the podman-compose plugin on salina.", ""},
		{"Personal notes live in an Obsidian vault.", ""},
		{"Replaced Recharts with ECharts.", ""},
		{"Mi hermana Carmen vive en Bilbao.", ""},
	}
	for _, tt := range tests {
		if got := SubjectName(tt.text); got != tt.name {
			t.Errorf("SubjectName(%q) = %q, want %q", tt.text, got, tt.name)
		}
	}
}

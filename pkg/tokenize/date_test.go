package tokenize

import (
	"slices"
	"testing"
)

func TestISODateMeetsTheDateInWords(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // among Tokens(text)
		not        []string // never among them
	}{
		{"opening date", "2023-05-05 Ana: we moved", []string{"2023", "05", "may", "5", "ana", "move"}, nil},
		{"date inside text", "on 2024-11-30, shipped", []string{"2024", "11", Stem("november"), "30", "ship"}, []string{"2024-11-30"}},
		{"a two-digit day keeps both digits", "2022-01-23", []string{"2022", "01", Stem("january"), "23"}, nil},
		// Positive controls above, negatives here: only a real date is read as one.
		{"no month 13", "2023-13-05", []string{"2023", "13", "05"}, monthStems()},
		{"no day 32", "2023-05-32", []string{"2023", "05", "32"}, monthStems()},
		{"not a date: letters follow", "2023-05-05x", []string{"2023", "05", "05x"}, monthStems()},
		{"not a date: five-digit year", "12023-05-05", []string{"12023", "05"}, monthStems()},
		{"not a date: letters before", "v2023-05-05", []string{"v2023"}, monthStems()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokens(tt.text)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("Tokens(%q) = %q, want %q among them", tt.text, got, w)
				}
			}
			for _, w := range tt.not {
				if slices.Contains(got, w) {
					t.Errorf("Tokens(%q) = %q, want no %q", tt.text, got, w)
				}
			}
		})
	}
}

func monthStems() []string {
	var out []string
	for _, m := range monthNames {
		out = append(out, Stem(m))
	}
	return out
}

func TestQuestionsInWordsFindTheISODate(t *testing.T) {
	memory := Tokens("2023-05-05 Ana: we went to the lake")
	for _, q := range []string{
		"What did Ana do on 5 May 2023?",
		"What did Ana do on May 5, 2023?",
		"¿Qué hizo Ana el 5 de mayo de 2023?",
	} {
		for _, term := range Terms(q) {
			switch term {
			case "do", "what", "hizo", "que": // not in the memory, and not what this is about
				continue
			}
			if !slices.Contains(memory, term) {
				t.Errorf("%q: term %q is not in the memory's tokens %q", q, term, memory)
			}
		}
	}
	// A different month is not the same date.
	if slices.Contains(memory, Stem("june")) {
		t.Errorf("the memory of May has June's term: %q", memory)
	}
}

func TestWontIsNotWon(t *testing.T) {
	tests := []struct {
		in        string
		want, not []string
	}{
		{"She won the final", []string{"win", "final"}, []string{"won"}},
		{"She wins finals", []string{"win", "final"}, nil},
		{"She won't play the final", []string{"play", "final"}, []string{"win", "won"}},
		{"She WON’T play the final", []string{"play", "final"}, []string{"win", "won"}},
		{"We met at the Won'ty", []string{"meet"}, nil}, // not a contraction: "won" stays a word
	}
	for _, tt := range tests {
		got := Terms(tt.in)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Terms(%q) = %q, want %q among them", tt.in, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("Terms(%q) = %q, want no %q", tt.in, got, w)
			}
		}
	}
	if got := Terms("won't"); !slices.Equal(got, []string{"won", "t"}) {
		t.Errorf(`Terms("won't") = %q: a query of nothing but stop words still searches for them`, got)
	}
}

func TestYesterdayInADatedText(t *testing.T) {
	tests := []struct {
		name, text string
		want, not  []string // among Tokens(text), and never among them
	}{
		{"yesterday", "2022-03-17 James: yesterday I went bowling", []string{"16", Stem("march"), "17"}, nil},
		{"last night", "2022-05-02 Jo: we watched it last night!", []string{"1", Stem("may"), "2"}, nil},
		{"across a month and a year", "2023-01-01 Ana: Yesterday was the party", []string{"2022", "12", Stem("december"), "31"}, nil},
		{"Spanish", "2024-06-10 Ana: ayer fuimos al río", []string{"9", Stem("june")}, nil},
		// Positive controls above; nothing resolved below.
		{"no date to anchor it", "yesterday I went bowling", []string{"yesterday"}, []string{"16", Stem("march")}},
		{"last alone", "2022-03-17 the last game", []string{"17"}, []string{"16"}},
		{"night alone", "2022-03-17 a quiet night", []string{"17"}, []string{"16"}},
		{"the date comes after", "yesterday, 2022-03-17, was fun", []string{"17"}, []string{"16"}},
		{"a date inside the text", "We ship on 2024-06-01; yesterday we froze the branch", []string{"1", Stem("june")}, []string{"31", Stem("may")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokens(tt.text)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("Tokens(%q) = %q, want %q among them", tt.text, got, w)
				}
			}
			for _, w := range tt.not {
				if slices.Contains(got, w) {
					t.Errorf("Tokens(%q) = %q, want no %q", tt.text, got, w)
				}
			}
		})
	}
}

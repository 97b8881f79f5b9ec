package tokenize

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"Málaga CAFÉ niño", []string{"malaga", "cafe", "nino"}},
		// Parts of an identifier are stemmed like words; the joined form is
		// not, so the exact identifier still matches exactly.
		{"parseHTTPRequests", []string{"pars", "http", "request", "parsehttprequests"}},
		{"snake_case_name", []string{"snake", "case", "name"}},
		{"kebab-case", []string{"kebab", "case"}},
		{"utf8 k8s IPv6", []string{"utf8", "k8s", "i", "pv6", "ipv6"}},
		{"PostgreSQL 17", []string{"postgr", "sql", "postgresql", "17"}},
		{"Straße Øresund Łódź", []string{"strass", "oresund", "lodz"}}, // folded, then stemmed
		{"", nil},
		{"  \t\n ", nil},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTermsDropsStopWordsUnlessNothingElse(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Where do I live?", []string{"live"}},
		{"¿Dónde vivo yo?", []string{"vivo"}},
		{"the the cache caching cached", []string{"cach"}},
		{"Where did they live? She lived in Lyon", []string{"live", "lyon"}},
		{"who am I", []string{"who", "am", "i"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Terms(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClipKeepsUTF8(t *testing.T) {
	long := ""
	for i := 0; i < 40; i++ {
		long += "ñ"
	}
	for _, tok := range Tokens(long + "x") {
		if len(tok) > MaxTermLen {
			t.Fatalf("token of %d bytes exceeds MaxTermLen", len(tok))
		}
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"parseHTTPRequest", "Málaga", "lived livING Lives", "trabajando comiendo canciones rápidamente", "a_b-c", "\xff\xfe", "ÀÉÎõü", "x" + string(rune(0x301))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := map[string]bool{}
		for _, tok := range Tokens(s) {
			if tok == "" || len(tok) > MaxTermLen {
				t.Fatalf("bad token %q from %q", tok, s)
			}
			toks[tok] = true
		}
		// The query side must look for exactly what the index side stores.
		for _, term := range Terms(s) {
			if !toks[term] {
				t.Fatalf("Terms(%q) has %q, which Tokens does not", s, term)
			}
		}
	})
}

func BenchmarkTokens(b *testing.B) {
	text := "2024-03-11 We decided to move the staging database to PostgreSQL 17 because parseHTTPRequest was slow; Málaga office agrees."
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Tokens(text)
	}
}

// TestSplitCamelASCII: the ASCII fast path splits exactly as splitCamel.
func TestSplitCamelASCII(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	const chars = "aBcDxYz09AZaz"
	for range 50000 {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		w := string(b)
		if got, want := splitCamelASCII(w, nil), splitCamel(w); !reflect.DeepEqual(got, want) {
			t.Fatalf("splitCamelASCII(%q) = %q, splitCamel = %q", w, got, want)
		}
	}
}

// TestLexiconFilter: the filter in front of the lexicon never turns away a
// word the lexicon holds (that would change terms), and does turn away
// others (or it would be no use).
func TestLexiconFilter(t *testing.T) {
	for w := range lexicon {
		if !inLexiconFilter(w) {
			t.Errorf("the filter turns away lexicon word %q", w)
		}
	}
	for w := range stopWords {
		if !inLexiconFilter(w) {
			t.Errorf("the filter turns away stop word %q", w)
		}
	}
	turnedAway := 0
	for _, w := range []string{"postgres", "deploy", "staging", "x9", "9x", "", "migration", "kubernetes"} {
		if !inLexiconFilter(w) {
			turnedAway++
		}
	}
	if turnedAway < 6 {
		t.Errorf("the filter turned away only %d of 8 ordinary words", turnedAway)
	}
	for r := range rune(utf8.RuneSelf) {
		if asciiWord[r] != isWordRune(r) {
			t.Errorf("asciiWord[%q] = %v", r, asciiWord[r])
		}
	}
}

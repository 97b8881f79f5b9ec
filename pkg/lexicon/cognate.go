package lexicon

import (
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// cognates returns the spellings the same word may have in the other
// language, as terms: Spanish adds a vowel where English ends in a
// consonant ("event"/"evento", "future"/"futuro", "client"/"cliente",
// "automatic"/"automático") and writes -ción for -tion. They are guesses:
// the caller keeps only those its memories hold.
func cognates(t string) []string {
	n := len(t)
	// Shorter words are more often other words in their own language
	// ("state" is not "stat", "theme" not "them").
	if n < 5 || !plainASCII(t) {
		return nil
	}
	var guesses []string
	switch t[n-1] {
	case 'a', 'e', 'o':
		if n >= 6 {
			guesses = append(guesses, tokenize.Stem(t[:n-1]))
		}
	default:
		guesses = append(guesses, t+"o", t+"a", t+"e")
	}
	if strings.HasSuffix(t, "cion") && n >= 7 {
		guesses = append(guesses, tokenize.Stem(t[:n-4]+"tion"))
	}
	out := guesses[:0]
	for _, g := range guesses {
		if g != t && !tokenize.IsStopWord(g) {
			out = append(out, g)
		}
	}
	return out
}

func plainASCII(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] < 'a' || t[i] > 'z' {
			return false
		}
	}
	return true
}

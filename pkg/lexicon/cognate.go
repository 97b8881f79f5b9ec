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
	if n < 4 || !plainASCII(t) {
		return nil
	}
	var out []string
	switch t[n-1] {
	case 'a', 'e', 'o':
		if n >= 5 {
			out = append(out, tokenize.Stem(t[:n-1]))
		}
	default:
		out = append(out, t+"o", t+"a", t+"e")
	}
	if strings.HasSuffix(t, "cion") && n >= 7 {
		out = append(out, tokenize.Stem(t[:n-4]+"tion"))
	}
	if strings.HasSuffix(t, "at") && n >= 6 {
		out = append(out, t[:n-2]+"acion")
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

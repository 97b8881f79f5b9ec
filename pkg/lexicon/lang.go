package lexicon

import (
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Language tells English from Spanish by their function words: "es" when
// a text has more Spanish ones than English ones, else "en". Words both
// languages use ("a": an article, a preposition) count for neither. A memory in
// one language corrects one in the other only through the glossary; two in
// the same language are compared word for word.
func Language(text string) string {
	var es, en float64
	for _, w := range tokenize.Words(text) {
		switch {
		case spanishWords[w]:
			es++
		case englishWords[w]:
			en++
		}
	}
	// An accented word or an ñ is half a sign of Spanish: English text
	// names people and places that have them ("Lucía lives in…").
	for _, w := range strings.Fields(text) {
		if strings.ContainsAny(w, "áéíóúñÁÉÍÓÚÑ¿¡") {
			es += 0.5
		}
	}
	if es > en {
		return "es"
	}
	return "en"
}

var spanishWords, englishWords = wordSet(`el la los las del al de que y en un una unos unas por para con se es
	son está están su sus lo le ya pero como más muy también porque cuando donde hay`),
	wordSet(`the an of to and in on at is are was were for with it its this that by from be has have
	but as not or when where there which`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range tokenize.Words(words) {
		m[w] = true
	}
	return m
}

package lexicon

import (
	_ "embed"
	"strings"
	"sync"
)

// wordnetText is the distilled WordNet 3.0 subset: synonym sets of common
// English words, chosen by how often each sense is used in WordNet's own
// tagged corpus (scripts/wordnet-distil says how), one set a line. The
// licence asks every copy to carry its notice: WORDNET-LICENSE.
//
//go:embed wordnet.txt
var wordnetText string

// synonyms is wordnetText as related terms, built once: every lexicon
// shares it.
var synonyms = sync.OnceValue(func() related {
	var groups [][]string
	for line := range strings.Lines(wordnetText) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			groups = append(groups, strings.Fields(line))
		}
	}
	return relate(groups)
})

package tokenize

// IsStopWord reports whether t (already tokenized: lower-case, folded) is a
// word too common in English or Spanish to tell memories apart.
func IsStopWord(t string) bool {
	if !inLexiconFilter(t) { // every stop word is in the lexicon
		return false
	}
	_, ok := stopWords[t]
	return ok
}

// stopWords is deliberately short: function words only. Content words that
// happen to be frequent ("use", "project") stay searchable, because for a
// memory of decisions they are often what the user asks about.
var stopWords = func() map[string]struct{} {
	words := []string{
		// English
		"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
		"had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself",
		"no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves",
		"out", "over", "own", "s", "same", "she", "should", "so", "some", "such", "t", "than", "that", "the",
		"their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through",
		"to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
		"while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
		"ll", "re", "ve", "d", "m", "don", "didn", "doesn", "isn", "wasn", "aren", "weren",
		// Spanish (accent-folded, as tokens are)
		"al", "algo", "ante", "antes", "aqui", "como", "con", "contra", "cual", "cuando", "de", "del", "desde",
		"donde", "dos", "el", "ella", "ellas", "ellos", "en", "entre", "era", "eres", "es", "esa", "ese", "eso",
		"esta", "estaba", "estado", "estan", "estar", "este", "esto", "estoy", "fue", "ha", "hay", "la", "las",
		"le", "les", "lo", "los", "mas", "mi", "mis", "mucho", "muy", "nada", "ni", "nos", "nosotros", "o",
		"otra", "otro", "para", "pero", "poco", "por", "porque", "que", "quien", "se", "sea", "ser", "si",
		"sin", "sobre", "son", "su", "sus", "tambien", "te", "tengo", "ti", "tu", "tus", "un", "una", "uno",
		"unos", "unas", "y", "ya", "yo",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

package tokenize

// IsLight reports whether t (a term as Terms returns it) is a light word:
// a verb or noun so general that it says what the sentence does rather
// than what it is about ("get", "use", "make", "thing"). Such a word is in
// memories about anything, so its rarity in one store says little of what
// a question asks; ranking gives it less weight than its IDF alone would.
// It stays a term, and a memory that matches it still matches it: a
// question made only of light words ("what do I use?") keeps them all.
func IsLight(t string) bool {
	_, ok := lightWords[t]
	return ok
}

// lightWords are stems of the most polysemous English verbs and generic
// nouns, and of their commonest Spanish counterparts' forms, as tokens
// are (accent-folded).
var lightWords = func() map[string]struct{} {
	words := []string{
		// English
		"get", "use", "make", "run", "go", "take", "put", "give", "come",
		"keep", "let", "look", "thing", "stuff", "way", "sure", "actual",
		// Spanish
		"usar", "usa", "usan", "uso", "usamo", "hacer", "hace", "hacen", "hago", "tener", "tien",
		"tienen", "poner", "pone", "ponen", "dar", "da", "ir", "va", "vamo",
		"llevar", "lleva", "cosa", "manera", "forma",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

package tokenize

// A light suffix stemmer for English and Spanish, written for this index.
//
// It is deliberately a function of the word alone: the index stems a
// memory's words and the query stems its own the same way, whatever the
// language of the surrounding text, so a Spanish word in an English query
// still meets itself. Nothing guesses a language per text.
//
// Precision matters more than reach: a wrong conflation ("mother"/"moth")
// makes unrelated memories match, while a missed one ("mudé"/"mudanza") only
// leaves a memory as findable as it was before stemming. So the rules are the
// well-understood inflections — English plurals, -ed, -ing, the common
// irregular verbs and plurals, a few derivational suffixes (-ly, -ness,
// -ment, -ful, -ation, and -ate after a stem of two syllables or more, so
// "recommendation" meets "recommend" but "state" and "late" stay), Spanish
// -ción/-ciones, -mente and the gerund and participle endings — each with a
// minimum stem, and nothing touches agent nouns (-er), adjectives in -al or
// -ive, or Spanish infinitives.
//
// Stems need not be words ("live" and "lived" become "live", "happy" and
// "happiness" become "happi"): they only have to be equal for one family and
// different across families.

// stemExceptions are words the rules would conflate with another family, or
// irregular forms of a very common word.
var stemExceptions = map[string]string{
	"news":       "news",
	"goes":       "go",
	"going":      "go",
	"dying":      "die",
	"lying":      "lie",
	"tying":      "tie",
	"evening":    "evening",   // not "even"
	"candidate":  "candidate", // not "candid"
	"candidates": "candidate",
	"literate":   "literate", // not "liter"
	"evenings":   "evening",
	"business":   "business", // not "busy"
	"witness":    "witness",
	"harness":    "harness",
}

// irregular maps irregular English forms to their base form, whose stem
// they then share: "bought" meets "buy", "children" meets "child". Forms
// that are also common words or names of another meaning ("left", "saw",
// "found", "led", "fed", "sat", "drew") are left out; "won" is in, once
// "won't" no longer reads as it (see negated), and so is "met".
var irregular = func() map[string]string {
	pairs := []string{
		"went", "go", "gone", "go", "made", "make", "took", "take", "taken", "take",
		"seen", "see", "bought", "buy", "got", "get", "gotten", "get", "gave", "give",
		"given", "give", "came", "come", "thought", "think", "told", "tell", "said", "say",
		"knew", "know", "known", "know", "felt", "feel", "kept", "keep", "began", "begin",
		"begun", "begin", "brought", "bring", "wrote", "write", "written", "write",
		"stood", "stand", "lost", "lose", "paid", "pay", "ran", "run", "held", "hold",
		"taught", "teach", "caught", "catch", "built", "build", "sent", "send",
		"spent", "spend", "fell", "fall", "fallen", "fall", "chose", "choose",
		"chosen", "choose", "drove", "drive", "driven", "drive", "ate", "eat",
		"eaten", "eat", "drank", "drink", "sang", "sing", "sung", "sing", "swam", "swim",
		"swum", "swim", "flew", "fly", "flown", "fly", "grew", "grow", "grown", "grow",
		"threw", "throw", "thrown", "throw", "wore", "wear", "worn", "wear", "sold", "sell",
		"heard", "hear", "understood", "understand", "slept", "sleep", "woke", "wake",
		"woken", "wake", "broke", "break", "broken", "break", "spoke", "speak",
		"spoken", "speak", "forgot", "forget", "forgotten", "forget", "rode", "ride",
		"ridden", "ride", "drawn", "draw", "became", "become",
		"fought", "fight", "shook", "shake", "shaken", "shake", "stole", "steal",
		"stolen", "steal", "froze", "freeze", "frozen", "freeze", "meant", "mean",
		"children", "child", "women", "woman", "men", "man", "people", "person",
		"feet", "foot", "teeth", "tooth",
		"won", "win", "met", "meet",
	}
	m := make(map[string]string, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}()

// lexEntry is what the tokenizer knows of a word before any rule: whether
// it is a stop word, and its stem when the rules would get it wrong.
type lexEntry struct {
	stop bool
	stem string
}

// lexicon merges the stop words, the exceptions and the irregular forms,
// so tokenizing a word costs one map lookup before the rules run.
var lexicon = func() map[string]lexEntry {
	m := make(map[string]lexEntry, len(stopWords)+len(stemExceptions)+len(irregular))
	for w := range stopWords {
		m[w] = lexEntry{stop: true}
	}
	for w, s := range stemExceptions {
		m[w] = lexEntry{stem: s}
	}
	for w, base := range irregular {
		m[w] = lexEntry{stem: stemRules(base)}
	}
	for i, w := range spanishMonths {
		m[w] = lexEntry{stem: stemRules(monthNames[i])}
	}
	return m
}()

// lexiconFilter answers, before any hashing, for most words that they are
// not in the lexicon: a lexicon word of length n starting with letter f
// sets bit l of lexiconFilter[n][f] for its last letter l. Tokenizing asks
// about every word, and most words are not in it.
var lexiconFilter = func() (f [lexiconMaxLen + 1][26]uint32) {
	for w := range lexicon {
		n := len(w)
		if n == 0 || n > lexiconMaxLen || !isLowerLetter(w[0]) || !isLowerLetter(w[n-1]) {
			panic("tokenize: the lexicon filter cannot hold " + w) // TestLexiconFilter says which
		}
		f[n][w[0]-'a'] |= 1 << (w[n-1] - 'a')
	}
	return f
}()

// lexiconMaxLen bounds the length of a lexicon word.
const lexiconMaxLen = 16

func isLowerLetter(c byte) bool { return c >= 'a' && c <= 'z' }

// inLexiconFilter reports whether t may be in the lexicon; false means it
// is not.
func inLexiconFilter(t string) bool {
	n := len(t)
	if n == 0 || n > lexiconMaxLen || !isLowerLetter(t[0]) || !isLowerLetter(t[n-1]) {
		return false
	}
	return lexiconFilter[n][t[0]-'a']&(1<<(t[n-1]-'a')) != 0
}

// Stem returns the stem of one lower-case, accent-folded word. Words that
// are not plain ASCII letters (numbers, identifiers with digits, other
// scripts) are returned unchanged, as are words of fewer than three letters.
func Stem(w string) string {
	if !stemmable(w) {
		return w
	}
	if e := lexicon[w]; e.stem != "" {
		return e.stem
	}
	return stemRules(w)
}

func stemmable(w string) bool {
	if len(w) < 3 || len(w) > MaxTermLen {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func stemRules(w string) string {
	if s, ok := stemSpanish(w); ok {
		return s
	}
	return stemEnglish(w)
}

// stemSpanish handles the endings that are Spanish and (nearly) never
// English. Gerunds and participles go to the infinitive, so "trabajando",
// "trabajado" and "trabajar" meet; -er and -ir verbs cannot be told apart
// from the gerund or participle, so both go to -er ("comiendo", "comido" →
// "comer"), and an -ir infinitive is left as it is rather than risk
// rewriting English words in -ir.
func stemSpanish(w string) (string, bool) {
	n := len(w)
	switch w[n-1] {
	case 'a', 'e', 'n', 'o', 's': // the last letters of every ending below
	default:
		return "", false
	}
	switch {
	case hasSuffix(w, "ciones") && n-6 >= 2:
		return w[:n-2], true // canciones → cancion
	case hasSuffix(w, "cion"):
		return w, true // an English rule must not touch it
	case hasSuffix(w, "mente") && n-5 >= 4:
		return stemRules(w[:n-5]), true // rápidamente → the stem of rápida
	case hasSuffix(w, "iendo") && spanishStem(w[:n-5]):
		return w[:n-5] + "er", true
	case hasSuffix(w, "ando") && spanishStem(w[:n-4]):
		return w[:n-4] + "ar", true
	}
	for _, e := range [...]struct{ suffix, inf string }{
		{"ados", "ar"}, {"adas", "ar"}, {"ado", "ar"}, {"ada", "ar"},
		{"idos", "er"}, {"idas", "er"}, {"ido", "er"}, {"ida", "er"},
	} {
		if hasSuffix(w, e.suffix) && spanishStem(w[:n-len(e.suffix)]) {
			return w[:n-len(e.suffix)] + e.inf, true
		}
	}
	return "", false
}

// spanishStem: at least three letters with a vowel, so "lado", "vida",
// "grado" and "ruido" stay whole.
func spanishStem(s string) bool {
	if len(s) < 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'a', 'e', 'i', 'o', 'u':
			return true
		}
	}
	return false
}

// stemEnglish removes inflections (step 1), then light derivational
// suffixes (step 2), then a final silent e (step 3), using the measure of
// the stem (its count of vowel–consonant sequences) to tell "hoping" (hope)
// from "hopping" (hop) and "care" from "car".
func stemEnglish(w string) string {
	switch w[len(w)-1] {
	case 's', 'd', 'g', 'y', 'n', 't', 'l', 'i', 'e': // the last letters of every rule below
	default:
		return w
	}
	var buf [MaxTermLen + 2]byte
	b := append(buf[:0], w...)

	// Step 1a: plurals and third person.
	switch {
	case endsWith(b, "sses"):
		b = b[:len(b)-2]
	case endsWith(b, "ies") || endsWith(b, "ied"):
		if len(b) > 4 {
			b = append(b[:len(b)-3], 'i') // studies, studied → studi
		} else {
			b = b[:len(b)-1] // ties, tied → tie
		}
	case endsWith(b, "ss") || endsWith(b, "us"):
	case endsWith(b, "s") && hasVowel(b[:len(b)-2]):
		b = b[:len(b)-1]
	}

	// Step 1b: -ed, -ing (and -eed, which is agreed → agree but not need).
	switch {
	case endsWith(b, "eed"):
		if measure(b[:len(b)-3]) > 0 {
			b = b[:len(b)-1]
		}
	case endsWith(b, "ed") && hasVowel(b[:len(b)-2]):
		b = restoreStem(b[:len(b)-2])
	case endsWith(b, "ing") && hasVowel(b[:len(b)-3]):
		b = restoreStem(b[:len(b)-3])
	}

	// Step 1c: a final y after a consonant becomes i, so "study" meets
	// "studies"; "by" and "play" keep theirs.
	if n := len(b); n > 2 && b[n-1] == 'y' && isCons(b, n-2) {
		b[n-1] = 'i'
	}

	// Step 2: derivational suffixes, repeated so "carefully" loses -li and
	// then -ful.
	for range 3 {
		var ok bool
		if b, ok = derivational(b); !ok {
			break
		}
	}

	// Step 3: drop a silent e, except after a short syllable where it
	// tells "care" from "car" and "hope" from "hop".
	if n := len(b); n > 1 && b[n-1] == 'e' {
		if m := measure(b[:n-1]); m > 1 || (m == 1 && !shortSyllable(b[:n-1])) {
			b = b[:n-1]
		}
	}

	if len(b) <= len(w) && string(b) == w[:len(b)] {
		return w[:len(b)] // a prefix of the word: no allocation
	}
	return string(b)
}

// derivational removes one derivational suffix from b, if it has one.
func derivational(b []byte) ([]byte, bool) {
	n := len(b)
	switch b[n-1] {
	case 'n', 's', 't', 'l', 'i', 'e': // the last letters of the suffixes below
	default:
		return b, false
	}
	switch {
	case endsWith(b, "ate") && measure(b[:n-3]) > 1:
		return b[:n-3], true // recommendate (from -ation) → recommend, passionate → passion
	case endsWith(b, "ization") && measure(b[:n-7]) > 0:
		return append(b[:n-5], 'e'), true // organization → organize
	case endsWith(b, "ation") && n-5 >= 3 && hasVowel(b[:n-5]):
		return append(b[:n-4], 't', 'e'), true // education → educate
	case endsWith(b, "ness") && n-4 >= 3 && measure(b[:n-4]) > 0:
		return b[:n-4], true
	case endsWith(b, "ment") && n-4 >= 4 && measure(b[:n-4]) > 0:
		return b[:n-4], true
	case endsWith(b, "ful") && n-3 >= 3 && measure(b[:n-3]) > 0:
		return b[:n-3], true
	case endsWith(b, "li") && n-2 >= 4 && measure(b[:n-2]) > 0:
		return b[:n-2], true // quickly → quick (its y is an i since step 1c)
	}
	return b, false
}

// restoreStem repairs a stem after -ed or -ing came off: "creat" → create,
// "hopp" → hop, "hop" (from hoping) → hope.
func restoreStem(b []byte) []byte {
	n := len(b)
	switch {
	case endsWith(b, "at") || endsWith(b, "bl") || endsWith(b, "iz"):
		return append(b, 'e')
	case n >= 2 && b[n-1] == b[n-2] && isCons(b, n-1) && b[n-1] != 'l' && b[n-1] != 's' && b[n-1] != 'z':
		return b[:n-1]
	case measure(b) == 1 && shortSyllable(b):
		return append(b, 'e')
	}
	return b
}

// isCons reports whether b[i] is a consonant; y is one at the start of a
// word or after a vowel.
func isCons(b []byte, i int) bool {
	switch b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isCons(b, i-1)
	}
	return true
}

func hasVowel(b []byte) bool {
	for i := range b {
		if !isCons(b, i) {
			return true
		}
	}
	return false
}

// measure counts the vowel→consonant transitions of b: m in [C](VC)^m[V].
func measure(b []byte) int {
	m := 0
	prevVowel := false
	for i := range b {
		c := isCons(b, i)
		if c && prevVowel {
			m++
		}
		prevVowel = !c
	}
	return m
}

// shortSyllable: b ends consonant–vowel–consonant (the last not w, x or y),
// or b is a vowel and a consonant ("us" in "using").
func shortSyllable(b []byte) bool {
	n := len(b)
	if n == 2 {
		return !isCons(b, 0) && isCons(b, 1)
	}
	if n < 3 || !isCons(b, n-1) || isCons(b, n-2) || !isCons(b, n-3) {
		return false
	}
	switch b[n-1] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

func endsWith(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

func hasSuffix(w, s string) bool {
	return len(w) >= len(s) && w[len(w)-len(s):] == s
}

package facts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a byte range of the text being read.
type span struct{ start, end int }

// sentence is the unit sentence patterns run on. Questions are kept so
// that offsets stay simple, but no sentence pattern reads them: "Do I live
// in Madrid?" states nothing.
type sentence struct {
	span
	line     int
	question bool
}

// splitLines returns the non-blank lines of text without their line
// breaks. Lines are hard boundaries: a header's value is the rest of its
// line, and a bullet never runs into the next one. Hard-wrapped prose loses
// the facts it wraps across lines; memories saved by agents rarely wrap.
func splitLines(text string) []span {
	var out []span
	start := 0
	for start <= len(text) {
		i := strings.IndexAny(text[start:], "\n\r")
		end := len(text)
		if i >= 0 {
			end = start + i
		}
		s, e := trimSpan(text, start, end)
		if s < e {
			out = append(out, span{s, e})
		}
		if i < 0 {
			break
		}
		start = end + 1
	}
	return out
}

// trimSpan narrows [start,end) past white space on both sides.
func trimSpan(text string, start, end int) (int, int) {
	for start < end {
		r, n := utf8.DecodeRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	return start, end
}

// abbreviations end in a period that does not end a sentence. Single
// letters ("e.g.", "J. Smith") are handled apart.
var abbreviations = map[string]bool{
	"etc": true, "vs": true, "dr": true, "dra": true, "mr": true, "mrs": true, "ms": true,
	"sr": true, "sra": true, "srta": true, "prof": true, "approx": true, "aprox": true, "ej": true,
	"no": true, "núm": true, "num": true,
}

// appendSentences splits one line into sentences: a sentence ends at '.',
// '!', '?' or '…' followed by a space or the end of the line, so the dots
// inside "PostgreSQL 17.2", "node.js" or "db2.internal" do not end one.
// The terminal punctuation is left out of the span.
func appendSentences(dst []sentence, text string, line span, lineIdx int) []sentence {
	start := line.start
	emit := func(end int, question bool) {
		s, e := trimSpan(text, start, end)
		if s < e {
			q := question || strings.HasPrefix(text[s:e], "¿")
			dst = append(dst, sentence{span{s, e}, lineIdx, q})
		}
	}
	for i := line.start; i < line.end; i++ {
		c := text[i]
		var width int
		switch {
		case c == '.' || c == '!' || c == '?':
			width = 1
		case c == 0xE2 && strings.HasPrefix(text[i:line.end], "…"):
			width = len("…")
		default:
			continue
		}
		next := i + width
		// Runs of punctuation ("?!", "...") end together.
		for next < line.end && strings.IndexByte(".!?", text[next]) >= 0 {
			next++
		}
		closer := next
		for closer < line.end && strings.IndexByte(`"')]*`, text[closer]) >= 0 {
			closer++
		}
		if closer < line.end && text[closer] != ' ' && text[closer] != '\t' {
			i = next - 1
			continue
		}
		if c == '.' && width == 1 && next == i+1 && isAbbreviation(text[line.start:i]) {
			continue
		}
		emit(i, strings.IndexByte(text[i:next], '?') >= 0)
		start = closer
		i = closer - 1
	}
	emit(line.end, false)
	return dst
}

// isAbbreviation reports whether the word that ends before a period is one
// that keeps the sentence going.
func isAbbreviation(before string) bool {
	j := len(before)
	for j > 0 {
		r, n := utf8.DecodeLastRuneInString(before[:j])
		if !unicode.IsLetter(r) {
			break
		}
		j -= n
	}
	w := before[j:]
	if w == "" {
		return false
	}
	if utf8.RuneCountInString(w) == 1 {
		return true
	}
	return abbreviations[strings.ToLower(w)]
}

// word is one white-space separated word of a captured group, with its
// offsets in the sentence.
type word struct {
	start, end int
	lower      string // lower case, surrounding punctuation removed
}

// appendWords appends the white-space separated words of s[lo:hi] to
// out. lower, if not empty, is s with ASCII letters lower-cased (same
// offsets), from which all-ASCII words take their lower case without
// allocating.
func appendWords(out []word, s, lower string, lo, hi int) []word {
	i := lo
	for i < hi {
		if n := spaceAt(s, i, hi); n > 0 {
			i += n
			continue
		}
		j := i
		for j < hi {
			if spaceAt(s, j, hi) > 0 {
				break
			}
			j++
		}
		var lw string
		if lower != "" {
			lw = trimPunct(lower[i:j])
			if !isASCII(lw) {
				lw = strings.ToLower(lw)
			}
		} else {
			lw = strings.ToLower(trimPunct(s[i:j]))
		}
		out = append(out, word{i, j, lw})
		i = j
	}
	return out
}

// spaceAt returns the length of the white-space rune at offset i of s, or
// 0 if there is none.
func spaceAt(s string, i, hi int) int {
	c := s[i]
	if c < utf8.RuneSelf {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:hi])
	if unicode.IsSpace(r) {
		return n
	}
	return 0
}

// trimPunct trims what is neither letter nor digit from both ends of s,
// with a fast path for ASCII.
func trimPunct(s string) string {
	for len(s) > 0 && s[0] < utf8.RuneSelf && !isAlnum(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] < utf8.RuneSelf && !isAlnum(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && (s[0] >= utf8.RuneSelf || s[len(s)-1] >= utf8.RuneSelf) {
		return strings.TrimFunc(s, isPunct)
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isPunct(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// nextWord returns the offset of the first word that starts after offset i.
func nextWord(s string, i int) int {
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if unicode.IsSpace(r) {
			break
		}
		j += n
	}
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsSpace(r) {
			break
		}
		j += n
	}
	if j == i {
		j = len(s)
	}
	return j
}

// blockers are words that, right before a match, turn a statement into a
// negation, a question or a hypothesis: "ya no vivo en Madrid", "if the
// staging database is PostgreSQL 17", "maybe we use Redis for caching".
var blockers = map[string]bool{
	"not": true, "never": true, "no": true, "don't": true, "dont": true, "doesn't": true,
	"didn't": true, "won't": true, "wouldn't": true, "isn't": true, "aren't": true,
	"if": true, "unless": true, "whether": true, "maybe": true,
	"perhaps": true, "might": true, "should": true, "could": true, "would": true,
	"nunca": true, "jamás": true, "si": true, "quizá": true, "quizás": true,
	"quizas": true, "quiza": true, "ojalá": true, "ojala": true, "supongamos": true,
}

// determiners start a noun phrase; NormalizeSubject strips them and the
// generic "X is Y" patterns require one, so that a statement about a
// specific thing ("the staging database is PostgreSQL 17") counts while a
// generality ("tests are slow") does not.
var determiners = map[string]bool{
	"the": true, "our": true, "my": true, "this": true, "these": true, "those": true,
	"el": true, "la": true, "los": true, "las": true, "mi": true, "mis": true,
	"nuestro": true, "nuestra": true, "nuestros": true, "nuestras": true,
	"este": true, "esta": true, "estos": true, "estas": true, "ese": true, "esa": true,
}

// stripWords are what NormalizeSubject removes from the front of a subject:
// the determiners plus articles and possessives that do not by themselves
// make a phrase specific.
var stripWords = func() map[string]bool {
	m := map[string]bool{
		"a": true, "an": true, "that": true, "your": true, "their": true, "his": true, "her": true, "its": true,
		"un": true, "una": true, "unos": true, "unas": true, "tu": true, "tus": true, "su": true, "sus": true,
		"esos": true, "esas": true, "aquel": true, "aquella": true,
	}
	for w := range determiners {
		m[w] = true
	}
	return m
}()

// pronouns never stand for a subject or a value on their own: "it listens
// on port 80" and "we use it for testing" name nothing a later correction
// could refer to.
var pronouns = map[string]bool{
	"i": true, "me": true, "you": true, "he": true, "she": true, "it": true, "we": true, "they": true,
	"them": true, "us": true, "him": true, "her": true, "this": true, "that": true, "these": true,
	"those": true, "there": true, "here": true, "which": true, "who": true, "what": true, "something": true,
	"anything": true, "everything": true, "nothing": true, "not": true, "whatever": true, "one": true,
	"yo": true, "tú": true, "tu": true, "él": true, "ella": true, "ellos": true, "ellas": true, "nosotros": true,
	"eso": true, "esto": true, "ello": true, "lo": true, "que": true, "quien": true, "algo": true, "nada": true,
	"todo": true, "cual": true,
}

// breakers are words a noun phrase does not contain; a lazily matched
// subject that holds one started too early ("my guess is that the staging
// database") and is cut to what follows the last of them.
var breakers = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "am": true,
	"that": true, "which": true, "who": true, "and": true, "but": true, "or": true, "so": true,
	"because": true, "if": true, "when": true, "while": true, "since": true, "think": true, "said": true,
	"says": true, "then": true, "also": true,
	"es": true, "son": true, "era": true, "fue": true, "que": true, "y": true, "pero": true, "o": true,
	"porque": true, "si": true, "cuando": true, "mientras": true, "dijo": true, "creo": true, "luego": true,
}

// notNames are capitalised words that start sentences rather than names:
// "Yesterday Ana became the tech lead" is about Ana.
var notNames = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "that": true, "our": true, "my": true, "it": true,
	"he": true, "she": true, "we": true, "they": true, "you": true, "i": true, "yesterday": true,
	"today": true, "tomorrow": true, "now": true, "update": true, "also": true, "so": true, "then": true,
	"note": true, "fyi": true, "since": true, "as": true, "from": true, "starting": true, "and": true,
	"but": true, "after": true, "there": true, "here": true, "what": true, "who": true, "everyone": true,
	"nobody": true, "someone": true, "el": true, "la": true, "los": true, "las": true, "un": true,
	"una": true, "mi": true, "nuestro": true, "nuestra": true, "este": true, "esta": true, "ahora": true,
	"hoy": true, "ayer": true, "mañana": true, "desde": true, "nota": true, "también": true,
	"además": true, "según": true, "y": true, "pero": true, "luego": true, "yo": true, "él": true,
	"ella": true, "nadie": true, "alguien": true, "todos": true,
}

// leadingJunk are words a value can begin with that are not part of it:
// "Now Neovim is my editor", "the build is now green".
var leadingJunk = map[string]bool{
	"now": true, "so": true, "then": true, "also": true, "just": true, "actually": true,
	"currently": true, "still": true, "finally": true, "officially": true,
	"ahora": true, "pues": true, "entonces": true, "también": true, "actualmente": true,
	"ya": true, "todavía": true, "finalmente": true, "oficialmente": true,
}

// trailingJunk are words a value cannot end with; cutting a value at a
// stop word can leave one behind ("Valencia with the" → "Valencia").
var trailingJunk = map[string]bool{
	"the": true, "a": true, "an": true, "of": true, "to": true, "for": true, "in": true, "on": true,
	"at": true, "and": true, "or": true, "with": true, "by": true, "is": true, "are": true, "as": true,
	"el": true, "la": true, "los": true, "las": true, "un": true, "una": true, "de": true, "del": true,
	"en": true, "con": true, "y": true, "o": true, "para": true, "por": true, "que": true, "es": true,
	"al": true, "como": true,
}

// leadingArticles are stripped from the front of a value when written in
// lower case ("I moved to the Netherlands" → "Netherlands") and kept when
// capitalised, where they belong to a name ("The Hague").
var leadingArticles = []string{"the ", "a ", "an ", "el ", "la ", "los ", "las ", "un ", "una "}

// subjectAliases give the people memories are about one name each, in
// either language.
var subjectAliases = map[string]string{
	"i": "user", "me": "user", "we": "user", "us": "user", "yo": "user", "nosotros": "user",
	"user": "user", "usuario": "user", "usuaria": "user", "user's": "user", "users": "user",
	"patient": "patient", "paciente": "patient",
}

// NormalizeSubject turns a subject as written into the form facts and
// timelines key on: lower case, accents kept, white space collapsed,
// leading articles, determiners and possessives removed ("The staging
// database" → "staging database"), and the person the memory belongs to
// called "user" ("I", "el usuario").
func NormalizeSubject(s string) string {
	fs := strings.Fields(strings.ToLower(s))
	for len(fs) > 1 && stripWords[fs[0]] {
		fs = fs[1:]
	}
	for len(fs) > 0 {
		last := strings.TrimRightFunc(fs[len(fs)-1], isPunct)
		if last != "" {
			fs[len(fs)-1] = last
			break
		}
		fs = fs[:len(fs)-1]
	}
	out := strings.Join(fs, " ")
	if a, ok := subjectAliases[out]; ok {
		return a
	}
	return out
}

// trimValue narrows [lo,hi) of s past white space, quotes, emphasis
// and, at the end, sentence punctuation.
func trimValue(s string, lo, hi int) (int, int) {
	for {
		olo, ohi := lo, hi
		lo, hi = trimSpan(s, lo, hi)
		for lo < hi {
			r, n := utf8.DecodeRuneInString(s[lo:hi])
			if !strings.ContainsRune("\"'`*_“”‘’«»¡¿", r) {
				break
			}
			lo += n
		}
		for hi > lo {
			r, n := utf8.DecodeLastRuneInString(s[lo:hi])
			if !strings.ContainsRune("\"'`*_“”‘’«».,:;!?)]", r) {
				break
			}
			hi -= n
		}
		if lo == olo && hi == ohi {
			return lo, hi
		}
	}
}

// hasDigit reports whether s contains an ASCII digit.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// codeLike reports whether s looks like an identifier, host name, path or
// version: punctuation between letters or digits ("db2.internal",
// "node.js", "pg_bouncer", "Europe/Madrid").
func codeLike(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if strings.IndexByte("./_@:+#-", s[i]) >= 0 && isAlnum(s[i-1]) && isAlnum(s[i+1]) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// startsUpper reports whether s begins with an upper-case letter.
func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

package facts

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
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
var abbreviations = words.Set("sentence_abbreviations")

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
var blockers = words.Set("fact_blockers")

// determiners start a noun phrase; NormalizeSubject strips them and the
// generic "X is Y" patterns require one, so that a statement about a
// specific thing ("the staging database is PostgreSQL 17") counts while a
// generality ("tests are slow") does not.
var determiners = words.Set("determiners")

// stripWords are what NormalizeSubject removes from the front of a subject:
// the determiners plus articles and possessives that do not by themselves
// make a phrase specific.
var stripWords = func() map[string]bool {
	m := words.Set("subject_strip_words")
	for w := range determiners {
		m[w] = true
	}
	return m
}()

// pronouns never stand for a subject or a value on their own: "it listens
// on port 80" and "we use it for testing" name nothing a later correction
// could refer to.
var pronouns = words.Set("pronouns")

// breakers are words a noun phrase does not contain; a lazily matched
// subject that holds one started too early ("my guess is that the staging
// database") and is cut to what follows the last of them.
var breakers = words.Set("phrase_breakers")

// notNames are capitalised words that start sentences rather than names:
// "Yesterday Ana became the tech lead" is about Ana.
var notNames = words.Set("not_names")

// leadingJunk are words a value can begin with that are not part of it:
// "Now Neovim is my editor", "the build is now green".
var leadingJunk = words.Set("value_leading_junk")

// trailingJunk are words a value cannot end with; cutting a value at a
// stop word can leave one behind ("Valencia with the" → "Valencia").
var trailingJunk = words.Set("value_trailing_junk")

// leadingArticles are stripped from the front of a value when written in
// lower case ("I moved to the Netherlands" → "Netherlands") and kept when
// capitalised, where they belong to a name ("The Hague").
var leadingArticles = func() []string {
	out := words.List("value_articles")
	for i, a := range out {
		out[i] = a + " "
	}
	return out
}()

// subjectAliases give the people memories are about one name each, in
// either language.
var subjectAliases = func() map[string]string {
	m := map[string]string{}
	for name, list := range map[string]string{"user": "user_aliases", "patient": "patient_aliases"} {
		for _, w := range words.List(list) {
			m[w] = name
		}
	}
	return m
}()

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

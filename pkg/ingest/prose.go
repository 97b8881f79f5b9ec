package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// pline is one line of prose as the splitters see it.
type pline struct {
	off, end int    // [off, end) including the line end
	text     string // trimmed content
	blank    bool
	fenced   bool // inside or delimiting a ``` / ~~~ block: never a boundary
	heading  int  // markdown (ATX or setext) heading level 1-6, 0 if none
	under    bool // the ===/--- under a setext heading
	chapter  bool // "Chapter 3", "Capítulo IV", "Prologue"
	sep      bool // a scene break: ***, ---, ___, * * *
}

// proseLines classifies every line of text.
func proseLines(text string) []pline {
	starts := lineStarts(text)
	ls := make([]pline, len(starts))
	fence := ""
	for i, o := range starts {
		e := lineEnd(starts, i, len(text))
		t := trimLine(text[o:e])
		l := &ls[i]
		*l = pline{off: o, end: e, text: t, blank: t == ""}
		if f := fenceMark(t); f != "" && (fence == "" || strings.HasPrefix(t, fence)) {
			if fence == "" {
				fence = f
			} else if strings.TrimLeft(t, f[:1]) == "" {
				fence = ""
			}
			l.fenced = true
			continue
		}
		if fence != "" {
			l.fenced, l.blank = true, false
			continue
		}
		switch {
		case l.blank:
		case isSeparator(t):
			l.sep = true
		case atxLevel(t) > 0:
			l.heading = atxLevel(t)
		case isChapter(t):
			l.chapter = true
		}
	}
	// Setext headings: one text line after a blank (or the start), then a
	// line of = or -.
	for i := 1; i < len(ls); i++ {
		u := ls[i].text
		if ls[i].fenced || u == "" || (strings.Trim(u, "=") != "" && strings.Trim(u, "-") != "") {
			continue
		}
		p := &ls[i-1]
		if p.blank || p.fenced || p.heading > 0 || p.sep || (i >= 2 && !ls[i-2].blank) {
			continue
		}
		p.heading = 1
		if u[0] == '-' {
			p.heading = 2
		}
		ls[i].sep, ls[i].under = false, true
	}
	return ls
}

// fenceMark returns the fence a line opens or closes (``` or ~~~, three
// or more), or "".
func fenceMark(t string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// isSeparator reports a scene break: three or more of one of * - _ (spaces
// allowed between), or a lone centred "#" or "§".
func isSeparator(t string) bool {
	if t == "#" || t == "§" || t == "⁂" {
		return true
	}
	if t == "" || strings.IndexByte("*-_=~", t[0]) < 0 {
		return false
	}
	s := strings.ReplaceAll(t, " ", "")
	if len(s) < 3 {
		return false
	}
	c := s[0]
	if c != '*' && c != '-' && c != '_' && c != '=' && c != '~' {
		return false
	}
	return strings.Trim(s, s[:1]) == ""
}

// atxLevel returns the level of a "# Heading" line, or 0.
func atxLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(t) || (t[n] != ' ' && t[n] != '\t') {
		return 0
	}
	return n
}

var chapterWords = words.Set("doc_chapter_words")
var chapterAlone = words.Set("doc_chapter_alone")
var numberWords = words.Set("number_words")

// isChapter reports a chapter line: "Chapter 3", "CHAPTER IV: The Road",
// "Capítulo tres", "Prologue".
func isChapter(t string) bool {
	if len(t) > 80 {
		return false
	}
	t = strings.Trim(t, "*_ ")
	// Most lines fail on their first word: look at it before folding.
	w := t
	for i, r := range t {
		if !unicode.IsLetter(r) {
			w = t[:i]
			break
		}
	}
	if len(w) < 3 || len(w) > 14 {
		return false
	}
	if fw := foldASCII(w); !chapterWords[fw] && !chapterAlone[fw] {
		return false
	}
	f := strings.FieldsFunc(foldASCII(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(f) == 0 || len(f) > 10 {
		return false
	}
	if chapterAlone[f[0]] {
		return true
	}
	if !chapterWords[f[0]] || len(f) < 2 {
		return false
	}
	n := f[1]
	if numberWords[n] || strings.Trim(n, "0123456789") == "" || strings.Trim(n, "ivxlcdm") == "" {
		return true
	}
	return false
}

// splitProse splits narrative (hard: scene breaks, chapters and headings
// are boundaries, and an oversized paragraph is split between sentences)
// or generic text (paragraphs; headings stay with what follows).
func splitProse(text string, max int, narrative bool) []unit {
	ls := proseLines(text)
	var out []unit
	heading := -1 // offset of a pending heading that glues to what follows
	hard := false
	headTitle := ""
	emit := func(u unit) {
		if heading >= 0 {
			u.start = heading
			u.title = headTitle
			heading, headTitle = -1, ""
		}
		u.hard = u.hard || hard
		hard = false
		out = append(out, u)
	}
	for _, ch := range chunks(ls, narrative) {
		start, end := ls[ch.from].off, ls[ch.to-1].end
		first := ls[ch.from]
		switch {
		case first.heading > 0 || (narrative && first.chapter):
			if heading < 0 {
				heading, headTitle = start, strings.TrimSpace(strings.TrimLeft(first.text, "#"))
				if narrative {
					hard = true
				}
			}
			continue
		case narrative && first.sep:
			if heading >= 0 { // a heading then a break: keep them together
				emit(unit{start: start, end: end})
			} else if len(out) > 0 {
				out[len(out)-1].end = end
			} else {
				out = append(out, unit{start: start, end: end})
			}
			hard = true
			continue
		}
		if narrative && len(strings.TrimSpace(text[start:end])) > max && !anyFenced(ls[ch.from:ch.to]) {
			for _, s := range sentences(text, start, end) {
				emit(unit{start: s[0], end: s[1], weak: firstWords(text[s[0]:s[1]], 8)})
			}
			continue
		}
		emit(unit{start: start, end: end, weak: firstWords(text[start:end], 8)})
	}
	if heading >= 0 { // a heading at the very end
		out = append(out, unit{start: heading, end: len(text), hard: hard, title: headTitle})
	}
	return out
}

func anyFenced(ls []pline) bool {
	for _, l := range ls {
		if l.fenced {
			return true
		}
	}
	return false
}

// chunk is a run of lines: one paragraph (or fenced block, heading or
// break) with the blank lines after it.
type chunk struct{ from, to int }

// chunks groups lines into paragraphs. A heading, chapter line or scene
// break is a chunk of its own even without blank lines around it; a fenced
// block never breaks.
func chunks(ls []pline, narrative bool) []chunk {
	var out []chunk
	special := func(l pline) bool {
		return !l.fenced && (l.heading > 0 || l.sep || (narrative && l.chapter))
	}
	for i := 0; i < len(ls); {
		j := i
		switch {
		case ls[i].blank:
			for j < len(ls) && ls[j].blank {
				j++
			}
		case special(ls[i]):
			j++
			if ls[i].heading > 0 && j < len(ls) && ls[j].under {
				j++
			}
		default:
			for j < len(ls) && !ls[j].blank && !(j > i && special(ls[j])) {
				j++
			}
		}
		for j < len(ls) && ls[j].blank {
			j++
		}
		out = append(out, chunk{i, j})
		i = j
	}
	return out
}

// sentences cuts text[start:end] between sentences; pack puts them back
// together up to the limit. Each sentence keeps the white space after it.
// A period after an abbreviation or an initial ("Dr.", "J.") does not end
// a sentence, nor does one followed by a lower-case word.
func sentences(text string, start, end int) [][2]int {
	var out [][2]int
	s := text[start:end]
	from := 0
	for i := 0; i < len(s); {
		r, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		if r != '.' && r != '!' && r != '?' && r != '…' {
			continue
		}
		j := i
		for j < len(s) {
			q, qs := utf8.DecodeRuneInString(s[j:])
			if !strings.ContainsRune("\"'”’»)]", q) {
				break
			}
			j += qs
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
			k++
		}
		if k == j || k >= len(s) {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(s[k:]); !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("\"'“‘«¿¡(—-", next)) {
			continue
		}
		if r == '.' && abbreviation(s[:i-1]) {
			continue
		}
		out = append(out, [2]int{start + from, start + k})
		from = k
	}
	return append(out, [2]int{start + from, end})
}

var abbreviations = words.Set("prose_abbreviations")

// abbreviation reports whether the word ending s is an abbreviation or an
// initial, whose period does not end a sentence.
func abbreviation(s string) bool {
	i := len(s)
	for i > 0 && len(s)-i < 16 {
		r, sz := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		i -= sz
	}
	w := strings.ToLower(s[i:])
	if w == "" {
		return false
	}
	return abbreviations[w] || utf8.RuneCountInString(w) == 1
}

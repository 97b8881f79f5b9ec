package ingest

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// Detect classifies a text by type and domain. A known source extension
// decides at once; otherwise lexical signals do, read from the first 64 KiB
// (8 KiB for a programming language) in English and Spanish: language
// keywords and shebangs for code without an extension,
// clinical vocabulary and section labels, ingredients and oven words for
// recipes, operational words for runbooks, dates at line starts for
// journals and chats, chapters and dialogue for narrative, and the first
// person for personal notes. Anything else is generic.
//
// Detection is a heuristic and says so: callers that know better pass
// Options.Type and Options.Domain to Split.
func Detect(name, text string) Detection {
	ext := strings.ToLower(filepath.Ext(name))
	if lang, ok := extLanguages[ext]; ok {
		return Detection{Type: TypeCode, Domain: "software." + lang, Language: lang}
	}
	s := sample(text)
	if lang := shebang(s); lang != "" {
		return Detection{Type: TypeCode, Domain: "software." + lang, Language: lang}
	}
	if !proseExt[ext] {
		if lang := guessLanguage(s); lang != "" {
			return Detection{Type: TypeCode, Domain: "software." + lang, Language: lang}
		}
	}
	return detectProse(s)
}

var extLanguages = map[string]string{
	".go": "go", ".py": "python", ".pyw": "python", ".pyi": "python",
	".java": "java", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp",
	".hh": "cpp", ".hxx": "cpp", ".ino": "cpp", ".cs": "csharp", ".rs": "rust", ".kt": "kotlin",
	".kts": "kotlin", ".swift": "swift", ".php": "php",
	// Code without a scanner here: split like generic text, but known as code.
	".sh": "shell", ".bash": "shell", ".zsh": "shell", ".sql": "sql", ".rb": "ruby", ".lua": "lua",
	".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json", ".xml": "xml", ".html": "html",
	".css": "css", ".proto": "protobuf", ".tf": "terraform", ".dockerfile": "dockerfile",
}

// proseExt are markup files: code inside them is an example in a document.
var proseExt = wordSet(".md", ".markdown", ".rst", ".org", ".adoc")

func shebang(s string) string {
	if !strings.HasPrefix(s, "#!") {
		return ""
	}
	line := s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		line = s[:i]
	}
	for _, c := range []struct{ word, lang string }{
		{"python", "python"}, {"node", "javascript"}, {"deno", "typescript"}, {"php", "php"},
		{"bash", "shell"}, {"/sh", "shell"}, {"zsh", "shell"}, {"ruby", "ruby"},
	} {
		if strings.Contains(line, c.word) {
			return c.lang
		}
	}
	return ""
}

// signal is one lexical clue for a language: a pattern, its weight, and
// how many matches count at most. lit is a substring every match holds:
// checking it first keeps the regular expressions off texts that cannot
// match, which is most of them.
type signal struct {
	lit    string
	re     *regexp.Regexp
	weight int
	cap    int
}

func sig(lit, pattern string, weight, cap int) signal {
	return signal{lit, regexp.MustCompile(pattern), weight, cap}
}

var languageSignals = map[string][]signal{
	"go": {sig("package ", `(?m)^package \w+\s*$`, 3, 1), sig("func ", `(?m)^func [\w(]`, 3, 3), sig(":= ", `:= `, 1, 3),
		sig("import ", `(?m)^import (\(|")`, 3, 1), sig("fmt.", `\bfmt\.\w+\(`, 2, 2), sig("err != nil", `err != nil`, 3, 2),
		sig("", `\bchan\b|\bgo func\(`, 2, 1)},
	"python": {sig("def ", `(?m)^\s*(async )?def \w+\(.*\).*:\s*$`, 3, 3), sig("class ", `(?m)^class \w+(\(.*\))?:\s*$`, 3, 2),
		sig("from ", `(?m)^from [\w.]+ import `, 3, 2), sig("import ", `(?m)^import \w+(\.\w+)*( as \w+)?\s*$`, 2, 2),
		sig("self.", `\bself\.\w+`, 1, 3), sig("elif ", `(?m)^\s*elif .*:\s*$`, 2, 1), sig("__", `__name__|__init__`, 2, 1),
		sig("None", `\bNone\b`, 1, 1)},
	"java": {sig("package ", `(?m)^package [\w.]+;`, 4, 1), sig("import ", `(?m)^import (static )?[\w.]+(\.\*)?;`, 3, 2),
		sig("public ", `\bpublic (static )?(final )?(abstract )?(class|interface|enum|record) \w+`, 3, 2),
		sig("System.out.", `System\.out\.`, 3, 1), sig("@Override", `@Override`, 2, 1),
		sig("public static void main(String", `public static void main\(String`, 4, 1),
		sig("", `\b(private|protected|public) (static )?(final )?[\w<>\[\], ]+ \w+\(`, 1, 3)},
	"javascript": {sig(" = ", `(?m)^\s*(const|let|var) \w+ = `, 1, 3), sig("function", `\bfunction\s*\w*\s*\(`, 2, 2),
		sig("=> ", `\) => \{|\w => `, 1, 2), sig("console.log(", `console\.log\(`, 3, 1), sig("require(", `\brequire\(['"]`, 3, 1),
		sig("module.exports", `module\.exports`, 3, 1), sig(" from ", `(?m)^import .* from ['"]`, 3, 1),
		sig("export ", `(?m)^export (default |const |function |class |async )`, 2, 1), sig("", `\b(document|window)\.\w+`, 2, 1),
		sig("===", `===`, 1, 2)},
	"typescript": {sig(": ", `: (string|number|boolean|any|void|unknown)\b`, 2, 3), sig("interface ", `(?m)^(export )?interface \w+`, 3, 1),
		sig("type ", `(?m)^(export )?type \w+(<.*>)? = `, 2, 1), sig(" from ", `(?m)^import .* from ['"]`, 2, 1),
		sig(": ", `\b(const|let) \w+: \w+`, 2, 1), sig("", `\bprivate readonly\b|\bas const\b`, 2, 1)},
	"c": {sig("#include", `(?m)^#include [<"]`, 3, 2), sig("int main(", `\bint main\(`, 3, 1), sig("printf(", `\bprintf\(`, 2, 1),
		sig("", `\b(malloc|free|sizeof)\(`, 2, 2), sig("->", `->`, 1, 2), sig("#define ", `(?m)^#define `, 2, 1),
		sig("NULL", `\bNULL\b`, 1, 1), sig("(", `(?m)^(static )?(void|int|char|unsigned|size_t|struct \w+) \*?\w+\(`, 2, 2)},
	"cpp": {sig("std::", `\bstd::`, 3, 2), sig("#include <", `#include <(iostream|vector|string|memory|map|algorithm)>`, 4, 1),
		sig("namespace ", `(?m)^namespace \w+`, 2, 1), sig("template", `\btemplate ?<`, 3, 1), sig(" <<", `\b(cout|cerr) <<`, 3, 1),
		sig("nullptr", `\bnullptr\b`, 2, 1), sig("class ", `(?m)^class \w+( final)?( : (public|private) \w+)?\s*\{?$`, 2, 1),
		sig("::", `::`, 1, 2)},
	"csharp": {sig("using System", `(?m)^using System`, 4, 1), sig("namespace ", `(?m)^namespace [\w.]+`, 2, 1),
		sig("Console.Write", `Console\.Write`, 3, 1), sig("get;", `\{ get; (private )?set; \}`, 4, 1),
		sig(" = new ", `\bvar \w+ = new `, 2, 1), sig("string[] args", `string\[\] args`, 2, 1),
		sig("public ", `\bpublic (static )?(async )?(void|Task|string|int|bool) \w+\(`, 2, 2)},
	"rust": {sig("fn ", `(?m)^\s*(pub(\(crate\))? )?fn \w+`, 3, 3), sig("let mut", `\blet mut\b`, 3, 1), sig("use ", `(?m)^use [\w:]+`, 2, 1),
		sig("impl", `(?m)^impl(<.*>)? \w+`, 3, 1), sig("println!(", `\bprintln!\(`, 3, 1), sig("&mut ", `&mut `, 2, 1),
		sig("<", `\b(Option|Result|Vec|Box)<`, 2, 2), sig("#[derive", `#\[derive`, 4, 1), sig("match ", `\bmatch .* \{`, 1, 1),
		sig(".unwrap()", `\.unwrap\(\)`, 2, 1)},
	"kotlin": {sig("fun ", `(?m)^\s*(private |override |suspend )*fun \w+`, 3, 3), sig("val ", `(?m)^\s*val \w+`, 2, 2),
		sig("data class", `\bdata class\b`, 4, 1), sig("companion object", `companion object`, 4, 1), sig(": Unit", `: Unit\b`, 2, 1),
		sig("?.let", `\?\.let\b`, 3, 1), sig("when (", `\bwhen \(`, 2, 1), sig("println(", `\bprintln\(`, 1, 1)},
	"swift": {sig("import ", `(?m)^import (Foundation|UIKit|SwiftUI|Combine)`, 5, 1), sig("func ", `(?m)^\s*(public |private )?func \w+`, 2, 2),
		sig("guard let", `\bguard let\b`, 4, 1), sig("if let", `\bif let\b`, 3, 1), sig("-> ", `-> \w+ \{`, 1, 1),
		sig("@", `@(IBOutlet|State|objc|Published|MainActor)`, 3, 1),
		sig(" {", `(?m)^\s*(struct|class|enum|protocol|extension) \w+(: [\w, ]+)? \{`, 1, 1)},
	"php": {sig("<?php", `<\?php`, 8, 1), sig("$this->", `\$this->`, 3, 1), sig("$", `\$\w+ = `, 2, 2), sig("echo ", `\becho `, 1, 1),
		sig("namespace ", `(?m)^namespace [\w\\]+;`, 3, 1), sig("use ", `(?m)^use [\w\\]+;`, 3, 1)},
}

// guessLanguage names the programming language of a text with no telling
// extension, or "" when it does not read like code: the best-scoring
// language must score well and enough lines must look like code, so prose
// that mentions "err != nil" stays prose.
func guessLanguage(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "<?php") {
		return "php"
	}
	if len(s) > 8<<10 { // plenty to tell a language by
		if i := strings.LastIndexByte(s[:8<<10], '\n'); i > 0 {
			s = s[:i+1]
		} else {
			s = s[:8<<10]
		}
	}
	if codeLineRatio(s) < 0.3 { // cheap, and most prose stops here
		return ""
	}
	best, score := "", 0
	scores := map[string]int{}
	for lang, sigs := range languageSignals {
		n := 0
		for _, g := range sigs {
			if g.lit != "" && !strings.Contains(s, g.lit) {
				continue
			}
			if m := len(g.re.FindAllStringIndex(s, g.cap)); m > 0 {
				n += m * g.weight
			}
		}
		scores[lang] = n
		if n > score || (n == score && lang < best) {
			best, score = lang, n
		}
	}
	if score < 6 {
		return ""
	}
	// TypeScript is JavaScript with types; C++ is C with more.
	if best == "javascript" && scores["typescript"] >= 4 {
		best = "typescript"
	}
	if best == "c" && scores["cpp"] >= 4 {
		best = "cpp"
	}
	return best
}

// codeLineRatio is the share of non-blank lines that look like code: they
// end in a bracket, a semicolon, a colon or a comma, or begin with a
// comment, a decorator or a closing bracket.
func codeLineRatio(s string) float64 {
	n, code := 0, 0
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		n++
		last := t[len(t)-1]
		switch {
		case strings.IndexByte("{}();:,[]", last) >= 0:
			code++
		case strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "@") ||
			strings.HasPrefix(t, "}") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*"):
			code++
		case strings.Contains(t, " = ") || strings.Contains(t, " := "):
			code++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(code) / float64(n)
}

// Lexical vocabularies, folded (lower case, no accents).
var (
	clinicalTerms    = words.Set("doc_clinical_terms")
	cookingTerms     = words.Set("doc_cooking_terms")
	runbookTerms     = words.Set("doc_runbook_terms")
	firstPersonTerms = words.Set("doc_first_person")
	narrativeTerms   = words.Set("doc_narrative_terms")
	diaryMarkers     = words.List("doc_diary_markers")
)

// isStep reports a numbered step: "1. Mix", "2) Bake", "Step 3", "Paso 4".
func isStep(t string) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t') {
		return true
	}
	for _, w := range []string{"step ", "paso "} {
		if len(t) > len(w) && strings.EqualFold(t[:len(w)], w) && t[len(w)] >= '0' && t[len(w)] <= '9' {
			return true
		}
	}
	return false
}

// isCommand reports a shell command line in a runbook.
func isCommand(t string) bool {
	for _, p := range []string{"$ ", "sudo ", "kubectl ", "systemctl ", "docker ", "git ", "curl ", "ssh "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// chatSpeaker returns the speaker of a chat line ("Caroline: hi", "[10:02]
// Ana López: hola"): one or two capitalised words before ": ".
func chatSpeaker(t string) string {
	if strings.HasPrefix(t, "[") {
		if j := strings.IndexByte(t, ']'); j > 0 && j <= 41 {
			t = strings.TrimLeft(t[j+1:], " \t")
		}
	}
	i := strings.Index(t, ": ")
	if i <= 0 || i > 42 || i+2 >= len(t) {
		return ""
	}
	name := t[:i]
	words := strings.Split(name, " ")
	if len(words) > 2 {
		return ""
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) || utf8.RuneCountInString(w) > 21 {
			return ""
		}
		for _, c := range w {
			if !unicode.IsLetter(c) && c != '.' && c != '\'' && c != '-' {
				return ""
			}
		}
	}
	return name
}

// detectProse classifies a text that is not code.
func detectProse(s string) Detection {
	folded := foldASCII(s)
	p := &proseSignals{s: s, folded: folded, speakers: map[string]int{}}
	p.words = strings.FieldsFunc(folded, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-'
	})
	p.tally(proseLines(s))
	return p.classify()
}

// proseSignals is what detectProse weighs: the text's words and counts of
// its telling lines.
type proseSignals struct {
	s, folded string
	words     []string // of folded

	// Line counts: see tally.
	dated, clinicalHeads, chapters, seps, nonBlank, steps, commands, chat int

	speakers map[string]int // chat lines by speaker
}

// tally counts the telling lines among ls: dated, steps, commands, chat,
// clinical headers, chapter lines and separators.
func (p *proseSignals) tally(ls []pline) {
	for _, l := range ls {
		if l.blank || l.fenced {
			continue
		}
		p.nonBlank++
		if isStep(l.text) {
			p.steps++
		}
		if isCommand(l.text) {
			p.commands++
		}
		if sp := chatSpeaker(l.text); sp != "" && !clinicalVocab[foldASCII(sp)] {
			p.speakers[sp]++
			p.chat++
		}
		if _, _, ok := dates.Opening(l.text); ok {
			p.dated++
		}
		if lbl, _, ok := labelLine(l.text); ok && clinicalVocab[foldASCII(lbl)] {
			p.clinicalHeads++
		}
		if l.chapter {
			p.chapters++
		}
		if l.sep {
			p.seps++
		}
	}
}

// distinct counts the words of vocab the text uses.
func (p *proseSignals) distinct(vocab map[string]bool) int {
	seen := map[string]bool{}
	for _, w := range p.words {
		if vocab[w] {
			seen[w] = true
		}
	}
	return len(seen)
}

// count counts the text's words that are in vocab.
func (p *proseSignals) count(vocab map[string]bool) int {
	n := 0
	for _, w := range p.words {
		if vocab[w] {
			n++
		}
	}
	return n
}

// classify decides the type and domain from the signals, the most telling
// first.
func (p *proseSignals) classify() Detection {
	folded, words, steps, nonBlank := p.folded, p.words, p.steps, p.nonBlank
	clinical := p.distinct(clinicalTerms)
	cooking := p.distinct(cookingTerms)
	runbook := p.distinct(runbookTerms)
	firstPerson := p.count(firstPersonTerms)
	personal := len(words) > 0 && float64(firstPerson)/float64(len(words)) >= 0.04
	diary := false
	for _, m := range diaryMarkers {
		if strings.Contains(folded, m) {
			diary = true
			break
		}
	}
	chat, speakers := p.chat, len(p.speakers)
	isChat := chat >= 3 && speakers <= 8 && chat >= nonBlank/3 && speakers < chat

	switch {
	case clinical >= 5 || (p.clinicalHeads >= 2 && clinical >= 2):
		return Detection{Type: TypeClinical, Domain: "medicine.clinical"}
	case cooking >= 4 && (strings.Contains(folded, "ingredient") || strings.Contains(folded, "precalent") ||
		strings.Contains(folded, "preheat") || steps >= 2):
		return Detection{Type: TypeProcess, Domain: "process.cooking"}
	case runbook >= 3 && (steps >= 2 || p.commands >= 1) && runbook >= cooking:
		return Detection{Type: TypeProcess, Domain: "process.runbook"}
	case p.dated >= 2 || (p.dated == 1 && nonBlank <= 6):
		if personal || isChat || diary {
			return Detection{Type: TypeTemporal, Domain: "personal"}
		}
		return Detection{Type: TypeTemporal, Domain: "general"}
	case isChat:
		return Detection{Type: TypeTemporal, Domain: "personal"}
	case diary && personal:
		return Detection{Type: TypeTemporal, Domain: "personal"}
	case p.chapters >= 1 || (p.seps >= 1 && nonBlank >= 6 && dialogue(p.s)) || (p.count(narrativeTerms) >= 8 && dialogue(p.s)):
		if personal {
			return Detection{Type: TypeNarrative, Domain: "personal"}
		}
		return Detection{Type: TypeNarrative, Domain: "literature"}
	case cooking >= 3 && steps >= 2:
		return Detection{Type: TypeProcess, Domain: "process.cooking"}
	case steps >= 3 && runbook >= 2:
		return Detection{Type: TypeProcess, Domain: "process.runbook"}
	case personal:
		return Detection{Type: TypeGeneric, Domain: "personal"}
	}
	return Detection{Type: TypeGeneric, Domain: "general"}
}

// dialogue reports quoted speech: curly or straight quotes, guillemets or
// a Spanish em-dash at a line start.
func dialogue(s string) bool {
	n := strings.Count(s, "“") + strings.Count(s, "«") + strings.Count(s, "\n—") + strings.Count(s, "\"")/2
	return n >= 2
}

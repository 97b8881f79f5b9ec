package words

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// notLanguage are the lists of words in Go code that are no language's
// knowledge, by file and first word: the program's own vocabulary (kinds,
// columns, commands, client names), code's (programming languages and
// keywords, file extensions, tools) and made-up syllables. A new list of English or
// Spanish words goes in words.json; one that is neither goes here.
var notLanguage = map[string]bool{
	"scripts/eval/set.go current":    true, // question kinds of the sets
	"scripts/bench/report.go leaves": true, // a table's columns
	"client/cli/context.go claude":   true, // agent clients
	"pkg/corpus/corpus.go zor":       true, // syllables of made-up words
	"pkg/facts/file.go term":         true, // pattern value kinds
	"pkg/screen/prose.go docker":     true, // container tools
	"pkg/ingest/brace.go namespace":  true, // programming keywords
	"pkg/ingest/brace.go pub":        true,
	"pkg/ingest/code.go class":       true,
	"pkg/ingest/code.go if":          true,
	"pkg/ingest/code.go default":     true,
	"pkg/ingest/code.go :":           true,
	"pkg/ingest/brace.go java":       true, // programming languages
	"pkg/ingest/detect.go go":        true,
	"pkg/ingest/detect.go .go":       true, // file extensions
	"pkg/ingest/detect.go .md":       true,
	"pkg/corpus/corpus.go .go":       true,
	"pkg/ingest/detect.go $ ":        true, // shell prompts
	"pkg/screen/prose.go sshpass":    true, // commands that take a password
	"pkg/facts/file.go ":             true, // pattern subject kinds
	"pkg/timeline/fold.go a":         true, // letters and their accented forms
	"client/cli/cli.go save":         true, // the CLI's commands
	"client/cli/help.go save":        true,
	"client/cli/ingest.go .git":      true, // directories an ingest skips
}

var lowerWord = regexp.MustCompile(`^[\p{Ll}' .-]*\p{Ll}[\p{Ll}' .-]*$`)

// wordLists returns, for each literal list of five strings or more that
// are mostly lower-case words in src, "path first-word".
func wordLists(t *testing.T, path string, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	check := func(elts []ast.Expr) {
		var strs []string
		for _, e := range elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Key
			}
			if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					strs = append(strs, s)
				}
			}
		}
		n := 0
		for _, s := range strs {
			if lowerWord.MatchString(s) {
				n++
			}
		}
		if n >= 5 && 10*n >= 7*len(strs) {
			out = append(out, path+" "+strs[0])
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CompositeLit:
			check(x.Elts)
		case *ast.CallExpr:
			if _, local := x.Fun.(*ast.Ident); local { // wordSet("…", …), not fmt.Printf
				check(x.Args)
			}
		}
		return true
	})
	return out
}

// TestNoWordListsInGoCode: English and Spanish word lists are data here,
// not Go code elsewhere (pkg/tokenize, the tokenizer's own, aside). The
// control: the same search finds a list planted in a file.
func TestNoWordListsInGoCode(t *testing.T) {
	if got := wordLists(t, "planted.go", []byte(`package x; var v = []string{"the", "a", "an", "el", "la"}`)); len(got) != 1 {
		t.Fatalf("control: a planted list of articles is found as %v", got)
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no module root at %s: %v", root, err)
	}
	files, seen := 0, map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", rel == "pkg/lexicon", rel == "pkg/tokenize", rel == "proto":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, l := range wordLists(t, rel, src) {
			seen[l] = true
			if !notLanguage[l] {
				t.Errorf("%s…: a list of words in Go code; put it in pkg/lexicon/words/words.json (or, if it is no language's words, in notLanguage)", l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for l := range notLanguage {
		if !seen[l] {
			t.Errorf("notLanguage names %q, which is no list any more: take it out", l)
		}
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: is that the module?", files, root)
	}
}

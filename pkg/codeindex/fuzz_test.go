package codeindex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: a path either resolves inside the root or is refused.
func FuzzResolve(f *testing.F) {
	root := f.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "b.go"), []byte("package a\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"a/b.go", "../x", "/etc/passwd", "a/../../b", "", ".", "a//b.go", "a/./b.go", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		abs, rel, err := Resolve(root, p)
		if err != nil {
			return
		}
		if !inside(root, abs) || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
			t.Fatalf("Resolve(%q) = %q, %q: outside %s", p, abs, rel, root)
		}
	})
}

// FuzzIgnore: any .gitignore parses, and matching never panics.
func FuzzIgnore(f *testing.F) {
	f.Add("*.log\n!keep.log\n/build/\n**/tmp\n[a-z]?.go\n\\#x\n", "deep/x/a.log")
	f.Add("[", "a")
	f.Fuzz(func(t *testing.T, gitignore, path string) {
		ig := ignores{"": parseIgnore(gitignore), "deep": parseIgnore(gitignore)}
		ig.ignored(path, false)
		ig.ignored(path, true)
	})
}

// FuzzSymbols: symbols lie inside the file, in order, with sane lines.
func FuzzSymbols(f *testing.F) {
	f.Add("x.go", "package a\n\nfunc A() {}\n\ntype T struct{ X int }\n")
	f.Add("x.py", "class A:\n    def f(self):\n        pass\n")
	f.Add("x.java", "class A {\n  void f() {}\n}\n")
	f.Fuzz(func(t *testing.T, name, text string) {
		_, syms := symbols(name, text)
		end := 0
		for _, s := range syms {
			if s.Start < end || s.End < s.Start || s.End > len(text) || s.First < 1 || s.Last < s.First {
				t.Fatalf("symbol %+v out of place (previous end %d, len %d)", s, end, len(text))
			}
			end = s.End
		}
	})
}

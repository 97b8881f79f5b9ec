package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// whole lists, per sample, logical blocks (functions, methods, literals
// full of braces) given as first-line and last-line markers: each must sit
// inside one block at every limit.
var codeSamples = []struct {
	file, lang string
	whole      [][2]string
	titles     []string // present at MaxBytes 1
}{
	{"sample.go", "go", [][2]string{
		{"package sample", `import "os"`},
		{"// Greeting has braces", "}}}\n`"},
		{"// Run runs the server.", "\treturn nil\n}"},
		{"func helper()", "os.Exit(0) }"},
		{"/* A block comment", "type Server struct {"},
	}, []string{"package sample", "Greeting", "Server", "Server.Name", "Server.Run", "Set.Add", "helper"}},
	{"sample.py", "python", [][2]string{
		{"#!/usr/bin/env python3", "import sys as system"},
		{"@decorator", "continued\""},
		{"# comment about method", "def fake():\n\"\"\""},
		{"s = '''", "    pass\n'''"},
		{"if __name__", "print(\"ok\")"},
	}, []string{"imports", "decorated", "Foo", "Foo.method", "Foo.prop", "Foo.attr", "__main__", "CONSTANT"}},
	{"Sample.java", "java", [][2]string{
		{"/*\n * License", "import java.util.Map;"},
		{"@Override", "System.out.println(\"{\" + C);\n    }"},
		{"public static void main", "new Sample().run();\n    }"},
		{"private final String block", "\"\"\";"},
		{"/**\n * Javadoc", "implements Runnable {"},
	}, []string{"package com.example.sample", "Sample", "Sample.run", "Sample.main", "Sample.S", "Other.x"}},
	{"sample.ts", "typescript", [][2]string{
		{"// A template literal", "} {`;"},
		{"export function f", "return `${x}${obj.k}`;\n}"},
		{"@Component({", "export class AppComponent {"},
		{"get value()", "return 1 }"},
	}, []string{"imports", "tpl", "re", "f", "AppComponent", "AppComponent.constructor", "AppComponent.value"}},
	{"sample.js", "javascript", [][2]string{
		{"/* comment with", "`${x} }`);\n}"},
		{"const b = ", "};"},
		{"get n()", "K.#count; }"},
	}, []string{"a", "b", "K", "K.n"}},
	{"sample.c", "c", [][2]string{
		{"/* License", "#include \"local.h\""},
		{"#define MULTI(x)", "while (0)"},
		{"#ifdef WIDE", "return a; /* } */\n}"},
		{"static int\ng(void)", "return '{' + '\\'' ;\n}"},
	}, []string{"imports", "BRACE", "MULTI", "s", "c", "point", "f", "g"}},
	{"sample.cpp", "cpp", [][2]string{
		{"// A raw string", "inside)delim\";"},
		{"int main()", "return 0;\n}"},
		{"T get() const", "// }"},
		{"template <typename T>", "class Box final : public Base<T> {"},
	}, []string{"imports", "raw", "demo", "demo.Box", "demo.Box.get", "main"}},
	{"sample.rs", "rust", [][2]string{
		{"//! Crate docs", "use std::collections::HashMap;"},
		{"const RAW: &str", "} braces\"#;"},
		{"fn fmt(&self", "still } */\n    }"},
		{"fn longest", "{ x } else { y }\n}"},
		{"#[derive(Debug, Clone)]", "pub struct Holder<'a> {"},
	}, []string{"imports", "RAW", "RAW2", "Holder", "impl fmt::Display for Holder", "fmt", "longest"}},
	{"Sample.kt", "kotlin", [][2]string{
		{"fun describe", "+ raw + c\n}"},
		{"val size: Int", "get() = repo.size"},
		{"fun run()", "println(\"run {\")\n    }"},
	}, []string{"package demo", "Point", "describe", "Service", "Service.size", "Service.run"}},
	{"Sample.swift", "swift", [][2]string{
		{"let raw = ", "interpolated)\"#"},
		{"let multi = ", "interpolation\n    \"\"\""},
		{"func describe", "2)) }\"\n}"},
		{"func inc()", "count += 1 }"},
	}, []string{"imports", "Point", "raw", "multi", "describe", "platform", "Model", "Model.inc"}},
	{"Sample.cs", "csharp", [][2]string{
		{"private const string V", "path\\\";"},
		{"private string I", "\"{\")}\";"},
		{"[Obsolete(", "Console.WriteLine(\"{0}\", Name);\n        }"},
		{"public string Raw()", "\"\"\";"},
	}, []string{"imports", "Demo", "Demo.Widget", "Demo.Widget.Run", "Demo.Widget.Name", "Demo.Widget.Raw"}},
	{"sample.php", "php", [][2]string{
		{"<?php", "use App\\Base;"},
		{"# a hash comment", "return $s . $t . $doc;\n}"},
		{"public function hi()", "'}']); }"},
	}, []string{"imports", "greet", "Greeter", "Greeter.hi"}},
}

// variants of a source that must split the same way: CRLF line ends, no
// final newline, a byte-order mark.
func variants(src string) map[string]string {
	return map[string]string{
		"lf":        src,
		"crlf":      strings.ReplaceAll(src, "\n", "\r\n"),
		"noeol":     strings.TrimRight(src, "\n"),
		"bom":       "\uFEFF" + src,
		"leadblank": "\n\n  \n" + src + "\n\n\n",
	}
}

func TestCodeReconstructionAndAtomicity(t *testing.T) {
	for _, cs := range codeSamples {
		raw, err := os.ReadFile(filepath.Join("testdata", cs.file))
		if err != nil {
			t.Fatal(err)
		}
		for vname, src := range variants(string(raw)) {
			for _, max := range []int{1, 40, 200, 4096, 1 << 20} {
				name := fmt.Sprintf("%s/%s/%d", cs.file, vname, max)
				det, blocks := Split(cs.file, src, Options{MaxBytes: max})
				if det.Type != TypeCode || det.Language != cs.lang || det.Domain != "software."+cs.lang {
					t.Fatalf("%s: detected %+v", name, det)
				}
				checkInvariant(t, src, det, blocks, max)
				for _, w := range cs.whole {
					from, to := w[0], w[1]
					if vname == "crlf" {
						from, to = strings.ReplaceAll(from, "\n", "\r\n"), strings.ReplaceAll(to, "\n", "\r\n")
					}
					want := span(t, src, from, to)
					if blockHolding(blocks, want) < 0 {
						t.Errorf("%s: %q is cut across blocks", name, clip(want, 60))
					}
				}
				if max == 1 && vname == "lf" {
					have := map[string]bool{}
					for _, b := range blocks {
						have[b.Title] = true
					}
					for _, title := range cs.titles {
						if !have[title] {
							var got []string
							for _, b := range blocks {
								got = append(got, b.Title)
							}
							t.Errorf("%s: no block titled %q; titles: %q", name, title, got)
						}
					}
				}
				if max >= 1<<20 && vname == "lf" && len(blocks) != 1 {
					t.Errorf("%s: %d blocks under a limit larger than the file, want 1", name, len(blocks))
				}
			}
		}
	}
}

// TestBracesInLiterals: a brace inside a literal or comment must not
// swallow the declaration after it (the pair splits into exactly two
// blocks at MaxBytes 1).
func TestBracesInLiterals(t *testing.T) {
	tests := []struct {
		lang, first, second string
	}{
		{"go", "var s = `{{{`", "func f() {}"},
		{"go", "var c = '{'", "func f() {}"},
		{"go", "/* { */ var x = \"{\"", "func f() {}"},
		{"python", "s = \"\"\"\ndef f():\n{\"\"\"", "def g():\n    pass"},
		{"python", "t = f\"{x:{w}}\" + f'{ {\"k\": 1}[\"k\"] }'", "def g():\n    pass"},
		{"python", "u = rb'\\'{'", "def g():\n    pass"},
		{"java", "String s = \"{\\\"\";", "void f() {}"},
		{"java", "char c = '{';", "void f() {}"},
		{"java", "String t = \"\"\"\n  {\n  \"\"\";", "void f() {}"},
		{"javascript", "const t = `${ {a: `${'}'}`} }`;", "function f() {}"},
		{"javascript", "const r = /[{]/g;", "function f() {}"},
		{"javascript", "const d = a / b; const e = c / d; // {", "function f() {}"},
		{"typescript", "let x: string = '{';", "export function f(): void {}"},
		{"c", "char c = '{';", "int f(void) { return 0; }"},
		{"c", "#define OPEN {", "int f(void) { return 0; }"},
		{"c", "const char *s = \"\\\"{\";", "int f(void) { return 0; }"},
		{"cpp", "auto s = R\"x({)x\";", "int f() { return 0; }"},
		{"cpp", "auto s = LR\"(})\"; long n = 1'000;", "int f() { return 0; }"},
		{"csharp", "string s = @\"{\"\"\";", "void F() {}"},
		{"csharp", "string s = $\"{a} {{ \";", "void F() {}"},
		{"rust", "const S: &str = r#\"\"{\"#;", "fn f() {}"},
		{"rust", "const C: char = '{';", "fn f<'a>(x: &'a str) {}"},
		{"rust", "/* /* { */ } */ const B: u8 = b'{';", "fn f() {}"},
		{"kotlin", "val s = \"\"\"{\"\"\"", "fun f() {}"},
		{"kotlin", "val t = \"${ \"{\" }\"", "fun f() {}"},
		{"swift", "let s = #\"{\"#", "func f() {}"},
		{"swift", "let t = \"\\( \"{\" )\"", "func f() {}"},
		{"php", "<?php\n$s = \"{$a['{']}\";", "function f() {}"},
		{"php", "<?php\n$h = <<<X\n{\nX;", "function f() {}"},
	}
	for _, tt := range tests {
		src := tt.first + "\n\n" + tt.second + "\n"
		det, blocks := Split("", src, Options{Domain: "software." + tt.lang, MaxBytes: 1})
		checkInvariant(t, src, det, blocks, 1)
		if len(blocks) != 2 || !strings.Contains(blocks[1].Text, tt.second) {
			var got []string
			for _, b := range blocks {
				got = append(got, b.Text)
			}
			t.Errorf("%s %q: blocks %q, want the declaration after it on its own", tt.lang, tt.first, got)
		}
	}
}

func TestGoImportsCoalesceAndBrokenSyntax(t *testing.T) {
	src := "// Package x.\npackage x\n\nimport \"a\"\n\nimport (\n\t\"b\"\n)\n\n// F does.\nfunc F() {}\n\nfunc G() {\n"
	det, blocks := Split("x.go", src, Options{MaxBytes: 1})
	checkInvariant(t, src, det, blocks, 1)
	if len(blocks) != 3 || !strings.Contains(blocks[0].Text, "import (") || !strings.HasPrefix(blocks[1].Text, "// F does.") {
		t.Fatalf("blocks %q", texts(blocks))
	}
	for _, broken := range []string{
		"package x\nfunc f() { `unterminated\n\nfunc g() {}\n",
		"package x\nfunc f() }}} {\n\nfunc g() {}\n",
		"package x\n/* unterminated comment\nfunc g() {}\n",
		"\x00\xff package ) ( func",
	} {
		det, blocks := Split("x.go", broken, Options{MaxBytes: 1})
		checkInvariant(t, broken, det, blocks, 1)
	}
}

func texts(blocks []Block) []string {
	out := make([]string, len(blocks))
	for i, b := range blocks {
		out[i] = b.Text
	}
	return out
}

// TestOversizedContainerSplitsPerMember: an oversized class leaves its
// header and closing brace as blocks of their own, and each member (or
// run of small members) carries the header as Context, not as text.
func TestOversizedContainerSplitsPerMember(t *testing.T) {
	member := func(lang string, i int) string {
		body := strings.Repeat("x", 60)
		switch lang {
		case "java":
			return fmt.Sprintf("    /** Doc %d. */\n    public int m%d() {\n        return \"%s\".length();\n    }\n\n", i, i, body)
		case "python":
			return fmt.Sprintf("    @staticmethod\n    def m%d():\n        return \"%s\"\n\n", i, body)
		case "rust":
			return fmt.Sprintf("    /// Doc %d.\n    pub fn m%d(&self) -> usize {\n        \"%s\".len()\n    }\n\n", i, i, body)
		case "go":
			return fmt.Sprintf("\t// M%d is a field.\n\tM%d string `json:\"%s\"`\n", i, i, body)
		}
		return ""
	}
	tests := []struct {
		lang, file, header, closing string
	}{
		{"java", "Big.java", "public final class Big<T> extends Base<T>\n        implements Runnable {\n", "}\n"},
		{"python", "big.py", "class Big(Base, metaclass=Meta):\n", ""},
		{"rust", "big.rs", "impl<T: Clone> Trait for Big<T> {\n", "}\n"},
		{"go", "big.go", "type Big struct {\n", "}\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		b.WriteString(tt.header)
		for i := range 40 {
			b.WriteString(member(tt.lang, i))
		}
		b.WriteString(tt.closing)
		src := "// a file\n\n" + b.String()
		if tt.lang == "go" {
			src = "package big\n\n" + b.String()
		}
		const max = 512
		det, blocks := Split(tt.file, src, Options{MaxBytes: max})
		checkInvariant(t, src, det, blocks, max)
		ctx := strings.TrimRight(tt.header, "\n")
		hdr := blockHolding(blocks, tt.header)
		if hdr < 0 || blocks[hdr].Context != "" {
			t.Fatalf("%s: header not in a block of its own: %q", tt.lang, texts(blocks))
		}
		members := 0
		for i, bl := range blocks {
			if i <= hdr {
				continue
			}
			members++
			if bl.Context != ctx {
				t.Errorf("%s: member block %d has context %q, want %q", tt.lang, i, bl.Context, ctx)
			}
			if strings.Contains(bl.Text, tt.header) || bl.Oversized {
				t.Errorf("%s: member block %d: oversized=%v text %q", tt.lang, i, bl.Oversized, bl.Text)
			}
		}
		if members < 5 {
			t.Errorf("%s: only %d member blocks", tt.lang, members)
		}
		// The closing line ends the last member's block: a block of only
		// "}" would be a search hit of nothing.
		if last := blocks[len(blocks)-1].Text; tt.closing != "" && (!strings.HasSuffix(last, tt.closing) || !strings.Contains(last, member(tt.lang, 39)) || strings.TrimSpace(last) == strings.TrimSpace(tt.closing)) {
			t.Errorf("%s: last block %q, want the last member followed by the closing line", tt.lang, last)
		}
		for i := range 40 {
			if m := member(tt.lang, i); blockHolding(blocks, m) < 0 {
				t.Errorf("%s: member %d cut", tt.lang, i)
			}
		}
	}
}

func TestOversizedNestedContainers(t *testing.T) {
	var b strings.Builder
	b.WriteString("namespace outer {\n\nclass Inner : public Base {\npublic:\n")
	for i := range 30 {
		fmt.Fprintf(&b, "    int f%d() { return %d; } // %s\n", i, i, strings.Repeat("y", 40))
	}
	b.WriteString("};\n\n}  // namespace outer\n")
	src := b.String()
	det, blocks := Split("n.cpp", src, Options{MaxBytes: 300})
	checkInvariant(t, src, det, blocks, 300)
	want := "namespace outer {\nclass Inner : public Base {"
	n := 0
	for _, bl := range blocks {
		if strings.Contains(bl.Text, "int f") {
			n++
			if bl.Context != want {
				t.Errorf("context %q, want %q", bl.Context, want)
			}
		}
	}
	if n < 3 {
		t.Errorf("members in %d blocks, want several: %q", n, texts(blocks))
	}
}

// TestHugeFunctionStoredWhole: a function is never split, however big.
func TestHugeFunctionStoredWhole(t *testing.T) {
	var b strings.Builder
	b.WriteString("package huge\n\n// Huge is big.\nfunc Huge() int {\n\tx := 0\n")
	for i := range 600 {
		fmt.Fprintf(&b, "\tx += %d // {{ not a brace\n", i)
	}
	b.WriteString("\treturn x\n}\n\nfunc Small() {}\n")
	src := b.String()
	det, blocks := Split("huge.go", src, Options{})
	checkInvariant(t, src, det, blocks, DefaultMaxBytes)
	fn := span(t, src, "// Huge is big.", "\treturn x\n}\n")
	i := blockHolding(blocks, fn)
	if i < 0 || !blocks[i].Oversized || blocks[i].Title != "Huge" {
		t.Fatalf("huge function: block %d of %d, titles %q", i, len(blocks), titles(blocks))
	}
	if strings.Contains(blocks[i].Text, "func Small") || strings.Contains(blocks[i].Text, "package huge") {
		t.Errorf("the oversized block took its neighbours")
	}
	// The same in Python and Java.
	py := "def huge():\n" + strings.Repeat("    x = '}' # {\n", 400) + "    return x\n\n\ndef small():\n    pass\n"
	det, blocks = Split("h.py", py, Options{})
	checkInvariant(t, py, det, blocks, DefaultMaxBytes)
	if len(blocks) != 2 || !blocks[0].Oversized || blocks[0].Title != "huge" {
		t.Errorf("python: titles %q", titles(blocks))
	}
	java := "class H {\n  void huge() {\n" + strings.Repeat("    s += \"}\"; // {\n", 400) + "  }\n  void small() {}\n}\n"
	det, blocks = Split("H.java", java, Options{})
	checkInvariant(t, java, det, blocks, DefaultMaxBytes)
	if i := blockHolding(blocks, span(t, java, "  void huge()", "  }\n")); i < 0 || !blocks[i].Oversized || blocks[i].Context != "class H {" {
		t.Errorf("java: huge method not whole with its context: %q", titles(blocks))
	}
}

func titles(blocks []Block) []string {
	out := make([]string, len(blocks))
	for i, b := range blocks {
		out[i] = b.Title
	}
	return out
}

// TestBigDeclarationsStandAlone: in code, small declarations pack together
// while one big enough to read on its own gets a block of its own.
func TestBigDeclarationsStandAlone(t *testing.T) {
	body := strings.Repeat("\tx = x*31 + 7 // keep mixing\n", 30)
	src := "package p\n\nconst A = 1\n\nconst B = 2\n\n// Big mixes.\nfunc Big() int {\n\tx := 0\n" + body + "\treturn x\n}\n\nconst C = 3\n\nconst D = 4\n"
	_, blocks := Split("p.go", src, Options{})
	var big, small []string
	for _, b := range blocks {
		switch {
		case strings.Contains(b.Text, "func Big"):
			big = append(big, b.Text)
		case strings.Contains(b.Text, "const C"):
			small = append(small, b.Text)
		}
	}
	if len(big) != 1 || strings.Contains(big[0], "const ") {
		t.Errorf("Big shares its block: %q", big)
	}
	if len(small) != 1 || !strings.Contains(small[0], "const D") {
		t.Errorf("the small declarations after Big are not packed together: %q (all: %q)", small, texts(blocks))
	}
	if a := blocks[0].Text; !strings.Contains(a, "const A") || !strings.Contains(a, "const B") {
		t.Errorf("the small declarations before Big are not packed with the package clause: %q", a)
	}
}

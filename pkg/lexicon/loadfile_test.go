package lexicon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadProblems: whatever is wrong with a person's lexicon.json, Load
// returns quickly with the problem named and the built-in lexicon to
// serve with; a good file adds its concept (the control).
func TestLoadProblems(t *testing.T) {
	const good = `{"concepts":[{"name":"boat","words":["sailboat","velero"]}]}`
	many := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"concepts":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name":"own%d","words":["word%d"]}`, i, i)
		}
		b.WriteString("]}")
		return b.String()
	}
	builtins := len(Default().concepts)
	tests := []struct {
		name  string
		make  func(path string) error
		want  string // in the problem; "" for none
		boats bool   // the person's concept is in use
	}{
		{"a good file", writeText(good), "", true},
		{"no file", func(string) error { return nil }, "", false},
		{"truncated", writeText(good[:30]), "not a lexicon file", false},
		{"not JSON", writeText("concepts: boat\n"), "not a lexicon file", false},
		{"wrong types", writeText(`{"concepts":{"name":1}}`), "not a lexicon file", false},
		{"nested a million deep", writeText(strings.Repeat("[", 1_000_000)), "not a lexicon file", false},
		{"NUL bytes", writeText("{\"concepts\":[\x00]}"), "not a lexicon file", false},
		{"too many concepts", writeText(many(maxConcepts)), fmt.Sprintf("%d new concepts of your own", maxConcepts), false},
		{"a concept without words", writeText(`{"concepts":[{"name":"x","words":[]}]}`), "concept 1 of your own", false},
		{"too big", writeText(`{"concepts":[]}` + strings.Repeat(" ", MaxFileBytes)), "bytes", false},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }, "not a regular file", false},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "not a regular file", false},
		{"a symlink to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file", false},
		{"a symlink to a good file", func(p string) error {
			real := p + ".real"
			if err := os.WriteFile(real, []byte(good), 0o600); err != nil {
				return err
			}
			return os.Symlink(real, p)
		}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := tt.make(path); err != nil {
				t.Fatal(err)
			}
			begin := time.Now()
			x, err := Load(path)
			if took := time.Since(begin); took > 5*time.Second {
				t.Errorf("took %s", took)
			}
			if x == nil {
				t.Fatal("no lexicon to serve with")
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("problem %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("problem %v, want one naming %q", err, tt.want)
			}
			if err != nil && Check(path) == nil {
				t.Errorf("Check finds no problem where Load found %v", err)
			}
			if got := x.Concepts("we bought a sailboat") != 0; got != tt.boats {
				t.Errorf("the person's concept in use = %v, want %v", got, tt.boats)
			}
			if !tt.boats && len(x.concepts) != builtins {
				t.Errorf("%d concepts, want the %d built-in ones", len(x.concepts), builtins)
			}
		})
	}
}

func writeText(text string) func(string) error {
	return func(p string) error { return os.WriteFile(p, []byte(text), 0o600) }
}

// FuzzCompile: whatever a person's lexicon file holds, compiling it never
// panics, and a problem leaves no lexicon half-built.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{`{}`, `{"concepts":[{"name":"boat","words":["sailboat"]}]}`, `{"concepts":[{"name":"x","value":"nope","words":["a"]}]}`,
		`{"types":[{"name":"t","cues":["c"],"detector":"zzz"}]}`, `{"groups":[["a","b"]]}`, "[[[[", "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, extra []byte) {
		x, err := compile(builtin, extra)
		if (x == nil) == (err == nil) {
			t.Fatalf("compile = %v, %v: want a lexicon or a problem", x, err)
		}
	})
}

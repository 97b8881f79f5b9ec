package codeindex

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestIgnore(t *testing.T) {
	ig := ignores{
		"":    parseIgnore("# comment\n*.log\n/build/\nnode_modules/\n!keep.log\ndocs/**/*.tmp\n\\#hash\n"),
		"sub": parseIgnore("local.txt\n/anchored.go\n"),
	}
	for _, c := range []struct {
		path string
		dir  bool
		want bool
	}{
		{"a.log", false, true},
		{"deep/x/a.log", false, true},
		{"keep.log", false, false},
		{"build", true, true},
		{"sub/build", true, false}, // anchored to the root
		{"build", false, false},    // a file named build: dir-only rule
		{"x/node_modules", true, true},
		{"docs/a/b/c.tmp", false, true},
		{"docs/c.tmp", false, true},
		{"other/c.tmp", false, false},
		{"#hash", false, true},
		{"sub/local.txt", false, true},
		{"sub/deeper/local.txt", false, true},
		{"local.txt", false, false}, // sub's rule stays in sub
		{"sub/anchored.go", false, true},
		{"sub/deeper/anchored.go", false, false},
		{"main.go", false, false},
	} {
		if got := ig.ignored(c.path, c.dir); got != c.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", c.path, c.dir, got, c.want)
		}
	}
}

func TestResolve(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "proj")
	write(t, root, map[string]string{"a/b.go": "package a\n"})
	write(t, base, map[string]string{"secret.txt": "x\n"})
	os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "out"))
	os.Symlink(base, filepath.Join(root, "outdir"))
	os.Symlink("a/b.go", filepath.Join(root, "in"))
	for _, c := range []struct {
		p, rel string
		err    error
	}{
		{"a/b.go", "a/b.go", nil},
		{"", "", nil},
		{".", "", nil},
		{"./a", "a", nil},
		{filepath.Join(root, "a/b.go"), "a/b.go", nil},
		{"in", "a/b.go", nil},
		{"../secret.txt", "", ErrOutside},
		{"a/../../secret.txt", "", ErrOutside},
		{"a/../b.go", "", ErrOutside}, // ".." is refused even when it stays inside
		{filepath.Join(base, "secret.txt"), "", ErrOutside},
		{"/etc/passwd", "", ErrOutside},
		{root + "x/a", "", ErrOutside}, // a sibling whose name starts like the root
		{"out", "", ErrOutside},
		{"outdir/secret.txt", "", ErrOutside},
		{"missing.go", "", leaf.ErrNotFound},
		{"a\x00b", "", leaf.ErrInvalid},
	} {
		_, rel, err := Resolve(root, c.p)
		if c.err == nil && (err != nil || rel != c.rel) {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.p, rel, err, c.rel)
		}
		if c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("Resolve(%q) = %q, %v; want %v", c.p, rel, err, c.err)
		}
	}
}

func TestSync(t *testing.T) {
	root := realTemp(t)
	write(t, root, map[string]string{
		"a.go":       "package a\n\n// Alpha does a.\nfunc Alpha() {}\n\ntype T struct {\n\tX int\n}\n\n// M is a method.\nfunc (T) M() {}\n",
		"b.py":       "def beta():\n    return 1\n",
		"README.md":  "# Title\n\nSome prose.\n",
		".gitignore": "skip/\n",
		"skip/x.go":  "package skip\n",
		"bin.dat":    "\x00\x01\x02",
	})
	write(t, root, map[string]string{"big.go": strings.Repeat("// x\n", MaxFileBytes/5+1)})
	x := New(t.TempDir(), nil)
	p := x.Project(root)
	m, err := p.Map("", "", "symbols")
	if err != nil {
		t.Fatal(err)
	}
	st := m.Stats
	if st.Files != 6 || st.Reindexed != 5 || st.Skipped != 2 {
		t.Errorf("cold sync: %+v, want 6 files (a.go b.py README.md .gitignore bin.dat big.go), 5 read (big.go is not), 2 skipped", st)
	}
	syms := map[string]Symbol{}
	for _, f := range m.Files {
		for _, s := range f.Symbols {
			syms[s.Name] = s
		}
	}
	for name, want := range map[string]Symbol{
		"Alpha": {Kind: "func", First: 3, Last: 4},
		"T":     {Kind: "type", First: 6, Last: 8},
		"T.M":   {Kind: "method", First: 10, Last: 11},
		"beta":  {Kind: "func", First: 1, Last: 2},
	} {
		got := syms[name]
		if got.Kind != want.Kind || got.First != want.First || got.Last != want.Last {
			t.Errorf("symbol %s = %+v, want %+v", name, got, want)
		}
	}
	// A second call reads nothing.
	if m, _ := p.Map("", "", ""); m.Stats.Reindexed+m.Stats.Checksummed+m.Stats.Removed != 0 {
		t.Errorf("warm sync did work: %+v", m.Stats)
	}
	// Touched (mtime only): checksummed, not re-split. Changed: re-split.
	// Removed: dropped.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "b.py"), later, later)
	write(t, root, map[string]string{"a.go": "package a\n\nfunc Gamma() {}\n"})
	os.Remove(filepath.Join(root, "README.md"))
	m, _ = p.Map("", "", "symbols")
	if st := m.Stats; st.Checksummed != 1 || st.Reindexed != 1 || st.Removed != 1 {
		t.Errorf("sync after changes: %+v, want 1 checksummed, 1 reindexed, 1 removed", st)
	}
	// The manifest lets a new daemon start warm.
	x2 := New(x.dir, nil)
	if m, _ := x2.Project(root).Map("", "", ""); m.Stats.Reindexed != 0 || m.Stats.Files != 5 {
		t.Errorf("after a restart: %+v, want a warm start with 5 files", m.Stats)
	}
	// find_code follows the change.
	a, err := x2.Project(root).Find(FindQuery{Query: "gamma"})
	if err != nil || a.Verdict != verdict.Found || a.Hits[0].Symbol.Name != "Gamma" {
		t.Fatalf("find after the change: %+v %v", a, err)
	}
	if a, _ := x2.Project(root).Find(FindQuery{Query: "alpha"}); a.Verdict != verdict.NotFound {
		t.Errorf("a removed function is still found: %+v", a)
	}
}

func TestFind(t *testing.T) {
	root := realTemp(t)
	write(t, root, map[string]string{
		"server/server.go":    "package server\n\nimport (\n\t\"net\"\n\t\"retry\"\n)\n\n// Serve accepts connections and retries on temporary errors.\n" + strings.Repeat("// It never returns while the listener lives.\n", 10) + "func Serve(l net.Listener) error {\n\tfor {\n\t\tc, err := l.Accept()\n\t\tif err != nil {\n\t\t\tretry.Wait()\n\t\t\tcontinue\n\t\t}\n\t\t_ = c\n\t}\n}\n",
		"client/retry.go":     "package client\n\n// Backoff waits longer after each failed retry.\nfunc Backoff(n int) int { return n * 2 }\n",
		"client/dial.go":      "package client\n\n// Dial connects to a server.\nfunc Dial(addr string) error { return nil }\n",
		"client/dial_test.go": "package client\n\nimport \"testing\"\n\n// TestDial dials a server.\nfunc TestDial(t *testing.T) { Dial(\"x\") }\n",
	})
	p := New(t.TempDir(), nil).Project(root)
	for _, c := range []struct {
		q    FindQuery
		want string
	}{
		{FindQuery{Query: "accept connections"}, "Serve"},
		{FindQuery{Query: "backoff after failed retry"}, "Backoff"},
		{FindQuery{Query: "retry in retry.go"}, "Backoff"}, // the file the query names
		{FindQuery{Query: "dial a server", Scope: "test"}, "TestDial"},
		{FindQuery{Query: "dial a server"}, "Dial"},
		{FindQuery{Query: "failed retry", Subpath: "server"}, "Serve"}, // Backoff is outside the subpath
	} {
		a, err := p.Find(c.q)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Hits) == 0 || a.Hits[0].Symbol.Name != c.want {
			t.Errorf("%+v: %v %s %+v, want %s first", c.q, a.Verdict, a.Message, a.Hits, c.want)
		}
		for _, h := range a.Hits {
			if h.Symbol.Kind == "imports" {
				t.Errorf("%+v: an import block answered: %+v", c.q, h)
			}
			if c.q.Scope == "" && strings.HasSuffix(h.Path, "_test.go") {
				t.Errorf("%+v: a test in scope main: %s", c.q, h.Path)
			}
		}
	}
	// The budget: the code is cut to it, and says so.
	a, _ := p.Find(FindQuery{Query: "accept connections", MaxTokens: 50})
	if !a.Hits[0].Truncated || a.Tokens > 50 {
		t.Errorf("budget 50: %d tokens, truncated %v", a.Tokens, a.Hits[0].Truncated)
	}
	for _, bad := range []FindQuery{{Query: ""}, {Query: "x", Scope: "tests"}, {Query: "x", MaxTokens: 10}, {Query: "x", Path: "../"}} {
		if _, err := p.Find(bad); !errors.Is(err, leaf.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", bad, err)
		}
	}
}

func TestIsTest(t *testing.T) {
	var tests []string
	for _, p := range []string{"a_test.go", "test_a.py", "a_test.py", "a.test.ts", "a.spec.js", "src/test/java/FooTest.java", "FooTests.cs",
		"tests/helpers.py", "x/__tests__/a.js", "testdata/f.go", "main.go", "latest.go", "contest.py", "attestation.go"} {
		if isTest(p) {
			tests = append(tests, p)
		}
	}
	want := []string{"a_test.go", "test_a.py", "a_test.py", "a.test.ts", "a.spec.js", "src/test/java/FooTest.java", "FooTests.cs", "tests/helpers.py", "x/__tests__/a.js", "testdata/f.go"}
	if !slices.Equal(tests, want) {
		t.Errorf("tests: %v\nwant   %v", tests, want)
	}
}

package project

import (
	"errors"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tree builds files under a fresh temp dir and returns its real path, so
// expectations match keys on systems where the temp dir is behind a symlink
// (/var -> /private/var on macOS). The git "repositories" are only the files
// Detect reads; no git binary is needed.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func remoteConfig(name, u string) string {
	return "[core]\n\tbare = false\n[remote \"" + name + "\"]\n\turl = " + u + "\n\tfetch = +refs/heads/*:refs/remotes/" + name + "/*\n"
}

func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

func TestDetect(t *testing.T) {
	root := tree(t, map[string]string{
		// A clone with an origin, entered five levels down.
		"remote/.git/config":   remoteConfig("origin", "git@github.com:Org/Repo.git"),
		"remote/a/b/c/d/e/":    "",
		"remote/Other Name/":   "",
		"forks/.git/config":    remoteConfig("upstream", "https://github.com/up/x") + remoteConfig("fork", "https://github.com/me/x"),
		"noremote/.git/config": "[core]\n\tbare = false\n",
		"noremote/src/":        "",
		"noconfig/.git/HEAD":   "ref: refs/heads/main\n",
		"plain/dir/":           "",
		"my repo/":             "",

		// A linked worktree of "main", with a relative gitdir as
		// `git worktree add --relative-paths` writes, and one of a
		// remote-less repository with an absolute gitdir (filled in below).
		"main/.git/config":                      remoteConfig("origin", "https://gitlab.com/Team/Main.git"),
		"main/.git/worktrees/wt/commondir":      "../..\n",
		"wt/.git":                               "gitdir: ../main/.git/worktrees/wt\n",
		"wt/pkg/":                               "",
		"solo/.git/config":                      "[core]\n\tbare = false\n",
		"solo/.git/worktrees/feature/commondir": "../..\n",

		// A submodule: its .git file points into the superproject's
		// modules, whose config has the submodule's own remote.
		"super/.git/config":             remoteConfig("origin", "git@github.com:org/super.git"),
		"super/.git/modules/lib/config": remoteConfig("origin", "git@github.com:org/lib.git"),
		"super/lib/.git":                "gitdir: ../.git/modules/lib",

		// A clone of the remote-less repository by path.
		"clone/.git/config": "", // filled in below

		// Broken repositories.
		"badgitfile/.git":       "not a gitfile\n",
		"danglinggitfile/.git":  "gitdir: /nonexistent-ihmt/.git/worktrees/x\n",
		"badconfig/.git/config": "[remote \"origin\"\n",
	})
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("clone/.git/config", remoteConfig("origin", filepath.Join(root, "noremote")))
	if err := os.MkdirAll(filepath.Join(root, "feature"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("feature/.git", "gitdir: "+filepath.Join(root, "solo/.git/worktrees/feature")+"\n")
	if err := os.Symlink(filepath.Join(root, "noremote", "src"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }

	tests := []struct {
		name     string
		override string
		roots    []string
		cwd      string
		want     string
		wantErr  string
	}{
		{name: "walks up to the remote", cwd: at("remote/a/b/c/d/e"), want: "github.com/org/repo"},
		{name: "top level itself", cwd: at("remote"), want: "github.com/org/repo"},
		{name: "relative cwd is made absolute", cwd: at("remote/a/../a/b"), want: "github.com/org/repo"},
		{name: "alphabetically first remote without origin", cwd: at("forks"), want: "github.com/me/x"},
		{name: "no remote: top level", cwd: at("noremote/src"), want: at("noremote")},
		{name: "no config: top level", cwd: at("noconfig"), want: at("noconfig")},
		{name: "not a repository: the directory", cwd: at("plain/dir"), want: at("plain/dir")},
		{name: "symlinked cwd resolves", cwd: at("link"), want: at("noremote")},
		{name: "worktree uses the shared config", cwd: at("wt/pkg"), want: "gitlab.com/team/main"},
		{name: "remote-less worktree is its main repository", cwd: at("feature"), want: at("solo")},
		{name: "submodule has its own remote", cwd: at("super/lib"), want: "github.com/org/lib"},
		{name: "superproject", cwd: at("super"), want: "github.com/org/super"},
		{name: "clone by path agrees with the original", cwd: at("clone"), want: at("noremote")},
		{name: "missing cwd is still its own key", cwd: at("plain/gone"), want: at("plain/gone")},

		{name: "override wins", override: "  team/thing \n", roots: []string{fileURI(at("remote"))}, cwd: at("forks"), want: "team/thing"},
		{name: "override kept as written", override: "GitHub.com/Org/Repo", cwd: at("remote"), want: "GitHub.com/Org/Repo"},
		{name: "blank override ignored", override: " \t", cwd: at("remote"), want: "github.com/org/repo"},
		{name: "invalid override is an error", override: "../../etc", cwd: at("remote"), wantErr: "IHMT_PROJECT"},

		{name: "root wins over cwd", roots: []string{fileURI(at("remote/a"))}, cwd: at("forks"), want: "github.com/org/repo"},
		{name: "first existing root", roots: []string{fileURI(at("absent")), fileURI(at("forks")), fileURI(at("remote"))}, cwd: at("plain"), want: "github.com/me/x"},
		{name: "non-file root ignored", roots: []string{"https://example.com/x", "untitled:1"}, cwd: at("forks"), want: "github.com/me/x"},
		{name: "remote-host file root ignored", roots: []string{"file://server" + filepath.ToSlash(at("remote"))}, cwd: at("forks"), want: "github.com/me/x"},
		{name: "percent-escaped root", roots: []string{"file://" + strings.ReplaceAll(filepath.ToSlash(at("my repo")), " ", "%20")}, want: at("my repo")},
		{name: "root naming a file uses its directory", roots: []string{fileURI(at("remote/.git/config"))}, want: "github.com/org/repo"},
		{name: "localhost root", roots: []string{"file://localhost" + filepath.ToSlash(at("remote"))}, want: "github.com/org/repo"},

		{name: "no directory at all", roots: []string{"https://example.com/x"}, want: ""},
		{name: "nothing given", want: ""},

		{name: "malformed .git file", cwd: at("badgitfile"), wantErr: "gitdir"},
		{name: "dangling worktree", cwd: at("danglinggitfile"), wantErr: "missing"},
		{name: "malformed config", cwd: at("badconfig"), wantErr: "bad config line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(tt.override, tt.roots, tt.cwd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Detect = %q, %v; want an error mentioning %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			if got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDetectRelativeCwd(t *testing.T) {
	root := tree(t, map[string]string{"r/.git/config": remoteConfig("origin", "https://github.com/o/r"), "r/sub/": ""})
	t.Chdir(filepath.Join(root, "r"))
	if got, err := Detect("", nil, "sub"); err != nil || got != "github.com/o/r" {
		t.Errorf("Detect(relative) = %q, %v; want github.com/o/r", got, err)
	}
}

func TestDetectKeyTooLong(t *testing.T) {
	deep := strings.Repeat("d", 100) + "/" + strings.Repeat("e", 100) + "/" + strings.Repeat("f", 100) + "/"
	root := tree(t, map[string]string{deep: ""})
	_, err := Detect("", nil, filepath.Join(root, deep))
	if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "IHMT_PROJECT") {
		t.Errorf("Detect(deep path) error = %v; want ErrInvalidKey with a hint", err)
	}
}

func TestFileURIPath(t *testing.T) {
	tests := []struct {
		uri, want string
		ok        bool
	}{
		{"file:///home/u/my%20repo", "/home/u/my repo", true},
		{"file:///home/u/src/repo/", "/home/u/src/repo", true},
		{"FILE:///home/u/x", "/home/u/x", true},
		{"file://localhost/home/u/x", "/home/u/x", true},
		{"file://server/share", "", false},
		{"file:relative/x", "", false},
		{"https://example.com/x", "", false},
		{"/home/u/x", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			got, ok := fileURIPath(tt.uri)
			if ok != tt.ok || got != filepath.FromSlash(tt.want) {
				t.Errorf("fileURIPath(%q) = %q, %v; want %q, %v", tt.uri, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, key, wantErr string
	}{
		{"remote key", "github.com/org/repo", ""},
		{"path key", "/home/u/src/my repo", ""},
		{"unicode", "/home/ü/проект", ""},
		{"dots in names are fine", "/a/..b/c../.x", ""},
		{"exactly the limit", strings.Repeat("k", MaxKeyLen), ""},

		{"empty", "", "empty"},
		{"too long", strings.Repeat("k", MaxKeyLen+1), "limit is 256"},
		{"climbing", "../../etc", `".." path element`},
		{"climbing in the middle", "/home/u/../../etc/passwd", `".." path element`},
		{"bare dot-dot", "..", `".." path element`},
		{"backslash climbing", `a\..\b`, `".." path element`},
		{"NUL", "a\x00b", "NUL at byte 1"},
		{"newline", "a\nb", "U+000A"},
		{"escape", "a\x1b[31mb", "U+001B"},
		{"DEL", "a\x7f", "U+007F"},
		{"C1 control", "a\u0085", "U+0085"},
		{"invalid UTF-8", "a\xffb", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.key)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("Validate(%q) = %v, want nil", tt.key, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Validate(%q) = %v, want ErrInvalidKey mentioning %q", tt.key, err, tt.wantErr)
			}
		})
	}
}

// TestImports keeps the package fit for the shim: the standard library only,
// and no os/exec, since running git is exactly the start-up cost it avoids.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") || p == "os/exec" || p == "syscall" {
				t.Errorf("%s imports %q; the shim needs this package light", name, p)
			}
		}
	}
}

func BenchmarkDetect(b *testing.B) {
	root := tree(b, map[string]string{
		"repo/.git/config": remoteConfig("origin", "git@github.com:Org/Repo.git"),
		"repo/a/b/c/d/e/":  "",
	})
	cwd := filepath.Join(root, "repo/a/b/c/d/e")
	for b.Loop() {
		if key, err := Detect("", nil, cwd); err != nil || key != "github.com/org/repo" {
			b.Fatalf("Detect = %q, %v", key, err)
		}
	}
}

// TestValidateAgreesWithTheDaemon: keys the daemon refuses (a "." or ".."
// path element) are refused here first, so a bad IHMT_PROJECT is reported
// once, clearly, instead of failing every call.
func TestValidateAgreesWithTheDaemon(t *testing.T) {
	for _, bad := range []string{"./x", "a/./b", "../x", "a/.."} {
		if err := Validate(bad); err == nil {
			t.Errorf("Validate(%q) accepted a key the daemon refuses", bad)
		}
	}
	for _, good := range []string{"x", ".hidden/x", "a/b.c", "github.com/org/repo"} {
		if err := Validate(good); err != nil {
			t.Errorf("Validate(%q) = %v", good, err)
		}
	}
}

package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRootDir(t *testing.T) {
	repo := tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a/b/x.go": "package b\n"})
	plain := tree(t, map[string]string{"c/y.go": "package c\n"})
	sub := filepath.Join(repo, "a", "b")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		roots []string
		cwd   string
		want  string
	}{
		{"the git top above the working directory", nil, sub, repo},
		{"a directory outside git is its own root", nil, filepath.Join(plain, "c"), filepath.Join(plain, "c")},
		{"an MCP root wins, even inside a repository", []string{fileURI(sub)}, plain, sub},
		{"a root that is not a directory is skipped", []string{"https://example.com/x", fileURI(filepath.Join(repo, "missing"))}, sub, repo},
		{"symlinks resolved", nil, link, repo},
		{"nothing to go on", nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := RootDir(c.roots, c.cwd)
			want := c.want
			if want != "" {
				want, _ = filepath.EvalSymlinks(want)
			}
			if err != nil || got != want {
				t.Errorf("RootDir(%v, %q) = %q, %v; want %q", c.roots, c.cwd, got, err, want)
			}
		})
	}
}

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

func TestAboveProjects(t *testing.T) {
	top := tree(t, map[string]string{"home/you/notes/a.md": "x\n", "home/dots/.git/HEAD": "ref: refs/heads/main\n", "home/dots/src/x.go": "package x\n"})
	home := filepath.Join(top, "home", "you")
	for _, c := range []struct {
		name      string
		dir, home string
		want      bool
	}{
		{"the home directory", home, home, true},
		{"a directory above it", filepath.Join(top, "home"), home, true},
		{"the filesystem root", "/", home, true},
		{"a directory under it is a project of its own", filepath.Join(home, "notes"), home, false},
		{"a home that is a repository is its project", filepath.Join(top, "home", "dots"), filepath.Join(top, "home", "dots"), false},
		{"a sibling of home", filepath.Join(top, "home", "dots", "src"), home, false},
		{"no home known", home, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := AboveProjects(c.dir, c.home)
			if err != nil || got != c.want {
				t.Errorf("AboveProjects(%q, %q) = %v, %v; want %v", c.dir, c.home, got, err, c.want)
			}
		})
	}
}

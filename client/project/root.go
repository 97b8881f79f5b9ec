package project

import (
	"path/filepath"
	"strings"
)

// RootDir returns the directory a session's project tools work in: the
// first MCP root that is an existing local directory, else the git top
// level above cwd, else cwd itself — absolute, with symlinks resolved.
// It returns "" when neither roots nor cwd name a directory.
func RootDir(roots []string, cwd string) (string, error) {
	dir := firstRootDir(roots)
	if dir == "" {
		dir = cwd
	}
	if dir == "" {
		return "", nil
	}
	start, err := realPath(dir)
	if err != nil {
		return "", err
	}
	r, err := findRepo(start)
	if err != nil {
		return "", err
	}
	if r == nil || firstRootDir(roots) != "" {
		// A root the client names is the project, even inside a larger
		// repository.
		return start, nil
	}
	return r.top, nil
}

// AboveProjects reports whether dir is the home directory or one above it
// (the root, /home) and no repository holds it: a place where no project
// lives. A person who saves from there means a memory for everywhere, not
// one filed under "/home/you" that no repository's session would ever
// see. A home directory that is itself a repository (dotfiles under git)
// is a project like any other.
func AboveProjects(dir, home string) (bool, error) {
	if dir == "" || home == "" {
		return false, nil
	}
	d, err := realPath(dir)
	if err != nil {
		return false, err
	}
	h, err := realPath(home)
	if err != nil {
		return false, err
	}
	if d != h && !strings.HasPrefix(h, strings.TrimSuffix(d, string(filepath.Separator))+string(filepath.Separator)) {
		return false, nil
	}
	r, err := findRepo(d)
	if err != nil {
		return false, err
	}
	return r == nil, nil
}

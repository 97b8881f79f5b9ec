package project

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// repo is where git keeps a working tree's repository.
type repo struct {
	top       string // the working tree's top level: the directory holding .git
	gitDir    string // this working tree's git directory
	commonDir string // the directory shared by all worktrees: config lives here
}

// dirKey returns the key of a directory: its repository's remote, else the
// repository's main top level, else the directory itself.
func dirKey(dir string) (string, error) {
	start, err := realPath(dir)
	if err != nil {
		return "", err
	}
	r, err := findRepo(start)
	if err != nil {
		return "", err
	}
	if r == nil {
		return start, nil
	}
	cfgPath := filepath.Join(r.commonDir, "config")
	data, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	remotes, err := remoteURLs(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cfgPath, err)
	}
	if u := pickRemote(remotes); u != "" {
		// git fetch runs at the top level, so a relative remote path is
		// relative to it.
		return remoteKey(u, r.top), nil
	}
	return r.mainTop(), nil
}

// findRepo walks up from dir (absolute, symlinks resolved) to the nearest
// .git, and returns nil when there is none.
func findRepo(dir string) (*repo, error) {
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		// Stat, not Lstat: a .git symlinked to a directory is a repository to git.
		// A stat failure other than "no such file" (permissions, say) is
		// skipped like an absent .git, as git itself does while discovering.
		if fi, err := os.Stat(dotGit); err == nil {
			switch {
			case fi.IsDir():
				return &repo{top: d, gitDir: dotGit, commonDir: dotGit}, nil
			case fi.Mode().IsRegular():
				return linkedRepo(d, dotGit)
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, nil
		}
		d = parent
	}
}

// linkedRepo reads a .git file ("gitdir: <path>"), which a linked worktree or
// a submodule has instead of a .git directory. A linked worktree's git
// directory also holds a commondir file naming the main repository's git
// directory, where the shared config is; a submodule's has none.
func linkedRepo(top, dotGit string) (*repo, error) {
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(data, []byte("gitdir:"))
	target := strings.TrimSpace(string(rest))
	if !ok || target == "" {
		return nil, fmt.Errorf("%s: not a \"gitdir: <path>\" file", dotGit)
	}
	gitDir := resolveFrom(top, target)
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		// The main repository was moved or deleted under this worktree. Git
		// refuses to work here too, and any key we chose would be a guess.
		return nil, fmt.Errorf("%s: git directory %s is missing", dotGit, gitDir)
	}
	r := &repo{top: top, gitDir: gitDir, commonDir: gitDir}
	cd, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	switch {
	case err == nil:
		if c := strings.TrimSpace(string(cd)); c != "" {
			r.commonDir = resolveFrom(gitDir, c)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return r, nil
}

// resolveFrom returns p made absolute against base, with symlinks resolved
// when it exists.
func resolveFrom(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// mainTop names a repository that has no remote. Every worktree of one
// repository is the same project (agents such as Claude Code and Codex work in
// throwaway linked worktrees), so a linked worktree is named by its main
// repository: the directory holding the shared .git, or for a bare repository
// its path without ".git", which is also what a clone of it is named by.
func (r *repo) mainTop() string {
	if r.commonDir == r.gitDir {
		return r.top
	}
	if filepath.Base(r.commonDir) == ".git" {
		return filepath.Dir(r.commonDir)
	}
	return trimGitSuffix(r.commonDir)
}

// pickRemote returns the url of the remote named origin, else of the
// alphabetically first remote, so the choice does not depend on the order of
// sections in the file; "" when there is none.
func pickRemote(urls map[string]string) string {
	if u, ok := urls["origin"]; ok {
		return u
	}
	names := make([]string, 0, len(urls))
	for n := range urls {
		names = append(names, n)
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return urls[names[0]]
}

// remoteURLs returns each remote's url by remote name. A remote may list
// several urls; git fetches from the first, so that one names it.
func remoteURLs(config []byte) (map[string]string, error) {
	urls := make(map[string]string)
	err := parseConfig(config, func(section, subsection, key, value string) {
		if section != "remote" || subsection == "" || key != "url" || value == "" {
			return
		}
		if _, seen := urls[subsection]; !seen {
			urls[subsection] = value
		}
	})
	return urls, err
}

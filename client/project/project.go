// Package project computes the project key that scopes a caller's memories.
//
// Every memory is global or belongs to one project, and the daemon decides
// what a caller may see by the key the caller sends. The MCP shim and the CLI
// must therefore name a project identically, so both call [Detect]:
//
//	key, err := project.Detect(os.Getenv("IHMT_PROJECT"), rootURIs, cwd)
//
// The key comes from, in order: the IHMT_PROJECT override; the first MCP root
// that is an existing file:// directory; the working directory. For the chosen
// directory, a git remote names the project, so clones of one repository by
// ssh, https or git:// share their memories ("github.com/org/repo"). A
// repository without remotes, and a directory outside git, are named by their
// absolute path with symlinks resolved.
//
// The shim runs this on a session's first tool call and the CLI on every
// command, so it uses the standard library only and reads .git files itself
// instead of running git: a fork and exec of git would cost more than the
// rest of a call. The price is that only what
// decides the key is understood, and some git features are deliberately not:
//
//   - [include] and [includeIf] in the repository config are not followed, and
//     global or system config is not read, so url.<base>.insteadOf rewrites
//     do not apply: a remote written as "gh:org/repo" is keyed as host "gh".
//   - GIT_DIR, GIT_CEILING_DIRECTORIES and core.worktree are ignored, and any
//     .git directory counts, without git's check that it holds a repository.
package project

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxKeyLen is the longest key, in bytes, that [Validate] accepts. A path
// deeper than this cannot be a key; set IHMT_PROJECT to a shorter name.
const MaxKeyLen = 256

// ErrInvalidKey is wrapped by every error [Validate] returns, so callers can
// tell a bad key (the user's to fix) from a failure to read a repository.
var ErrInvalidKey = errors.New("invalid project key")

// Detect returns the project key for a caller.
//
// override is the IHMT_PROJECT value ("" if unset). Trimmed of surrounding
// space, a non-empty override wins and is used as written: it is validated
// but not normalised, so a person who names a project gets exactly that name.
//
// roots are the MCP root URIs the client offered, possibly none. The first
// file:// root that exists is the directory (a root naming a file stands for
// the directory holding it); other schemes and missing paths are skipped.
//
// cwd is the working directory, used when no root applies.
//
// Detect returns "" with a nil error only when no directory applies at all. A
// directory outside git is not an error: it is its own key. It returns an error
// when a repository is there but cannot be read (a malformed .git file or
// config, an unreadable config) because guessing then would silently file
// memories under a second name, and when the resulting key fails [Validate].
func Detect(override string, roots []string, cwd string) (string, error) {
	if o := strings.TrimSpace(override); o != "" {
		if err := Validate(o); err != nil {
			return "", fmt.Errorf("IHMT_PROJECT: %w", err)
		}
		return o, nil
	}
	dir := firstRootDir(roots)
	if dir == "" {
		dir = cwd
	}
	if dir == "" {
		return "", nil
	}
	key, err := dirKey(dir)
	if err != nil {
		return "", fmt.Errorf("project of %s: %w", dir, err)
	}
	if err := Validate(key); err != nil {
		return "", fmt.Errorf("project of %s (set IHMT_PROJECT to override): %w", dir, err)
	}
	return key, nil
}

// Validate reports whether key is acceptable to send to the daemon: non-empty,
// at most [MaxKeyLen] bytes, valid UTF-8, free of NUL and other control
// characters, and without "." or ".." path elements. The daemon may use a key in
// file names and shows it to people, so anything that could escape a directory
// or corrupt a line of output is refused here, before it is sent.
func Validate(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrInvalidKey, len(key), MaxKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidKey)
	}
	for i, r := range key {
		if r == 0 {
			return fmt.Errorf("%w: NUL at byte %d", ErrInvalidKey, i)
		}
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: control character %U at byte %d", ErrInvalidKey, r, i)
		}
	}
	// Backslash counts as a separator too: the key may reach a Windows tool or
	// a person who reads it as a path.
	for _, elem := range strings.FieldsFunc(key, func(r rune) bool { return r == '/' || r == '\\' }) {
		if elem == ".." || elem == "." {
			return fmt.Errorf("%w: %q has a %q path element", ErrInvalidKey, key, elem)
		}
	}
	return nil
}

// firstRootDir returns the directory of the first root that is an existing
// local file URI, or "".
func firstRootDir(roots []string) string {
	for _, r := range roots {
		p, ok := fileURIPath(r)
		if !ok {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			p = filepath.Dir(p)
		}
		return p
	}
	return ""
}

// fileURIPath returns the absolute local path a file URI names, with
// percent-escapes decoded ("file:///home/u/my%20repo" is "/home/u/my repo").
// A URI of another scheme, of a remote host or with a relative path is not
// a local directory, so ok is false.
func fileURIPath(uri string) (p string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(uri))
	if err != nil || u.Scheme != "file" || u.Opaque != "" {
		return "", false
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", false
	}
	p = filepath.FromSlash(u.Path)
	if !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}

// realPath returns p made absolute and clean, with symlinks resolved when p
// exists, so that two spellings of one directory (/tmp and /private/tmp on
// macOS, a symlinked checkout) give one key. Git resolves symlinks when it
// finds the top level, so this also matches what `git rev-parse
// --show-toplevel` prints.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	return abs, nil
}

package codeindex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// ErrOutside means a path leads out of the project root.
var ErrOutside = fmt.Errorf("%w: the path is outside the project", leaf.ErrInvalid)

// Root checks a project root: an absolute path to a directory, returned
// with its symlinks resolved.
func Root(root string) (string, error) {
	switch {
	case root == "":
		return "", fmt.Errorf("%w: no project root: the caller sends its MCP root or git top level", leaf.ErrInvalid)
	case !utf8.ValidString(root) || strings.ContainsRune(root, 0):
		return "", fmt.Errorf("%w: the project root is not a path", leaf.ErrInvalid)
	case !filepath.IsAbs(root):
		return "", fmt.Errorf("%w: the project root %q is not absolute", leaf.ErrInvalid, root)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(root))
	if err != nil {
		return "", fmt.Errorf("%w: project root %s: %v", leaf.ErrNotFound, root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%w: project root %s: %v", leaf.ErrNotFound, root, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: the project root %s is not a directory", leaf.ErrInvalid, root)
	}
	if err := notHome(real); err != nil {
		return "", err
	}
	return real, nil
}

// ErrHomeRoot means a project root is the home directory or above it.
var ErrHomeRoot = fmt.Errorf("%w: the project root is the home directory or above it", leaf.ErrInvalid)

// notHome refuses a root that is the home directory or one of its
// parents. A session started outside any repository takes its starting
// directory as the project, and from the home directory the code tools
// would hand an agent ~/.ssh and every dotfile; a project is a directory
// beneath it.
func notHome(real string) error {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	if inside(real, home) {
		return fmt.Errorf("%w (%s): the code tools read only inside a project. Start the agent inside the project's directory (its git repository's top level becomes the root), or have the client name the project as its MCP root; IHMT_PROJECT names the project for memories", ErrHomeRoot, real)
	}
	return nil
}

// clean checks p as a path inside root without touching the disk and
// returns it relative to root, slash-separated ("" for the root): no ".."
// step, an absolute path only under root.
func clean(root, p string) (string, error) {
	if !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: the path is not valid UTF-8 text", leaf.ErrInvalid)
	}
	if len(p) > 4096 {
		return "", fmt.Errorf("%w: the path is %d bytes long", leaf.ErrInvalid, len(p))
	}
	joined := p
	if !filepath.IsAbs(p) {
		for _, elem := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
			if elem == ".." {
				return "", fmt.Errorf("%w: %q climbs out with \"..\": give a path inside %s", ErrOutside, p, root)
			}
		}
		joined = filepath.Join(root, p)
	}
	joined = filepath.Clean(joined)
	if !inside(root, joined) {
		return "", fmt.Errorf("%w: %q is not under the project root %s: give a path inside it, relative to it", ErrOutside, p, root)
	}
	rel, _ := filepath.Rel(root, joined)
	if rel == "." {
		rel = ""
	}
	return filepath.ToSlash(rel), nil
}

// Resolve returns where p leads inside root (absolute, symlinks resolved,
// root already checked by Root) and its path relative to root with forward
// slashes ("" for the root itself). p is relative to root, or absolute
// inside it. It refuses, with ErrOutside, a ".." that climbs out, an
// absolute path elsewhere, and a symlink — anywhere along the path — that
// points outside; a missing path is leaf.ErrNotFound.
func Resolve(root, p string) (abs, rel string, err error) {
	if !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return "", "", fmt.Errorf("%w: the path is not valid UTF-8 text", leaf.ErrInvalid)
	}
	if len(p) > 4096 {
		return "", "", fmt.Errorf("%w: the path is %d bytes long", leaf.ErrInvalid, len(p))
	}
	joined := p
	if !filepath.IsAbs(p) {
		for _, elem := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
			if elem == ".." {
				return "", "", fmt.Errorf("%w: %q climbs out with \"..\": give a path inside %s", ErrOutside, p, root)
			}
		}
		joined = filepath.Join(root, p)
	}
	joined = filepath.Clean(joined)
	if !inside(root, joined) {
		return "", "", fmt.Errorf("%w: %q is not under the project root %s: give a path inside it, relative to it", ErrOutside, p, root)
	}
	real, err := filepath.EvalSymlinks(joined)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("%w: %s does not exist in the project (paths are relative to %s)", leaf.ErrNotFound, p, root)
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", leaf.ErrInvalid, p, err)
	}
	if !inside(root, real) {
		return "", "", fmt.Errorf("%w: %q is a symlink (or under one) that points outside the project root", ErrOutside, p)
	}
	rel, _ = filepath.Rel(root, real)
	if rel == "." {
		rel = ""
	}
	return real, filepath.ToSlash(rel), nil
}

// inside reports whether p is root or under it (both clean, absolute).
func inside(root, p string) bool {
	if p == root {
		return true
	}
	r := root
	if !strings.HasSuffix(r, string(filepath.Separator)) {
		r += string(filepath.Separator)
	}
	return strings.HasPrefix(p, r)
}

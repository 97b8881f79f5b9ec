package project

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// remoteKey normalises a remote url so that clones of one project by any
// protocol get one key: "git@github.com:Org/Repo.git",
// "ssh://git@github.com:22/Org/Repo.git", "https://u:token@github.com/Org/Repo/"
// and "git://github.com/Org/Repo" all become "github.com/org/repo". A local
// path ("/srv/git/x.git", "file:///srv/git/x.git", "../x") becomes an
// absolute path without ".git"; a relative one is resolved against base, the
// top level, where git fetch would resolve it.
//
// The url forms, and how to tell them apart, are git's (urls.txt, connect.c):
// "scheme://..." is a url; otherwise a colon before any slash makes it
// scp-like "[user@]host:path"; anything else is a local path.
func remoteKey(raw, base string) string {
	s := strings.TrimSpace(raw)
	// "<helper>::<address>" hands the address to git-remote-<helper>; the
	// address still names the project.
	if helper, addr, ok := strings.Cut(s, "::"); ok && isScheme(helper) {
		s = addr
	}
	if scheme, rest, ok := strings.Cut(s, "://"); ok && isScheme(scheme) {
		authority, p, _ := strings.Cut(rest, "/")
		p, _, _ = strings.Cut(p, "?")
		p, _, _ = strings.Cut(p, "#")
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
		if strings.EqualFold(scheme, "file") {
			return localKey("/"+p, base)
		}
		return networkKey(hostOf(authority), p)
	}
	colon, slash := strings.IndexByte(s, ':'), strings.IndexByte(s, '/')
	if colon < 0 || (slash >= 0 && slash < colon) {
		return localKey(s, base)
	}
	// Brackets let the host part hold colons ("[::1]:path", "u@[::1]:path",
	// and git's "[user@host:port]:path"), so then the path starts at "]:".
	host, p := s[:colon], s[colon+1:]
	if open := strings.IndexByte(s, '['); open >= 0 && open < colon {
		if end := strings.Index(s[open:], "]:"); end > 0 {
			host, p = s[:open+end+1], s[open+end+2:]
		}
	}
	if inner, ok := strings.CutPrefix(host, "["); ok {
		inner = strings.TrimSuffix(inner, "]")
		if i := strings.LastIndexByte(inner, '@'); i >= 0 {
			inner = inner[i+1:]
		}
		if strings.Count(inner, ":") > 1 { // an IPv6 literal keeps its brackets
			host = "[" + inner + "]"
		} else {
			host = inner
		}
	}
	return networkKey(hostOf(host), p)
}

// hostOf returns the host of a url authority, without user, password or
// port: credentials must never reach the daemon, and the port is how one
// reached the host, not which project it is.
func hostOf(authority string) string {
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	if strings.HasPrefix(authority, "[") {
		if end := strings.IndexByte(authority, ']'); end > 0 {
			return authority[:end+1]
		}
	}
	host, _, _ := strings.Cut(authority, ":")
	return host
}

// networkKey joins a host and a repository path into a key.
//
// The whole key is lower-cased. GitHub, GitLab, Bitbucket and their kin treat
// owner and repository names case-insensitively, so "Org/Repo" and "org/repo"
// are one project there, and people do clone with either spelling; splitting
// one project's memories by how it happened to be typed would be the common
// failure. Merging two repositories whose names differ only by case on a
// case-sensitive server is the rare one, and IHMT_PROJECT fixes it.
func networkKey(host, p string) string {
	// Cleaning as an absolute path drops "." and ".." (even a leading one,
	// which could otherwise climb out of the key) and runs of slashes.
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".git"), "/")
	key := host
	if p != "" {
		if key != "" {
			key += "/"
		}
		key += p
	}
	return strings.ToLower(key)
}

// localKey names a repository reached by a filesystem path. Unlike a network
// key it keeps its case: the filesystem, not a forge, decides whether case
// matters, and the key then equals the one the repository gets by its own
// top level (a clone of a remote-less /src/tool has the key "/src/tool",
// as /src/tool itself does).
func localKey(p, base string) string {
	p = resolveFrom(base, filepath.FromSlash(p))
	return trimGitSuffix(p)
}

// trimGitSuffix strips ".git" from a repository path: "/srv/x.git" is
// "/srv/x", and "/src/tool/.git" is "/src/tool".
func trimGitSuffix(p string) string {
	if filepath.Base(p) == ".git" {
		return filepath.Dir(p)
	}
	return strings.TrimSuffix(p, ".git")
}

// isScheme reports whether s is a url scheme (RFC 3986: a letter, then
// letters, digits, "+", "-" or ".").
func isScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

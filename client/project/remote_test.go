package project

import (
	"strings"
	"testing"
)

func TestRemoteKey(t *testing.T) {
	// Paths under a directory that does not exist, so symlink resolution
	// leaves them alone and the expectations hold on any machine.
	const base = "/nonexistent-ihmt/src/tool"
	tests := []struct {
		name, url, want string
	}{
		// One project, every protocol: all must agree.
		{"scp-like", "git@github.com:Org/Repo.git", "github.com/org/repo"},
		{"ssh with port", "ssh://git@github.com:22/Org/Repo.git", "github.com/org/repo"},
		{"https with credentials and trailing slash", "https://user:token@github.com/Org/Repo.git/", "github.com/org/repo"},
		{"git protocol", "git://github.com/Org/Repo", "github.com/org/repo"},
		{"https bare", "https://github.com/Org/Repo", "github.com/org/repo"},
		{"upper-case host and scheme", "HTTPS://GitHub.COM/org/repo.git", "github.com/org/repo"},
		{"git+ssh", "git+ssh://git@github.com/Org/Repo.git", "github.com/org/repo"},
		{"scp-like without user", "github.com:Org/Repo.git", "github.com/org/repo"},
		{"scp-like with leading slash", "git@github.com:/Org/Repo.git", "github.com/org/repo"},
		{"remote helper prefix", "persistent-https::https://github.com/Org/Repo", "github.com/org/repo"},
		{"surrounding space", "  git@github.com:Org/Repo.git\t", "github.com/org/repo"},
		{"double slashes", "https://github.com//Org//Repo.git", "github.com/org/repo"},
		{"path ends in /.git", "https://github.com/Org/Repo/.git", "github.com/org/repo"},
		{"password holding @", "https://u:p@ss@github.com/Org/Repo", "github.com/org/repo"},

		// Other hosts and shapes.
		{"gitlab subgroups", "https://gitlab.com/Group/Sub/Project.git", "gitlab.com/group/sub/project"},
		{"query and fragment dropped", "https://git.example.com:8443/a/b.git?ref=x#frag", "git.example.com/a/b"},
		{"percent-escapes decoded", "https://github.com/org/my%20repo.git", "github.com/org/my repo"},
		{"ssh home-relative path", "ssh://u@host.example/~u/repo.git", "host.example/~u/repo"},
		{"ipv6 url", "ssh://git@[::1]:2222/srv/Repo.git", "[::1]/srv/repo"},
		{"ipv6 scp-like", "git@[::1]:srv/repo.git", "[::1]/srv/repo"},
		{"bracketed ipv6 scp-like", "[::1]:repo", "[::1]/repo"},
		{"bracketed scp-like with port", "[git@host.example:2222]:srv/repo.git", "host.example/srv/repo"},
		{"dot-dot cannot climb", "https://host.example/../../etc/passwd", "host.example/etc/passwd"},
		{"host only", "https://host.example/", "host.example"},

		// Local paths keep their case and lose ".git".
		{"absolute path", "/nonexistent-ihmt/git/X.git", "/nonexistent-ihmt/git/X"},
		{"file url", "file:///nonexistent-ihmt/git/x.git", "/nonexistent-ihmt/git/x"},
		{"file url localhost", "file://localhost/nonexistent-ihmt/git/x.git/", "/nonexistent-ihmt/git/x"},
		{"file url escaped", "file:///nonexistent-ihmt/my%20x.git", "/nonexistent-ihmt/my x"},
		{"non-bare .git dir", "/nonexistent-ihmt/src/Other/.git", "/nonexistent-ihmt/src/Other"},
		{"relative sibling", "../x", "/nonexistent-ihmt/src/x"},
		{"relative dot", "./sub/y.git", "/nonexistent-ihmt/src/tool/sub/y"},
		{"relative with colon after slash", "./a:b", "/nonexistent-ihmt/src/tool/a:b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := remoteKey(tt.url, base); got != tt.want {
				t.Errorf("remoteKey(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

// FuzzRemoteKey checks that no remote url, however odd, panics or yields a
// key whose path climbs with "..". (The host, the first element, can only be
// ".." if the url says so literally; Validate rejects that one.)
func FuzzRemoteKey(f *testing.F) {
	for _, s := range []string{
		"git@github.com:Org/Repo.git", "ssh://git@github.com:22/Org/Repo.git",
		"https://u:p@h/a/../../b", "file:///x/%2e%2e/y", "../x", "[::1]:x",
		"a::b://c", "x://", ":", "[", "@:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		key := remoteKey(raw, "/nonexistent-ihmt/base")
		elems := strings.Split(key, "/")
		for _, e := range elems[1:] {
			if e == ".." {
				t.Fatalf("remoteKey(%q) = %q has a \"..\" element", raw, key)
			}
		}
	})
}

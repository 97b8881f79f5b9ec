//go:build unix

package paths

import "os"

// privateDirOwnedBy reports whether dir is a real directory (not a symlink)
// owned by uid with mode exactly 0700 — the shape systemd-logind gives
// /run/user/<uid>. Anything else (missing, someone else's, group-readable)
// means it is not a login runtime dir we can trust, so we fall back to HOME.
//
// A race remains: a daemon started before logind created /run/user/<uid>
// (no lingering, no session yet) resolves to the HOME fallback, and a client
// started after the session appeared resolves here. `loginctl enable-linger`
// or IHMT_SOCKET avoids it.
func privateDirOwnedBy(dir string, uid int) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		return false
	}
	owner, ok := fileOwner(fi)
	return ok && owner == uid
}

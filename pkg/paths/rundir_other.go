//go:build !unix

package paths

// privateDirOwnedBy always reports false where file ownership is not a Unix
// uid, so the socket falls back to a path under HOME.
func privateDirOwnedBy(dir string, uid int) bool { return false }

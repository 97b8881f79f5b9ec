//go:build !unix

package paths

import "io/fs"

// fileOwner cannot answer where files are not owned by a Unix uid, so the
// daemon refuses a socket directory it cannot prove is ours.
func fileOwner(fs.FileInfo) (int, bool) { return -1, false }

//go:build !unix

package safesocket

import "io/fs"

// fileOwner cannot answer where files are not owned by a Unix uid, so Listen
// refuses to use a directory it cannot prove is ours.
func fileOwner(fs.FileInfo) (int, bool) { return -1, false }

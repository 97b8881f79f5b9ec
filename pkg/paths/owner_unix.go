//go:build unix

package paths

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the uid that owns the file fi describes.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), true
}

package paths

import (
	"io/fs"
	"net"
	"os"
	"time"
)

// What anyone may learn of the socket (or any file) at a path before
// talking through it: whether a daemon listens there, and whose it is. The
// client asks before it dials; the daemon's listener (pkg/safesocket) asks
// of a socket or directory it finds.

// probeTimeout bounds a dial that only asks whether anyone listens. Connect
// on a local socket is answered by the kernel, so a live listener replies
// at once; the bound is for a wedged system, not a slow daemon.
const probeTimeout = 200 * time.Millisecond

// Listening reports whether something accepts connections at path: a daemon
// (perhaps still opening its store), as opposed to none at all or a socket
// file a dead one left behind. The probe connection is closed at once.
func Listening(path string) bool {
	c, err := net.DialTimeout("unix", path, probeTimeout)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Owner returns the uid owning the socket at path (following a symlink, as
// a dial would); ok is false when it does not exist or the system cannot
// say. A socket of another user's means another user's daemon, which will
// refuse us by peer credentials: a client can say so at once instead of
// waiting for a daemon that will never answer.
func Owner(path string) (uid int, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return -1, false
	}
	return FileOwner(fi)
}

// FileOwner returns the uid that owns the file fi describes; ok is false
// where files are not owned by a Unix uid.
func FileOwner(fi fs.FileInfo) (uid int, ok bool) { return fileOwner(fi) }

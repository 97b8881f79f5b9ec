// Package safesocket is the daemon's side of its Unix socket: how to listen
// on it safely (Listen, PeerUID). What a client may check before it dials
// (whether anyone listens, whose the socket is) is pkg/paths', which both
// sides use, so that the shim links none of this.
//
// The daemon holds a user's memory, so only that user's processes may talk
// to it. Three layers enforce this, each enough on its own in the common
// case, together robust to one of them being loosened by mistake:
//
//   - the socket's directory is mode 0700 and owned by us, so other users
//     cannot reach the socket at all;
//   - the socket itself is mode 0600;
//   - every accepted connection's peer credentials are checked, and a
//     connection from another uid is closed before the server sees it. This
//     is the layer that still holds if the directory or socket mode were
//     loosened, or if the socket is reached through some other path.
//
// Root gets no exemption: a daemon running as uid 1000 accepts only uid
// 1000. Root can read the user's files anyway; it need not talk to ihmtd.
package safesocket

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// ErrOtherUser is reported through Listen's onReject when a peer runs as a
// different uid from the listener.
var ErrOtherUser = errors.New("peer runs as a different user")

// Listen prepares the socket's directory (created 0700 if missing; if it
// exists it must be owned by this uid and have mode 0700, else an error that
// says how to fix it), removes a stale socket
// file at path (the caller holds the store lock, so no live daemon owns it;
// refuse to remove anything that is not a socket), listens on unix, chmods
// the socket 0600, and returns a listener whose Accept only ever returns
// connections from processes of the same uid: connections from another uid
// are closed immediately and reported through onReject (may be nil), and
// Accept carries on to the next connection.
//
// onReject runs on the goroutine calling Accept, so it must be quick (log
// and return); uid is -1 when the peer's uid could not be read, and err then
// says why.
//
// Closing the returned listener leaves the socket file in place: its owner
// removes it (os.Remove) once it has really finished stopping, so that a
// socket's absence means the daemon is gone, not merely no longer accepting.
//
// The directory checks follow no symlink in the last component: a symlink
// there is refused, because chmod through it could tighten a directory we
// never meant to touch.
func Listen(path string, onReject func(uid int, err error)) (net.Listener, error) {
	return ListenFor(path, "IHMT_SOCKET", onReject)
}

// ListenFor is Listen for a socket whose path the person sets with
// setting (an environment variable, a flag): its refusals tell them to
// change that, not another socket's setting.
func ListenFor(path, setting string, onReject func(uid int, err error)) (net.Listener, error) {
	uid := os.Getuid()
	if err := prepareDir(filepath.Dir(path), uid, setting); err != nil {
		return nil, err
	}
	if err := removeStale(path, setting); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// Between bind and this chmod the socket has 0777 &^ umask. That window
	// is harmless: the directory is already 0700 and Accept checks the peer.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod socket %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false)
	return &listener{ul: ln, uid: uid, onReject: onReject}, nil
}

// prepareDir makes sure dir exists, is a real directory, is ours and is
// private.
func prepareDir(dir string, uid int, setting string) error {
	// MkdirAll also creates missing parents (say ~/.local/state) with 0700,
	// which is what the XDG spec asks for those directories anyway.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create socket directory: %w", err)
	}
	// Check after creating, not before: if someone else created dir first,
	// possibly racing us in a shared parent like /tmp, we see it here.
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("socket directory %s is a symlink; make it a real directory or point %s elsewhere", dir, setting)
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory", dir)
	}
	owner, ok := paths.FileOwner(fi)
	if !ok {
		return fmt.Errorf("socket directory %s: cannot determine its owner on this system", dir)
	}
	if owner != uid {
		return fmt.Errorf("socket directory %s is owned by uid %d, not by us (uid %d); remove it or point %s elsewhere", dir, owner, uid, setting)
	}
	// An existing directory others can open is refused, never tightened:
	// it may be a shared or personal directory (/tmp, the home directory)
	// that IHMT_SOCKET happens to point into, and chmod-ing it would break
	// whatever else lives there.
	if perm := fi.Mode().Perm(); perm&^0o700 != 0 {
		return fmt.Errorf("socket directory %s has mode %#o, but the socket must live in a directory only you can open: run `chmod 700 %s` if it is IHMT's own, or set %s to a path in a private directory (e.g. %s)",
			dir, perm, dir, setting, filepath.Join(dir, fmt.Sprintf("ihmt-%d", uid), "ihmtd.sock"))
	}
	return nil
}

// removeStale removes a socket left behind by a daemon that died without
// closing its listener. The caller's store lock does not settle that no one
// listens: a daemon of another store may have been pointed at the same
// socket. So dial first, and never take a live socket away from its owner.
// Anything that is not a socket is someone's file: refuse rather than
// delete it.
func removeStale(path, setting string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check for stale socket: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket (mode %v); refusing to remove it: move it away or point %s elsewhere", path, fi.Mode(), setting)
	}
	if paths.Listening(path) {
		return fmt.Errorf("another process is already listening on %s (an ihmtd of another store?): stop it, or set %s to another path", path, setting)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// listener wraps, rather than embeds, *net.UnixListener: embedding would
// promote AcceptUnix, which would hand out connections without the uid check.
type listener struct {
	ul       *net.UnixListener
	uid      int
	onReject func(uid int, err error)
}

// Accept returns the next connection from a process of our uid. Rejected
// connections cost one getsockopt and a close; there is no read or write, so
// a peer that connects and stalls cannot hold Accept up.
func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.ul.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := PeerUID(c)
		if err == nil && uid == l.uid {
			return c, nil
		}
		if err == nil {
			err = fmt.Errorf("%w: uid %d, want %d", ErrOtherUser, uid, l.uid)
		} else {
			uid = -1
		}
		c.Close()
		if l.onReject != nil {
			l.onReject(uid, err)
		}
	}
}

// Close stops listening. It leaves the socket file for its owner to remove
// once it has really stopped (see Listen).
func (l *listener) Close() error { return l.ul.Close() }

func (l *listener) Addr() net.Addr { return l.ul.Addr() }

// PeerUID returns the uid of the process on the other end of a Unix
// connection: SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS. The kernel
// records it at connect time, so it cannot be forged by the peer. On other
// systems it returns an error, and Listen then refuses every connection:
// failing closed is the point of this package.
func PeerUID(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("peer credentials: %T has no file descriptor", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	uid := -1
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUID(int(fd)) }); err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return -1, fmt.Errorf("peer credentials: %w", credErr)
	}
	return uid, nil
}

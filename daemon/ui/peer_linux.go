package ui

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// TCP carries no peer credentials (SO_PEERCRED is for Unix sockets), but on
// Linux the kernel lists every TCP socket with its owner's uid in
// /proc/net/tcp. A connection to the page comes from a loopback socket
// whose local port is the connection's remote port: its row says whose it
// is, and one of another user is closed before a byte is read. Where the
// table cannot be read (a hardened /proc), the token alone guards.

// sameUser wraps lis so that it accepts only this process's user.
func sameUser(lis net.Listener) net.Listener {
	return &ownerListener{Listener: lis, uid: os.Getuid()}
}

type ownerListener struct {
	net.Listener
	uid int
}

// Accept returns the next connection from a process of the same user.
func (l *ownerListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, found, err := peerUID(conn)
		if err != nil || !found || uid == l.uid {
			// Unknown is let through to the token: refusing it would lock
			// the person out of their page on a system that hides /proc.
			return conn, nil
		}
		conn.Close()
	}
}

// peerUID finds the uid owning the other end of a loopback TCP connection.
func peerUID(conn net.Conn) (uid int, found bool, err error) {
	local, lok := conn.LocalAddr().(*net.TCPAddr)
	remote, rok := conn.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok {
		return 0, false, nil
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	return findOwner(f, remote.Port, local.Port)
}

// findOwner reads a /proc/net/tcp table for the socket whose local port is
// from and whose remote port is to, and returns its uid.
func findOwner(table io.Reader, from, to int) (uid int, found bool, err error) {
	want := fmt.Sprintf(":%04X", from)
	peer := fmt.Sprintf(":%04X", to)
	sc := bufio.NewScanner(table)
	sc.Scan() // the heading
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || !strings.HasSuffix(f[1], want) || !strings.HasSuffix(f[2], peer) {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			return 0, false, fmt.Errorf("read /proc/net/tcp: uid %q: %w", f[7], err)
		}
		return n, true, nil
	}
	return 0, false, sc.Err()
}

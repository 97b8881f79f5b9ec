package ui

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// TCP carries no peer credentials (SO_PEERCRED is for Unix sockets), but on
// Linux the kernel lists every TCP socket with its owner's uid in
// /proc/net/tcp, and every IPv6 one — a client may reach 127.0.0.1 from one
// as ::ffff:127.0.0.1 — in /proc/net/tcp6. A connection to the page comes
// from a loopback socket whose local port is the connection's remote port:
// its row says whose it is, and one of another user is closed before a byte
// is read. Where neither table can be read (a hardened /proc), the token
// alone guards.

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
	var errs []error
	for _, table := range tcpTables {
		uid, found, err := ownerIn(table, remote.Port, local.Port)
		if found {
			return uid, true, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == len(tcpTables) {
		return 0, false, errors.Join(errs...)
	}
	return 0, false, nil
}

// tcpTables are the kernel's tables of TCP sockets, IPv4 and IPv6.
var tcpTables = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// ownerIn is findOwner on the kernel's table at path.
func ownerIn(path string, from, to int) (uid int, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	return findOwner(f, from, to)
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

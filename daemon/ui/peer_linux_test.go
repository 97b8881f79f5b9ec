package ui

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindOwner reads the owner of a loopback connection's other end from a
// /proc/net/tcp table.
func TestFindOwner(t *testing.T) {
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:8CA1 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0 100 0 0 10 0
   1: 0100007F:D431 0100007F:8CA1 01 00000000:00000000 00:00000000 00000000  1001        0 2 1 0 20 4 30 10 -1
   2: 0100007F:8CA1 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0 20 4 30 10 -1
`
	tests := []struct {
		from, to int
		uid      int
		found    bool
	}{
		{0xD431, 0x8CA1, 1001, true}, // the client's socket: its owner
		{0x8CA1, 0xD431, 1000, true}, // the server's own end
		{0xD432, 0x8CA1, 0, false},   // no such connection
		{0x8CA1, 0x0000, 1000, true}, // the listener (rem port 0)
		{0x31D4, 0xA18C, 0, false},   // byte-swapped ports do not match
	}
	for _, tc := range tests {
		uid, found, err := findOwner(strings.NewReader(table), tc.from, tc.to)
		if err != nil || found != tc.found || uid != tc.uid {
			t.Errorf("findOwner(%#x → %#x) = %d %v %v, want %d %v", tc.from, tc.to, uid, found, err, tc.uid, tc.found)
		}
	}
	if _, _, err := findOwner(strings.NewReader("head\n 0: 0100007F:0001 0100007F:0002 01 0 0 0 x 0 1\n"), 1, 2); err == nil {
		t.Error("an unreadable uid should be an error")
	}
}

// TestPeerUIDOfOwnConnection: a real loopback connection of this process
// is found in the kernel's table, owned by this user.
func TestPeerUIDOfOwnConnection(t *testing.T) {
	lis, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	guarded := sameUser(lis)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := guarded.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	c, err := net.Dial("tcp4", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, ok := <-accepted
	if !ok {
		t.Fatal("the same user's connection was refused")
	}
	defer s.Close()
	uid, found, err := peerUID(s)
	if err != nil || !found || uid != os.Getuid() {
		t.Errorf("peerUID = %d %v %v, want %d", uid, found, err, os.Getuid())
	}
}

// TestPeerUIDInEitherTable: a client may reach the page's 127.0.0.1 from an
// IPv6 socket (::ffff:127.0.0.1), which the kernel lists in /proc/net/tcp6
// only: its owner is found there, not let through unknown; a connection in
// neither table is unknown, and with neither table readable it is an error.
func TestPeerUIDInEitherTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, rows string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"+rows), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v4 := write("tcp", "   0: 0100007F:8CA1 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1\n")
	v6 := write("tcp6", "   0: 0000000000000000FFFF00000100007F:D431 0000000000000000FFFF00000100007F:8CA1 01 00000000:00000000 00:00000000 00000000  1001        0 2\n")
	conn := fakeConn{local: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0x8CA1}, remote: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0xD431}}
	defer func(old []string) { tcpTables = old }(tcpTables)

	tcpTables = []string{v4, v6}
	if uid, found, err := peerUID(conn); err != nil || !found || uid != 1001 {
		t.Errorf("an IPv6 client: peerUID = %d %v %v, want 1001 found", uid, found, err)
	}
	tcpTables = []string{v4}
	if _, found, err := peerUID(conn); err != nil || found {
		t.Errorf("a client in no table: found %v, err %v; want unknown", found, err)
	}
	tcpTables = []string{filepath.Join(dir, "none"), filepath.Join(dir, "none6")}
	if _, found, err := peerUID(conn); err == nil || found {
		t.Errorf("no table readable: found %v, err %v; want an error", found, err)
	}
}

type fakeConn struct {
	net.Conn
	local, remote net.Addr
}

func (c fakeConn) LocalAddr() net.Addr  { return c.local }
func (c fakeConn) RemoteAddr() net.Addr { return c.remote }

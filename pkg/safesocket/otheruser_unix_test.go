//go:build unix

package safesocket

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// helperEnv, when set, makes TestOtherUserClientHelper act as the foreign
// client: it holds the socket path to dial.
const helperEnv = "IHMT_SAFESOCKET_TEST_DIAL"

// helperOK is printed by the helper once it has seen what it should, so the
// parent can tell a passing helper from one that was skipped.
const helperOK = "HELPER_SAW_CLOSE_WITHOUT_BYTES"

const nobody = 65534

// TestListenRejectsOtherUser runs a client as uid 65534 (nobody) against a
// socket whose directory and file modes have been loosened, so the OS
// permission check lets it connect: only the peer-credential check stands
// between it and the daemon. It then checks a same-uid client still gets in.
func TestListenRejectsOtherUser(t *testing.T) {
	requirePeerCred(t)
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another uid (uid 65534); run `sudo go test` to exercise the peer-credential check")
	}

	base := testenv.SocketDir(t)
	path := filepath.Join(base, "ihmtd.sock")
	type reject struct {
		uid int
		err error
	}
	rejects := make(chan reject, 8)
	ln, err := Listen(path, func(uid int, err error) { rejects <- reject{uid, err} })
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Undo the first two layers on purpose.
	chmod(t, base, 0o755)
	chmod(t, path, 0o777)

	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()

	bin := copyTestBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestOtherUserClientHelper$", "-test.v")
	cmd.Dir = filepath.Dir(bin) // our working directory may be closed to nobody
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), helperOK) {
		t.Fatalf("foreign client as uid %d: %v\n%s", nobody, err, out)
	}

	select {
	case r := <-rejects:
		if r.uid != nobody || !errors.Is(r.err, ErrOtherUser) {
			t.Errorf("onReject(%d, %v), want uid %d and ErrOtherUser", r.uid, r.err, nobody)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("onReject was not called for the foreign client")
	}

	// Positive control: the listener is still serving, and the first
	// connection Accept hands out is ours, not the foreign one.
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var sc net.Conn
	select {
	case sc = <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("same-uid connection not accepted after a rejection")
	}
	if sc == nil {
		t.Fatal("listener closed")
	}
	defer sc.Close()
	if uid, err := PeerUID(sc); err != nil || uid != os.Getuid() {
		t.Fatalf("accepted peer uid %d, %v; want %d", uid, err, os.Getuid())
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	sc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(sc, buf); err != nil || string(buf) != "ok" {
		t.Fatalf("same-uid data: %q, %v", buf, err)
	}
	select {
	case r := <-rejects:
		t.Errorf("extra reject: uid %d: %v", r.uid, r.err)
	default:
	}
}

// TestOtherUserClientHelper is not a test on its own: TestListenRejectsOtherUser
// re-executes the test binary as another uid to run it.
func TestOtherUserClientHelper(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper for TestListenRejectsOtherUser")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial as uid %d failed, so the OS refused us before peer credentials were checked: %v", os.Getuid(), err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if n != 0 || !(errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("read %d bytes %q, err %v; want the connection closed with no bytes", n, buf[:n], err)
	}
	t.Log(helperOK)
}

// copyTestBinary copies the running test binary into a world-readable
// directory: go test builds it under a directory only we can read, so
// nobody could not execute it in place.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "ihmt-bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	chmod(t, dir, 0o755)
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(dir, "safesocket.test")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	chmod(t, bin, 0o755)
	return bin
}

package daemon

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// notifyListener stands in for systemd: a datagram socket whose path goes
// into NOTIFY_SOCKET. It returns a function that reads the next message.
func notifyListener(t *testing.T) func() string {
	t.Helper()
	name := filepath.Join(testenv.SocketDir(t), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", name)
	return func() string {
		t.Helper()
		buf := make([]byte, 256)
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("read from NOTIFY_SOCKET: %v", err)
		}
		return string(buf[:n])
	}
}

func TestSdNotify(t *testing.T) {
	next := notifyListener(t)
	if err := sdNotify("READY=1"); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "READY=1" {
		t.Errorf("received %q, want READY=1", got)
	}
}

func TestSdNotifyWithoutSocketIsANoOp(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	if err := sdNotify("READY=1"); err != nil {
		t.Errorf("sdNotify without NOTIFY_SOCKET = %v, want nil", err)
	}
}

// TestRunNotifiesSystemd: a daemon under a Type=notify unit says READY=1
// once it serves, and STOPPING=1 when it begins to stop.
func TestRunNotifiesSystemd(t *testing.T) {
	next := notifyListener(t)
	dir := testenv.SocketDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Paths: paths.Paths{Data: filepath.Join(dir, "data"), Socket: filepath.Join(dir, "run", "s.sock")}})
	}()
	if got := next(); got != "READY=1" {
		t.Errorf("first message %q, want READY=1", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "s.sock")); err != nil {
		t.Errorf("READY=1 before the socket exists: %v", err)
	}
	cancel()
	if got := next(); got != "STOPPING=1" {
		t.Errorf("second message %q, want STOPPING=1", got)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

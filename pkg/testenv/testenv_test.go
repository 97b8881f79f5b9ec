package testenv

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSocketDir(t *testing.T) {
	var dir string
	t.Run("use", func(t *testing.T) {
		dir = SocketDir(t)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("SocketDir %s: %v, %v; want a directory of mode 0700", dir, fi, err)
		}
		// sun_path holds 104 bytes on macOS, 108 on Linux: leave room for
		// a name of the test's own beside the socket.
		if sock := Socket(t); len(sock) > 80 || filepath.Base(sock) != "ihmtd.sock" {
			t.Errorf("Socket = %q (%d bytes), want a short path ending in ihmtd.sock", sock, len(sock))
		}
	})
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SocketDir %s outlived its test: %v", dir, err)
	}
}

func TestContext(t *testing.T) {
	var ctx context.Context
	t.Run("use", func(t *testing.T) {
		ctx = Context(t)
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > Timeout {
			t.Errorf("deadline %v, %v; want within %v", dl, ok, Timeout)
		}
		if ctx.Err() != nil {
			t.Fatal("ended before the test")
		}
	})
	if ctx.Err() == nil {
		t.Error("the context outlived its test")
	}
}

func TestStaleSocket(t *testing.T) {
	path := Socket(t)
	StaleSocket(t, path)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("no socket file left: %v, %v", fi, err)
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		t.Error("something still listens on the stale socket")
	}
}

package testenv

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/pkg/store"
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

// TestLogs writes from several goroutines while reading (the race detector
// watches) and finds every line.
func TestLogs(t *testing.T) {
	const writers, lines = 4, 100
	var l Logs
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range lines {
				l.Write([]byte("line\n"))
				_ = l.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(l.String(), "line\n"); n != writers*lines {
		t.Errorf("%d lines, want %d", n, writers*lines)
	}
}

// TestDial reaches a server on an in-memory listener.
func TestDial(t *testing.T) {
	lis := bufconn.Listen(1 << 16)
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, health.NewServer())
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	r, err := healthpb.NewHealthClient(Dial(t, lis)).Check(Context(t), &healthpb.HealthCheckRequest{})
	if err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health over Dial = %v, %v; want SERVING", r, err)
	}
}

// TestOpenStore opens a store that takes a save, and closes it when the
// test ends.
func TestOpenStore(t *testing.T) {
	var st *store.Store
	save := func(ctx context.Context) error {
		_, err := st.Save(ctx, store.SaveInput{Caller: store.Caller{Agent: store.Agent{Name: "test"}}, Content: "The build runs on Go 1.25.", Scope: store.ScopeGlobal})
		return err
	}
	t.Run("use", func(t *testing.T) {
		st = OpenStore(t, t.TempDir())
		if err := save(Context(t)); err != nil {
			t.Fatal(err)
		}
	})
	if err := save(Context(t)); !errors.Is(err, store.ErrClosed) {
		t.Errorf("save after the test ended: %v, want store.ErrClosed", err)
	}
}

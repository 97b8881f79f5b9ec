package daemon

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// TestProfileSocket checks that -pprof-socket serves the runtime's profiles
// on a socket only its user can reach, and removes it at the stop; without
// the option there is no such socket.
func TestProfileSocket(t *testing.T) {
	for _, on := range []bool{true, false} {
		dir, err := os.MkdirTemp("", "ihmtp") // short: a socket path has a length limit
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		sock := filepath.Join(dir, "run", "pprof.sock")
		cfg := Config{Paths: paths.Paths{Data: filepath.Join(dir, "store"), Socket: filepath.Join(dir, "unused.sock")},
			Listener: bufconn.Listen(1 << 16), Logger: slog.New(slog.DiscardHandler)}
		if on {
			cfg.ProfileSocket = sock
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Run(ctx, cfg) }()

		body, err := getOverUnix(sock, "/debug/pprof/goroutine?debug=1")
		switch {
		case on && err != nil:
			t.Fatalf("profiles on: %v", err)
		case on && !strings.Contains(body, "goroutine profile"):
			t.Errorf("profiles on: got %.200q, want a goroutine profile", body)
		case !on && err == nil:
			t.Errorf("profiles off, yet %s answers", sock)
		}
		if on {
			if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("profile socket: %v %v, want mode 0600", fi.Mode(), err)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		if _, err := os.Stat(sock); !os.IsNotExist(err) {
			t.Errorf("profile socket still there after the stop: %v", err)
		}
	}
}

// getOverUnix GETs path from an HTTP server on the Unix socket sock,
// retrying while the daemon starts.
func getOverUnix(sock, path string) (string, error) {
	c := http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}, Timeout: 5 * time.Second}
	var err error
	for range 100 {
		var r *http.Response
		if r, err = c.Get("http://ihmtd" + path); err == nil {
			defer r.Body.Close()
			b, err := io.ReadAll(r.Body)
			return string(b), err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", err
}

// TestProfileSocketRefused: a profile socket the daemon must refuse (its
// directory open to others) costs the profiles only: the daemon serves
// the memory, and the refusal names -pprof-socket, not IHMT_SOCKET. The
// same socket in a private directory serves profiles (TestProfileSocket).
func TestProfileSocketRefused(t *testing.T) {
	dir, err := os.MkdirTemp("", "ihmtp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o755)
	var logs strings.Builder
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) })
	sock := filepath.Join(dir, "ihmtd.sock")
	cfg := Config{Paths: paths.Paths{Data: filepath.Join(dir, "store"), Socket: sock},
		ProfileSocket: filepath.Join(open, "pprof.sock"), Logger: slog.New(slog.NewTextHandler(w, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg) }()
	c, err := client.New(client.Options{Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()) != nil {
		select {
		case err := <-done:
			t.Fatalf("the daemon stopped over its profile socket: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon does not serve")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	got := logs.String()
	mu.Unlock()
	if !strings.Contains(got, "-pprof-socket") || strings.Contains(got, "IHMT_SOCKET") {
		t.Errorf("the refusal should name -pprof-socket and only it:\n%s", got)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

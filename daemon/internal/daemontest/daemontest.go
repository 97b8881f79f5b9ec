// Package daemontest holds what the daemon's tests share: a log buffer
// that a daemon and its test may both use, a store that closes with the
// test, a context that bounds a test's calls, and a client connection to
// a server on an in-memory listener.
package daemontest

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/pkg/store"
)

// Logs is a bytes.Buffer that a daemon (or a process it runs) and the test
// may share.
type Logs struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// OpenStore opens the store in dir with default options, closed when the
// test ends.
func OpenStore(t testing.TB, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Context bounds a test's calls, so that a stuck daemon fails the test
// instead of hanging it.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Dial connects to the server on lis, closed when the test ends.
func Dial(t testing.TB, lis *bufconn.Listener) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

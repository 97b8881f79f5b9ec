// Package testenv is what IHMT's tests and benchmarks need from the
// machine they run on and from the daemon's parts: directories short
// enough for a Unix socket, contexts bounded by the test, the three
// programs built once per test binary, a log buffer a process and its test
// may share, the pieces of an in-process daemon (a store closed with the
// test, a gRPC connection over an in-memory listener), and what a package
// links (Deps), for the tests that keep packages apart.
//
// Only tests and the benchmark scripts import it; no program that ships
// does (the shim's deps test refuses every pkg/ package it does not list).
// It imports the store, so the store and its parts cannot use it in their
// own tests: that would be an import cycle.
package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// SocketDir returns a fresh directory of mode 0700 whose path fits a Unix
// socket address, removed when the test ends. It is not t.TempDir: that
// path holds the test's name and can pass the ~104-byte sun_path limit
// (macOS's temporary directory is long already).
func SocketDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ihmt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Socket returns where a test's daemon listens: ihmtd.sock in a fresh
// SocketDir.
func Socket(t testing.TB) string {
	t.Helper()
	return filepath.Join(SocketDir(t), "ihmtd.sock")
}

// Timeout bounds a Context: long enough for any one call to a test's
// daemon on a loaded machine, short enough that a hung call fails the test
// rather than the whole run.
const Timeout = 10 * time.Second

// Context returns a context that ends after Timeout, or when the test does.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	t.Cleanup(cancel)
	return ctx
}

// Binaries are the module's three programs, built into one directory.
type Binaries struct {
	Dir    string // all three, under their own names
	Daemon string // ihmtd
	Shim   string // ihmt-mcp
	CLI    string // ihmt
}

// mains are the programs' packages, by the name each is built under.
var mains = map[string]string{
	"ihmtd":    "github.com/ihmt-dev/ihmt/daemon/cmd/ihmtd",
	"ihmt-mcp": "github.com/ihmt-dev/ihmt/shim/cmd/ihmt-mcp",
	"ihmt":     "github.com/ihmt-dev/ihmt/client/cmd/ihmt",
}

// Build builds ihmtd, ihmt-mcp and ihmt into dir with the go command on
// PATH (go test puts its own first), as a plain build: the programs are
// what is under test, and a race-instrumented daemon would be slower than
// the one people run. For a TestMain; tests call Built.
func Build(dir string) (Binaries, error) {
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), mains["ihmtd"], mains["ihmt-mcp"], mains["ihmt"])
	if out, err := cmd.CombinedOutput(); err != nil {
		return Binaries{}, fmt.Errorf("build the binaries: %v\n%s", err, out)
	}
	return Binaries{
		Dir:    dir,
		Daemon: filepath.Join(dir, "ihmtd"),
		Shim:   filepath.Join(dir, "ihmt-mcp"),
		CLI:    filepath.Join(dir, "ihmt"),
	}, nil
}

// built builds once per test binary, for every test that asks. Its
// directory outlives the tests: nothing runs after the last of them to
// remove it.
var built = sync.OnceValues(func() (Binaries, error) {
	dir, err := os.MkdirTemp("", "ihmt-bin")
	if err != nil {
		return Binaries{}, err
	}
	return Build(dir)
})

// Built returns the three programs, building them on the first call of the
// test binary. Under -short it skips the test instead: building takes a
// while.
func Built(t testing.TB) Binaries {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	b, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// StaleSocket leaves a socket file at path that nobody listens on, as a
// daemon that died without closing its listener leaves it.
func StaleSocket(t testing.TB, path string) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
}

// Logs is a bytes.Buffer that a daemon (or a process it runs) and the test
// may share: writes and reads may come from different goroutines.
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

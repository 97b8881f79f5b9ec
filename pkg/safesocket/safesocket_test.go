package safesocket

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// requirePeerCred skips tests that need a connection to be accepted: where
// PeerUID is unsupported, Listen rejects everything by design.
func requirePeerCred(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("peer credentials not implemented on %s", runtime.GOOS)
	}
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// mkdir makes a directory of exactly mode, whatever the umask.
func mkdir(t *testing.T, dir string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	chmod(t, dir, mode)
}

func chmod(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// failOnReject is an onReject for tests in which every peer is ourselves.
func failOnReject(t *testing.T) func(int, error) {
	return func(uid int, err error) { t.Errorf("unexpected reject: uid %d: %v", uid, err) }
}

func TestListenPreparesPath(t *testing.T) {
	const otherUID = 65534
	tests := []struct {
		name     string
		rootOnly bool // needs to chown to another uid
		// setup gets the socket's directory and path; neither exists yet,
		// though the directory's parent does.
		setup   func(t *testing.T, dir, path string)
		wantErr string
		// check runs after Listen, whether or not it failed.
		check func(t *testing.T, dir, path string)
	}{
		{
			name:  "creates missing directory",
			setup: func(*testing.T, string, string) {},
		},
		{
			name: "keeps private directory",
			setup: func(t *testing.T, dir, _ string) {
				mkdir(t, dir, 0o700)
			},
		},
		{
			// Shared or personal directories (/tmp, $HOME) must never be
			// chmod-ed because IHMT_SOCKET points into them.
			name: "refuses our 0755 directory and leaves it alone",
			setup: func(t *testing.T, dir, _ string) {
				mkdir(t, dir, 0o755)
			},
			wantErr: "only you can open",
			check: func(t *testing.T, dir, _ string) {
				if got := perm(t, dir); got != 0o755 {
					t.Errorf("directory mode changed to %#o", got)
				}
			},
		},
		{
			name: "refuses a sticky world-writable directory like /tmp",
			setup: func(t *testing.T, dir, _ string) {
				mkdir(t, dir, 0o700)
				if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "only you can open",
		},
		{
			name: "removes stale socket",
			setup: func(t *testing.T, dir, path string) {
				mkdir(t, dir, 0o700)
				testenv.StaleSocket(t, path)
				fi, err := os.Lstat(path)
				if err != nil || fi.Mode().Type() != fs.ModeSocket {
					t.Fatalf("stale socket not left behind: %v, %v", fi, err)
				}
			},
		},
		{
			// A daemon of another store pointed at the same socket must not
			// take it from the live one.
			name: "refuses to take a live socket",
			setup: func(t *testing.T, dir, path string) {
				mkdir(t, dir, 0o700)
				ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ln.Close() })
			},
			wantErr: "already listening",
			check: func(t *testing.T, _, path string) {
				if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeSocket {
					t.Errorf("the live socket was removed: %v, %v", fi, err)
				}
			},
		},
		{
			name: "refuses to remove a regular file",
			setup: func(t *testing.T, dir, path string) {
				mkdir(t, dir, 0o700)
				if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "is not a socket",
			check: func(t *testing.T, _, path string) {
				b, err := os.ReadFile(path)
				if err != nil || string(b) != "precious" {
					t.Errorf("regular file disturbed: %q, %v", b, err)
				}
			},
		},
		{
			name: "refuses to remove a directory",
			setup: func(t *testing.T, dir, path string) {
				if err := os.MkdirAll(path, 0o700); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "is not a socket",
			check: func(t *testing.T, _, path string) {
				if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
					t.Errorf("directory at socket path disturbed: %v", err)
				}
			},
		},
		{
			name: "refuses a symlinked directory",
			setup: func(t *testing.T, dir, _ string) {
				target := dir + "-target"
				mkdir(t, target, 0o755)
				if err := os.Symlink(target, dir); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "is a symlink",
			check: func(t *testing.T, dir, _ string) {
				if got := perm(t, dir+"-target"); got != 0o755 {
					t.Errorf("symlink target mode changed to %v", got)
				}
			},
		},
		{
			name: "refuses a directory that is a file",
			setup: func(t *testing.T, dir, _ string) {
				if err := os.WriteFile(dir, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "create socket directory",
		},
		{
			name:     "refuses another user's directory",
			rootOnly: true,
			setup: func(t *testing.T, dir, _ string) {
				mkdir(t, dir, 0o755)
				if err := os.Chown(dir, otherUID, otherUID); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "owned by uid 65534",
			check: func(t *testing.T, dir, _ string) {
				if got := perm(t, dir); got != 0o755 {
					t.Errorf("another user's directory mode changed to %v", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && os.Getuid() != 0 {
				t.Skip("needs root to create a directory owned by another uid")
			}
			t.Parallel()
			dir := filepath.Join(testenv.SocketDir(t), "run")
			path := filepath.Join(dir, "ihmtd.sock")
			tt.setup(t, dir, path)

			ln, err := Listen(path, failOnReject(t))
			if tt.check != nil {
				defer tt.check(t, dir, path)
			}
			if tt.wantErr != "" {
				if err == nil {
					ln.Close()
					t.Fatalf("Listen succeeded, want error containing %q", tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Listen error %q, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Listen: %v", err)
			}
			defer ln.Close()
			if got := perm(t, dir); got != 0o700 {
				t.Errorf("directory mode %v, want 0700", got)
			}
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
				t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
			}
		})
	}
}

func TestListenSameUser(t *testing.T) {
	requirePeerCred(t)
	path := filepath.Join(testenv.SocketDir(t), "ihmtd.sock")
	ln, err := Listen(path, failOnReject(t))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	type accepted struct {
		uid int
		err error
	}
	done := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- accepted{-1, err}
			return
		}
		defer c.Close()
		uid, err := PeerUID(c)
		if err == nil {
			// Echo one message so the test sees data flow both ways.
			buf := make([]byte, 4)
			if _, err = io.ReadFull(c, buf); err == nil {
				_, err = c.Write(buf)
			}
		}
		done <- accepted{uid, err}
	}()

	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo: %q, %v", buf, err)
	}
	got := <-done
	if got.err != nil || got.uid != os.Getuid() {
		t.Errorf("server saw peer uid %d, %v; want %d", got.uid, got.err, os.Getuid())
	}
	if uid, err := PeerUID(c); err != nil || uid != os.Getuid() {
		t.Errorf("client saw peer uid %d, %v; want %d", uid, err, os.Getuid())
	}
}

func TestCloseLeavesSocketForOwner(t *testing.T) {
	path := filepath.Join(testenv.SocketDir(t), "ihmtd.sock")
	ln, err := Listen(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close = %v, want net.ErrClosed", err)
	}
	// The file stays until the owner removes it, and a new Listen (the next
	// daemon, holding the lock) treats it as stale.
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeSocket {
		t.Fatalf("socket file after Close: %v, %v", fi, err)
	}
	ln2, err := Listen(path, nil)
	if err != nil {
		t.Fatalf("Listen over the closed socket: %v", err)
	}
	ln2.Close()
	os.Remove(path)
}

func TestPeerUID(t *testing.T) {
	requirePeerCred(t)
	path := filepath.Join(testenv.SocketDir(t), "s")
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	unixConn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer unixConn.Close()
	pipe, pipe2 := net.Pipe()
	defer pipe.Close()
	defer pipe2.Close()

	tests := []struct {
		name    string
		conn    net.Conn
		want    int
		wantErr bool
	}{
		{"unix connection", unixConn, os.Getuid(), false},
		{"no file descriptor", pipe, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PeerUID(tt.conn)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("PeerUID = %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

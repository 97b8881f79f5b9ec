package paths_test

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestProbe: what a client learns before it dials, through a socket's life —
// none, listening, and left behind by a listener that closed.
func TestProbe(t *testing.T) {
	path := filepath.Join(testenv.SocketDir(t), "ihmtd.sock")
	check := func(stage string, wantListening, wantOwned bool) {
		t.Helper()
		if got := paths.Listening(path); got != wantListening {
			t.Errorf("%s: Listening = %v, want %v", stage, got, wantListening)
		}
		uid, ok := paths.Owner(path)
		if ok != wantOwned || (ok && uid != os.Getuid()) {
			t.Errorf("%s: Owner = %d, %v; want ours (%d): %v", stage, uid, ok, os.Getuid(), wantOwned)
		}
	}
	check("no socket", false, false)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false) // as a daemon that died leaves its socket
	check("listening", true, true)
	ln.Close()
	check("left behind", false, true)
	os.Remove(path)
}

package ui_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

const nobody = 65534

// TestOtherUserRefused: another user's process that knows the page's whole
// address, token included, gets no answer — its connection is closed before
// a byte is read — while the same program run as the owner gets in.
func TestOtherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a client as another uid (65534); run the tests as root, e.g. in a container")
	}
	w := startDaemon(t, 0)
	r, err := w.person.ServePage(testenv.Context(t), &ihmtv1.ServeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// go test's build directory may be closed to nobody: run a copy.
	dir, err := os.MkdirTemp("", "ihmt-ui-bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "ui.test")
	copyExecutable(t, os.Args[0], bin)
	run := func(as *syscall.SysProcAttr) (int, string) {
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), fetchEnv+"="+r.GetUrl())
		cmd.Dir, cmd.SysProcAttr = dir, as
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	// Positive control: the owner's fetch with the token is answered.
	if code, out := run(nil); code != 0 || !strings.Contains(out, "303") {
		t.Fatalf("the owner's fetch: exit %d: %s", code, out)
	}
	code, out := run(&syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}})
	if code != 3 {
		t.Errorf("uid %d with the token: exit %d: %s: want no answer", nobody, code, out)
	}
	t.Logf("uid %d: %s", nobody, strings.TrimSpace(out))
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

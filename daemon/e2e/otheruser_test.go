package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

const nobody = 65534

// TestOtherUserRefused loosens the socket's directory and file modes on
// purpose, so the file system lets another user connect, and runs the CLI as
// uid 65534: the daemon's peer-credential check must still turn it away,
// for reads and writes alike, while the same binary run as the owner gets in.
func TestOtherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run ihmt as another uid (65534); run the tests as root, e.g. in a container, to exercise the peer-credential check end to end")
	}
	e := newEnv(t)
	const project = "github.com/ihmt-e2e/otheruser"
	d := e.startDaemon(t)
	before := e.waitReady(t, d)
	// The first two layers as the daemon set them up, before this test
	// undoes them.
	for path, want := range map[string]os.FileMode{e.sockDir: 0o700, e.sock: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
	for path, mode := range map[string]os.FileMode{e.sockDir: 0o755, e.sock: 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}

	// go test's build directory may be closed to nobody: run a copy.
	binDir, err := os.MkdirTemp("", "ihmt-bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(binDir) })
	if err := os.Chmod(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	ihmt := filepath.Join(binDir, "ihmt")
	copyFile(t, bins.CLI, ihmt, 0o755)
	env := e.environ(project, "HOME=/nonexistent")
	asNobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}

	// Layer one, the client: it sees the socket belongs to someone else and
	// says so at once instead of retrying into a refusal.
	var status, write cliResult
	var wg sync.WaitGroup
	wg.Go(func() { status = runCmd(ihmt, binDir, env, asNobody, "status") })
	wg.Go(func() {
		write = runCmd(ihmt, binDir, env, asNobody, "save", "a stranger writes into someone else's memory")
	})
	wg.Wait()
	for name, r := range map[string]cliResult{"status": status, "save": write} {
		if r.code == 0 || r.code == -1 || !strings.Contains(r.stderr, "belongs to uid 0") {
			t.Errorf("ihmt %s as uid %d: want a non-zero exit naming the socket's owner; got %s", name, nobody, r)
		}
		t.Logf("ihmt %s as uid %d: exit %d after %s: %s", name, nobody, r.code, r.took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	}

	// Layer two, the daemon: a raw gRPC call from uid 65534, with no client
	// in the way, is cut off by the peer-credential check.
	self := filepath.Join(binDir, "e2e.test")
	copyFile(t, os.Args[0], self, 0o755)
	raw := runCmd(self, binDir, append(env, rawDialEnv+"="+e.sock), asNobody)
	if raw.code != rawRefused {
		t.Errorf("raw health check as uid %d: want exit %d (connection refused by the daemon); got %s", nobody, rawRefused, raw)
	}
	waitFor(t, 5*time.Second, func() (bool, string) {
		return strings.Contains(d.out.String(), "refused a connection from another user"),
			"the daemon did not log refusing uid 65534:\n" + d.out.String()
	})
	if !strings.Contains(d.out.String(), "uid=65534") {
		t.Errorf("the refusal does not name uid 65534:\n%s", d.out)
	}
	// The same raw call as root gets through (positive control for layer two).
	if r := runCmd(self, binDir, append(env, rawDialEnv+"="+e.sock), nil); r.code != 0 {
		t.Errorf("raw health check as root: want exit 0; got %s", r)
	}

	// Positive control: the same copy, as root.
	r := runCmd(ihmt, binDir, env, nil, "status")
	if r.code != 0 || !strings.Contains(r.stdout, "running") {
		t.Fatalf("ihmt status as root: %s", r)
	}
	if after := e.waitReady(t, d); after.Memories != before.Memories || after.LogEntries != before.LogEntries {
		t.Errorf("the refused save changed the store: %d → %d memories", before.Memories, after.Memories)
	}
}

// rawDialEnv makes the test binary dial a daemon and exit (see TestMain).
const rawDialEnv = "IHMT_E2E_RAW_DIAL"

// rawRefused is the raw dialer's exit status when the daemon refused it.
const rawRefused = 7

// rawHealthCheck calls the health service on sock with a bare gRPC client and
// returns 0 when it is served, rawRefused when the connection is refused or
// cut, 1 otherwise.
func rawHealthCheck(sock string) int {
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "raw dial:", err)
		return 1
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	switch status.Code(err) {
	case codes.OK:
		return 0
	case codes.Unavailable, codes.DeadlineExceeded:
		fmt.Fprintln(os.Stderr, "raw health check refused:", err)
		return rawRefused
	}
	fmt.Fprintln(os.Stderr, "raw health check:", err)
	return 1
}

// TestForeignStoreUntouched: a store directory another uid owns is refused
// before the daemon touches it — no ihmtd.lock appears in it, and no
// "ihmtd listening" is logged before the refusal — while the same start on
// a store of the daemon's own uid serves (the control).
func TestForeignStoreUntouched(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a store owned by another uid (65534)")
	}
	e := newEnv(t)
	if err := os.MkdirAll(e.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(e.home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	d := e.startDaemon(t)
	code, _ := d.waitExit(t, 30*time.Second)
	out := d.out.String()
	if code == 0 || !strings.Contains(out, "belongs to uid 65534") {
		t.Errorf("a store owned by uid %d: exit %d, want a refusal naming its owner:\n%s", nobody, code, out)
	}
	if strings.Contains(out, "ihmtd listening") {
		t.Errorf("\"ihmtd listening\" logged for a store that is refused:\n%s", out)
	}
	if entries, _ := os.ReadDir(e.home); len(entries) != 0 {
		var names []string
		for _, de := range entries {
			names = append(names, de.Name())
		}
		t.Errorf("the refused store was touched: %v", names)
	}
	if _, err := os.Stat(e.sock); err == nil {
		t.Errorf("a refused daemon left its socket %s", e.sock)
	}
	// Control: the store made the daemon's own, the same start serves.
	if err := os.Chown(e.home, 0, 0); err != nil {
		t.Fatal(err)
	}
	ok := e.startDaemon(t)
	e.waitReady(t, ok)
	if _, err := os.Stat(filepath.Join(e.home, "ihmtd.lock")); err != nil {
		t.Errorf("control: the daemon's own store has no lock file: %v", err)
	}
	if !strings.Contains(ok.out.String(), "ihmtd listening") {
		t.Errorf("control: no \"ihmtd listening\" from a serving daemon:\n%s", ok.out)
	}
}

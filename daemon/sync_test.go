package daemon

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// TestBackgroundSync: with [sync] interval in config.toml, the daemon syncs
// by itself — a memory saved after init reaches the remote with nobody
// running `ihmt sync` — and stops its loop cleanly with the daemon.
func TestBackgroundSync(t *testing.T) {
	oldCheck, oldMin := syncCheck, minSyncInterval
	syncCheck, minSyncInterval = 50*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { syncCheck, minSyncInterval = oldCheck, oldMin })

	remote := filepath.Join(t.TempDir(), "memory.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v: %s", err, out)
	}
	p := paths.Paths{Data: filepath.Join(t.TempDir(), "store"), Socket: filepath.Join(t.TempDir(), "unused", "ihmtd.sock")}
	if err := os.MkdirAll(p.Data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Data, ConfigName), []byte("[sync]\ninterval = \"200ms\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &testenv.Logs{}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Paths: p, Listener: lis, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	}()
	conn := testenv.Dial(t, lis)
	person := &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, SessionId: "cli"}
	sy := ihmtv1.NewSyncServiceClient(conn)
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err = sy.Init(ctx, &ihmtv1.SyncServiceInitRequest{Caller: person, Remote: remote, Device: "box"}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("init: %v\n%s", err, logs)
	}
	saved, err := ihmtv1.NewMemoryServiceClient(conn).Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: "The nightly job rotates the logs at 02:00."})
	if err != nil {
		t.Fatal(err)
	}
	id := saved.GetId()
	reached := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !reached; time.Sleep(100 * time.Millisecond) {
		out, _ := exec.Command("git", "-C", remote, "ls-tree", "-r", "--name-only", "main").Output()
		reached = strings.Contains(string(out), "/"+id+"/")
	}
	if !reached {
		t.Fatalf("memory %s never reached the remote by the background sync\n%s", id, logs)
	}
	st, err := sy.Status(ctx, &ihmtv1.SyncServiceStatusRequest{Caller: person})
	if err != nil || st.GetStatus().GetIntervalSeconds() != 0 || st.GetStatus().GetLastSync() == nil {
		// 200 ms rounds down to 0 whole seconds; what matters is that it ran.
		t.Errorf("status: %v %v", st, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the daemon did not stop\n%s", logs)
	}
}

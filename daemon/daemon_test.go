package daemon

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

var alice = &ihmtv1.Caller{AgentName: "claude-code", AgentVersion: "2.1", SessionId: "s1", Project: "github.com/org/alpha"}

// TestRunOverListener runs the daemon's whole life on an in-memory listener:
// it serves, reports where its store is, refuses a second daemon on the same
// store, and stops cleanly when asked.
func TestRunOverListener(t *testing.T) {
	p := paths.Paths{Data: filepath.Join(t.TempDir(), "store"), Socket: filepath.Join(t.TempDir(), "unused", "ihmtd.sock")}
	lis := bufconn.Listen(1 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &testenv.Logs{}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Paths: p, Listener: lis, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	}()

	conn := testenv.Dial(t, lis)
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: ihmtv1.MemoryService_ServiceDesc.ServiceName})
		if err == nil && r.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not serving after 10 s: %v %v\n%s", r, err, logs)
		}
		time.Sleep(10 * time.Millisecond)
	}

	api := ihmtv1.NewMemoryServiceClient(conn)
	stats, err := api.Stats(ctx, &ihmtv1.StatsRequest{Caller: alice})
	if err != nil {
		t.Fatal(err)
	}
	if stats.GetStorePath() != p.Data || stats.GetVersion() != version.Version {
		t.Errorf("stats = %v", stats)
	}
	if _, err := os.Stat(p.LockFile()); err != nil {
		t.Errorf("no lock file: %v", err)
	}

	err = Run(ctx, Config{Paths: p, Listener: bufconn.Listen(1024), Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, ErrLockHeld) {
		t.Errorf("second daemon on the same store: %v, want ErrLockHeld", err)
	}

	if _, err := api.Shutdown(ctx, &ihmtv1.ShutdownRequest{Caller: alice}); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after shutdown = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Run did not return after shutdown\n%s", logs)
	}
	if _, err := os.Stat(filepath.Dir(p.Socket)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Run with a listener touched the socket path: %v", err)
	}
}

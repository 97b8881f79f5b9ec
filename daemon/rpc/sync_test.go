package rpc

import (
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/pkg/gitsync"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// TestSyncServiceIsThePersons: an agent can neither set sync up, start one
// nor read its status; the person can, and is told to init first, and what
// is wrong with a remote that cannot be read.
func TestSyncServiceIsThePersons(t *testing.T) {
	dir := t.TempDir()
	st := testenv.OpenStore(t, dir)
	d := serve(t, st)
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	ihmtv1.RegisterSyncServiceServer(gs, d.srv.Sync(gitsync.New(st, dir), nil))
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	api := ihmtv1.NewSyncServiceClient(testenv.Dial(t, lis))
	ctx := testenv.Context(t)
	person := &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, SessionId: "cli"}
	remote := filepath.Join(t.TempDir(), "memory.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v: %s", err, out)
	}

	cases := []struct {
		name string
		call func() error
		want codes.Code
	}{
		{"agent init", func() error {
			_, err := api.Init(ctx, &ihmtv1.SyncServiceInitRequest{Caller: alice, Remote: remote})
			return err
		}, codes.PermissionDenied},
		{"agent sync", func() error { _, err := api.Sync(ctx, &ihmtv1.SyncRequest{Caller: alice}); return err }, codes.PermissionDenied},
		{"agent status", func() error {
			_, err := api.Status(ctx, &ihmtv1.SyncServiceStatusRequest{Caller: alice})
			return err
		}, codes.PermissionDenied},
		{"sync before init", func() error { _, err := api.Sync(ctx, &ihmtv1.SyncRequest{Caller: person}); return err }, codes.FailedPrecondition},
		{"a remote that is not there", func() error {
			_, err := api.Init(ctx, &ihmtv1.SyncServiceInitRequest{Caller: person, Remote: filepath.Join(t.TempDir(), "none.git")})
			return err
		}, codes.InvalidArgument},
		{"a remote that looks like an option", func() error {
			_, err := api.Init(ctx, &ihmtv1.SyncServiceInitRequest{Caller: person, Remote: "--upload-pack=evil"})
			return err
		}, codes.InvalidArgument},
		{"the person: init", func() error {
			_, err := api.Init(ctx, &ihmtv1.SyncServiceInitRequest{Caller: person, Remote: remote, Device: "laptop"})
			return err
		}, codes.OK},
		{"the person: sync", func() error { _, err := api.Sync(ctx, &ihmtv1.SyncRequest{Caller: person}); return err }, codes.OK},
	}
	for _, c := range cases {
		if got := status.Code(c.call()); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	resp, err := api.Status(ctx, &ihmtv1.SyncServiceStatusRequest{Caller: person})
	if err != nil || !resp.GetStatus().GetEnabled() || resp.GetStatus().GetDevice() != "laptop" || resp.GetStatus().GetLastSync() == nil {
		t.Errorf("status: %v, %v", resp, err)
	}
}

package rpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/pkg/gitsync"
	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// SyncServer is the SyncService over the daemon's sync (pkg/gitsync). It
// is the person's: an agent can neither set it up nor start one.
type SyncServer struct {
	ihmtv1.UnimplementedSyncServiceServer
	sy       *gitsync.Syncer
	interval func() time.Duration
}

// Sync returns the SyncService over sy; interval says the background
// sync's interval (0: off) for Status.
func (s *Server) Sync(sy *gitsync.Syncer, interval func() time.Duration) *SyncServer {
	return &SyncServer{sy: sy, interval: interval}
}

func personOnly(c *ihmtv1.Caller, what string) error {
	if caller(c).IsPerson() {
		return nil
	}
	return toStatus(fmt.Errorf("%w: %s is the user's decision; ask them to run `ihmt %s`", store.ErrPermission, what, what))
}

// syncStatusErr translates sync's errors; the store's go through toStatus.
func syncStatusErr(err error) error {
	switch {
	case errors.Is(err, gitsync.ErrNoGit), errors.Is(err, gitsync.ErrNotInitialized):
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	return toStatus(err)
}

// Init sets up sync with a remote.
func (ss *SyncServer) Init(ctx context.Context, req *ihmtv1.SyncServiceInitRequest) (*ihmtv1.SyncServiceInitResponse, error) {
	if err := personOnly(req.GetCaller(), "sync init"); err != nil {
		return nil, err
	}
	st, err := ss.sy.Init(ctx, req.GetRemote(), req.GetDevice())
	if err != nil {
		return nil, syncStatusErr(err)
	}
	return &ihmtv1.SyncServiceInitResponse{Status: ss.statusReply(st)}, nil
}

// Sync syncs now.
func (ss *SyncServer) Sync(ctx context.Context, req *ihmtv1.SyncRequest) (*ihmtv1.SyncResponse, error) {
	if err := personOnly(req.GetCaller(), "sync"); err != nil {
		return nil, err
	}
	if !ss.sy.Enabled() {
		return nil, syncStatusErr(fmt.Errorf("%w: run `ihmt sync init REMOTE` first (a bare repository, an ssh remote, a private repository)", gitsync.ErrNotInitialized))
	}
	rep, err := ss.sy.Sync(ctx)
	if err != nil {
		return nil, syncStatusErr(err)
	}
	return &ihmtv1.SyncResponse{Report: reportReply(rep)}, nil
}

// Status says where sync stands.
func (ss *SyncServer) Status(ctx context.Context, req *ihmtv1.SyncServiceStatusRequest) (*ihmtv1.SyncServiceStatusResponse, error) {
	if err := personOnly(req.GetCaller(), "sync status"); err != nil {
		return nil, err
	}
	st, err := ss.sy.Status(ctx, req.GetFetch())
	if err != nil {
		return nil, syncStatusErr(err)
	}
	return &ihmtv1.SyncServiceStatusResponse{Status: ss.statusReply(st)}, nil
}

func (ss *SyncServer) statusReply(st gitsync.Status) *ihmtv1.SyncStatus {
	out := &ihmtv1.SyncStatus{Enabled: st.Enabled, Dir: st.Dir, Remote: st.Remote, Device: st.Device,
		GitVersion: st.GitVersion, LastError: st.LastError, ToSend: int64(st.ToSend), Unpushed: int64(st.Unpushed),
		ToReceive: int64(st.ToReceive), Devices: st.Devices, Refused: refusalsReply(st.Refused)}
	if !st.LastSync.IsZero() {
		out.LastSync = timestamppb.New(st.LastSync)
	}
	if ss.interval != nil {
		out.IntervalSeconds = int64(ss.interval() / time.Second)
	}
	return out
}

func reportReply(r gitsync.Report) *ihmtv1.SyncReport {
	return &ihmtv1.SyncReport{Device: r.Device, Remote: r.Remote, Published: int64(r.Published), Received: int64(r.Received),
		Admitted: int64(r.Admitted), Unchanged: int64(r.Unchanged), Purged: int64(r.Purged), Held: int64(r.Held),
		Refused: refusalsReply(r.Refused), Pushed: r.Pushed, Commit: r.Commit, TookMs: r.Took.Milliseconds(),
		Devices: r.Devices, Problems: r.Problems}
}

func refusalsReply(rs []gitsync.Refused) []*ihmtv1.SyncRefusal {
	out := make([]*ihmtv1.SyncRefusal, len(rs))
	for i, r := range rs {
		out[i] = &ihmtv1.SyncRefusal{Outgoing: r.Outgoing, Id: r.ID, Path: r.Path, Device: r.Device, Reason: r.Reason}
	}
	return out
}

// Package rpc adapts the memory store to the gRPC API, ihmt.v1.MemoryService.
//
// It is the daemon's boundary with the wire and holds nothing of its own
// but counters: each call takes the open store from the daemon, asks it,
// and says the answer in the API's terms. Every handler has the same shape
// (withStore); requests and replies are converted in one file (convert.go);
// the store's errors become gRPC codes in one function (toStatus). The
// handlers are grouped by what they touch: memories, review, history (the
// log, the audit and the fact timelines), transfer (export, import and
// ingest) and the summary tree; the daemon's own calls (stats, shutdown,
// rebuild) are in this file.
//
// The server is registered before the store is open, so that clients can
// connect while a large store loads; until then every call answers
// Unavailable and the client retries.
package rpc

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Config is what the adapter needs from the daemon.
type Config struct {
	// Log receives the failed calls and the daemon's notices; nil means
	// slog.Default().
	Log *slog.Logger
	// Store returns the open store, or nil while the daemon opens it (at
	// its start, or again for a rebuild).
	Store func() *store.Store
	// StorePath, SocketPath and IdleExit are what Stats says of the daemon.
	StorePath, SocketPath string
	IdleExit              bool
	// Shutdown asks the daemon to stop. It returns at once: the stop
	// waits for the calls in flight, this one included.
	Shutdown func()
	// Rebuild closes the store and opens it again from its leaf files,
	// which re-derives everything derived from them. It is the daemon's
	// life, not a call's; nil means this daemon cannot reopen its store.
	Rebuild func(ctx context.Context, c store.Caller) (RebuildReport, error)
}

// RebuildReport is what a rebuild derived.
type RebuildReport struct {
	Memories, Facts int
	Tree            store.TreeStats
	Took            time.Duration
}

// Server is the MemoryService over a daemon's store.
type Server struct {
	ihmtv1.UnimplementedMemoryServiceServer

	cfg       Config
	startedAt *timestamppb.Timestamp
	lastCall  atomic.Int64 // unix nanos of the last finished call
	inFlight  atomic.Int64
	warnedFor sync.Map // client versions already warned about
}

// New returns the server for cfg; it counts as called now.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Server{cfg: cfg, startedAt: timestamppb.Now()}
	s.lastCall.Store(time.Now().UnixNano())
	return s
}

// withStore is the shape of every call on the store: it takes the open store,
// runs do on it, and translates an error into a gRPC status — the only
// place a handler's error is translated.
func withStore[T any](s *Server, do func(*store.Store) (T, error)) (T, error) {
	var zero T
	st := s.cfg.Store()
	if st == nil {
		return zero, toStatus(ErrOpening)
	}
	out, err := do(st)
	if err != nil {
		return zero, toStatus(err)
	}
	return out, nil
}

// withStoreIn is withStore for a call within a scope the request names: the
// scope is read with parse once the store is open, and refused if this
// daemon does not know it.
func withStoreIn[K, S, T any](s *Server, parse func(K) (S, error), scope K, do func(*store.Store, S) (T, error)) (T, error) {
	return withStore(s, func(st *store.Store) (T, error) {
		sc, err := parse(scope)
		if err != nil {
			var zero T
			return zero, err
		}
		return do(st, sc)
	})
}

// Stats says what the daemon is and counts what its store holds.
func (s *Server) Stats(ctx context.Context, req *ihmtv1.StatsRequest) (*ihmtv1.StatsResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.StatsResponse, error) {
		out := statsReply(st.Stats(caller(req.GetCaller())), st.TreeStats())
		out.Version, out.Pid, out.StartedAt = version.Version, int64(os.Getpid()), s.startedAt
		out.StorePath, out.SocketPath, out.IdleExit = s.cfg.StorePath, s.cfg.SocketPath, s.cfg.IdleExit
		return out, nil
	})
}

// Shutdown stops the daemon once this reply is on its way.
func (s *Server) Shutdown(ctx context.Context, req *ihmtv1.ShutdownRequest) (*ihmtv1.ShutdownResponse, error) {
	c := req.GetCaller()
	s.cfg.Log.Info("shutdown requested", "agent", c.GetAgentName(), "session", c.GetSessionId())
	// Stop after this response is on its way: GracefulStop waits for it.
	go s.cfg.Shutdown()
	return &ihmtv1.ShutdownResponse{}, nil
}

// Rebuild re-derives the index, the fact timelines and the summary tree
// from the leaf files, through the daemon. Meanwhile calls answer "still
// opening", so clients wait instead of failing.
func (s *Server) Rebuild(ctx context.Context, req *ihmtv1.RebuildRequest) (*ihmtv1.RebuildResponse, error) {
	c := caller(req.GetCaller())
	if !c.IsPerson() {
		return nil, toStatus(fmt.Errorf("%w: a rebuild is the user's to start: ask them to run `ihmt rebuild`", store.ErrPermission))
	}
	if s.cfg.Rebuild == nil {
		return nil, status.Error(codes.Unimplemented, "this service cannot reopen its store")
	}
	r, err := s.cfg.Rebuild(ctx, c)
	if err != nil {
		return nil, toStatus(err)
	}
	return rebuildReply(r), nil
}

// Intercept runs around every unary call: it sends the daemon's version,
// notices clients of another version, tracks activity for IdleFor, and
// logs failures.
func (s *Server) Intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	s.inFlight.Add(1)
	defer func() {
		s.lastCall.Store(time.Now().UnixNano())
		s.inFlight.Add(-1)
	}()
	_ = grpc.SetHeader(ctx, metadata.Pairs(version.Header, version.Version))
	s.noticeVersion(ctx)
	start := time.Now()
	resp, err := s.call(ctx, req, info, handler)
	if err != nil {
		code := status.Code(err)
		level := slog.LevelDebug
		if code == codes.Internal || code == codes.Unknown {
			level = slog.LevelError
		}
		s.cfg.Log.Log(ctx, level, "call failed", "method", info.FullMethod, "code", code.String(), "err", err, "took", time.Since(start))
	}
	return resp, err
}

// call runs handler, turning a panic in it into an Internal error with its
// stack in the log: one bad request must not take every agent's memory
// down with the daemon. A handler's deferred unlocks have run by then, and
// writes go through the writer goroutine, which a handler's panic never
// reaches.
func (s *Server) call(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.cfg.Log.Error("call panicked; the daemon goes on serving", "method", info.FullMethod, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp, err = nil, status.Errorf(codes.Internal, "internal error in %s (logged by the daemon); please report it with the daemon's log", info.FullMethod)
		}
	}()
	return handler(ctx, req)
}

// noticeVersion warns, once per version, of a client built from another
// version: the two may not agree on the API.
func (s *Server) noticeVersion(ctx context.Context) {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return
	}
	if v := md.Get(version.Header); len(v) > 0 && v[0] != version.Version {
		if _, seen := s.warnedFor.LoadOrStore(v[0], true); !seen {
			s.cfg.Log.Warn("client of a different version connected; upgrade both or restart the daemon",
				"client_version", v[0], "daemon_version", version.Version)
		}
	}
}

// IdleFor reports how long the server has had no call in flight.
func (s *Server) IdleFor(now time.Time) time.Duration {
	if s.inFlight.Load() > 0 {
		return 0
	}
	return now.Sub(time.Unix(0, s.lastCall.Load()))
}

package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// service adapts the store to the gRPC API. It is registered before the
// store is open, so that clients can connect while a large store loads; until
// then every call answers Unavailable and the client retries.
type service struct {
	ihmtv1.UnimplementedMemoryServiceServer

	store atomic.Pointer[store.Store]
	log   *slog.Logger
	// openStore opens the store as the daemon does at start, and
	// setServing sets the health status; a rebuild uses both.
	openStore  func() (*store.Store, error)
	setServing func(bool)
	rebuilding sync.Mutex            // one rebuild at a time, and none during the stop
	info       *ihmtv1.StatsResponse // static part of Stats
	shutdown   func()
	lastCall   atomic.Int64 // unix nanos of the last finished call
	inFlight   atomic.Int64
	warnedFor  sync.Map // client versions already warned about
}

func (s *service) open() (*store.Store, error) {
	st := s.store.Load()
	if st == nil {
		return nil, status.Error(codes.Unavailable, "the daemon is still opening the store: retry in a moment")
	}
	return st, nil
}

func caller(c *ihmtv1.Caller) store.Caller {
	return store.Caller{
		Agent:   leaf.Agent{Name: c.GetAgentName(), Version: c.GetAgentVersion()},
		Session: c.GetSessionId(),
		Project: c.GetProject(),
		Person:  c.GetAgentName() == ihmtv1.PersonAgent,
	}
}

func (s *service) Save(ctx context.Context, req *ihmtv1.SaveRequest) (*ihmtv1.SaveResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := saveScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	res, err := st.Save(ctx, store.SaveInput{
		Caller:   caller(req.GetCaller()),
		Content:  req.GetContent(),
		Date:     req.GetDate(),
		Scope:    scope,
		Domain:   req.GetDomain(),
		Tags:     req.GetTags(),
		Replaces: req.GetReplaces(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.SaveResponse{Message: res.Message, Ids: res.IDs}
	if res.Leaf.ID != "" {
		out.Id, out.Memory = res.Leaf.ID, memory(res.Leaf)
	}
	switch res.Status {
	case store.Saved:
		out.Status = ihmtv1.SaveStatus_SAVE_STATUS_SAVED
	case store.Duplicate:
		out.Status = ihmtv1.SaveStatus_SAVE_STATUS_DUPLICATE
		out.Message = "already stored on " + res.Leaf.RecordedAt.Format("2006-01-02") + "; nothing written"
	case store.PendingReview:
		out.Status = ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW
	case store.Refused:
		out.Status = ihmtv1.SaveStatus_SAVE_STATUS_REFUSED
	default:
		return nil, status.Errorf(codes.Internal, "save ended in an unknown state %d", res.Status)
	}
	for _, c := range res.Corrections {
		out.Corrections = append(out.Corrections, &ihmtv1.Correction{OldId: c.OldID, Notice: c.Notice})
	}
	for _, h := range res.Candidates {
		out.Candidates = append(out.Candidates, candidate(h))
	}
	return out, nil
}

func candidate(h store.Hit) *ihmtv1.Candidate {
	return &ihmtv1.Candidate{Id: h.Leaf.ID, Excerpt: store.Excerpt(h.Leaf.Text), ValidFrom: timestamppb.New(h.Leaf.ValidFrom), Score: h.Score}
}

func (s *service) Search(ctx context.Context, req *ihmtv1.SearchRequest) (*ihmtv1.SearchResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := searchScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	res, err := st.Search(store.SearchInput{
		Caller:  caller(req.GetCaller()),
		Query:   req.GetQuery(),
		Clue:    req.GetClue(),
		Scope:   scope,
		Limit:   int(req.GetLimit()),
		AsOf:    req.GetAsOf(),
		KnownAt: req.GetKnownAt(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.SearchResponse{
		Confidence: res.Confidence,
		Coverage: &ihmtv1.Coverage{
			Exhaustive:       res.Coverage.Exhaustive,
			NodesRead:        int64(res.Coverage.NodesRead),
			LeavesScored:     int64(res.Coverage.LeavesScored),
			LeavesVisible:    int64(res.Coverage.LeavesVisible),
			ViaTree:          res.Coverage.ViaTree,
			LeavesDescended:  int64(res.Coverage.Descended),
			LeavesGuaranteed: int64(res.Coverage.Guaranteed),
		},
		Terms:            res.Terms,
		ScopeDescription: res.ScopeDescription,
		Message:          res.Message,
	}
	switch res.Verdict {
	case store.Found:
		out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_FOUND
		for _, h := range res.Hits {
			out.Results = append(out.Results, &ihmtv1.SearchResult{Memory: memory(h.Leaf), Score: h.Score, Current: h.Current, Notices: h.Notices, TreePath: h.TreePath})
		}
	case store.Ambiguous, store.NotFound:
		out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS
		if res.Verdict == store.NotFound {
			out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND
		}
		// For not_found these are near misses, named as such in Message.
		for _, h := range res.Hits {
			out.Candidates = append(out.Candidates, candidate(h))
		}
	}
	return out, nil
}

func (s *service) Get(ctx context.Context, req *ihmtv1.GetRequest) (*ihmtv1.GetResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := searchScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	l, err := st.Get(caller(req.GetCaller()), req.GetId(), scope)
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.GetResponse{Memory: memory(l)}, nil
}

func (s *service) Stats(ctx context.Context, req *ihmtv1.StatsRequest) (*ihmtv1.StatsResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	c := st.Stats(caller(req.GetCaller()))
	out := &ihmtv1.StatsResponse{
		Version:         s.info.GetVersion(),
		StorePath:       s.info.GetStorePath(),
		SocketPath:      s.info.GetSocketPath(),
		Pid:             s.info.GetPid(),
		StartedAt:       s.info.GetStartedAt(),
		IdleExit:        s.info.GetIdleExit(),
		Memories:        int64(c.Memories),
		GlobalMemories:  int64(c.GlobalMemories),
		ProjectMemories: int64(c.ProjectMemories),
		Projects:        int64(c.Projects),
		LogEntries:      c.LogEntries,
		PendingReview:   int64(c.PendingReview),
		Forgotten:       int64(c.Forgotten),
		Tree:            treeStats(st.TreeStats()),
		Facts:           int64(c.Facts),
	}
	return out, nil
}

func (s *service) Shutdown(ctx context.Context, req *ihmtv1.ShutdownRequest) (*ihmtv1.ShutdownResponse, error) {
	c := req.GetCaller()
	s.log.Info("shutdown requested", "agent", c.GetAgentName(), "session", c.GetSessionId())
	// Stop after this response is on its way: GracefulStop waits for it.
	go s.shutdown()
	return &ihmtv1.ShutdownResponse{}, nil
}

// memory converts a leaf to the API's Memory.
func memory(l leaf.Leaf) *ihmtv1.Memory {
	m := &ihmtv1.Memory{
		Id:            l.ID,
		Content:       l.Text,
		ValidFrom:     timestamppb.New(l.ValidFrom),
		RecordedAt:    timestamppb.New(l.RecordedAt),
		Project:       l.Project,
		Agent:         &ihmtv1.Agent{Name: l.Agent.Name, Version: l.Agent.Version},
		SessionId:     l.Session,
		Status:        l.Status,
		Domain:        l.Domain,
		Tags:          l.Tags,
		Checksum:      l.Checksum,
		ReviewNote:    l.ReviewNote,
		OriginProject: l.OriginProject,
	}
	if src := l.Source; src != nil {
		m.Source = &ihmtv1.Source{Name: src.Name, Digest: src.Digest, Part: int32(src.Part), Parts: int32(src.Parts), Type: src.Type, Context: src.Context, Oversized: src.Oversized}
	}
	for _, k := range l.Corrects {
		m.Corrects = append(m.Corrects, k.ID)
	}
	for _, k := range l.CorrectedBy {
		m.CorrectedBy = append(m.CorrectedBy, k.ID)
	}
	if t := l.Tombstone; t != nil {
		m.Tombstone = &ihmtv1.Tombstone{ForgottenAt: timestamppb.New(t.At), By: &ihmtv1.Agent{Name: t.By.Name, Version: t.By.Version}, Reason: t.Reason}
		if t.PurgedAt != nil {
			m.Tombstone.PurgedAt = timestamppb.New(*t.PurgedAt)
		}
	}
	switch l.Scope {
	case leaf.ScopeGlobal:
		m.Scope = ihmtv1.Scope_SCOPE_GLOBAL
	case leaf.ScopeProject:
		m.Scope = ihmtv1.Scope_SCOPE_PROJECT
	}
	switch l.Trust {
	case leaf.TrustAsserted:
		m.Trust = ihmtv1.Trust_TRUST_ASSERTED
	case leaf.TrustVerified:
		m.Trust = ihmtv1.Trust_TRUST_VERIFIED
	case leaf.TrustPending:
		m.Trust = ihmtv1.Trust_TRUST_PENDING
	case leaf.TrustRejected:
		m.Trust = ihmtv1.Trust_TRUST_REJECTED
	}
	return m
}

// saveScope maps the API's scope onto the engine's, refusing values this
// daemon does not know (a newer client's, or garbage).
func saveScope(s ihmtv1.Scope) (store.Scope, error) {
	switch s {
	case ihmtv1.Scope_SCOPE_UNSPECIFIED:
		return store.ScopeUnspecified, nil
	case ihmtv1.Scope_SCOPE_GLOBAL:
		return store.ScopeGlobal, nil
	case ihmtv1.Scope_SCOPE_PROJECT:
		return store.ScopeProject, nil
	}
	return 0, fmt.Errorf("%w: unknown scope %d: use global or project", store.ErrInvalid, s)
}

// searchScope maps the API's search scope onto the engine's.
func searchScope(s ihmtv1.SearchScope) (store.SearchScope, error) {
	switch s {
	case ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED:
		return store.ScopeDefault, nil
	case ihmtv1.SearchScope_SEARCH_SCOPE_PROJECT:
		return store.ScopeOnlyProject, nil
	case ihmtv1.SearchScope_SEARCH_SCOPE_GLOBAL:
		return store.ScopeOnlyGlobal, nil
	case ihmtv1.SearchScope_SEARCH_SCOPE_ALL:
		return store.ScopeAll, nil
	}
	return 0, fmt.Errorf("%w: unknown search scope %d: use default, project, global or all", store.ErrInvalid, s)
}

// toStatus translates the engine's errors into gRPC codes — the one place
// where that happens on this side of the wire.
func toStatus(err error) error {
	switch {
	case errors.Is(err, store.ErrInvalid):
		// The code says "invalid"; the message need not say it again.
		return status.Error(codes.InvalidArgument, strings.Replace(err.Error(), store.ErrInvalid.Error()+": ", "", 1))
	case errors.Is(err, store.ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, store.ErrConflict):
		return status.Error(codes.FailedPrecondition, strings.Replace(err.Error(), store.ErrConflict.Error()+": ", "", 1))
	case errors.Is(err, store.ErrPermission):
		return status.Error(codes.PermissionDenied, strings.Replace(err.Error(), store.ErrPermission.Error()+": ", "", 1))
	case errors.Is(err, store.ErrClosed):
		return status.Error(codes.Unavailable, "the daemon is shutting down: retry in a moment")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

// intercept runs around every unary call: it sends the daemon's version,
// notices clients of another version, tracks activity for idle exit, and
// logs failures.
func (s *service) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	s.inFlight.Add(1)
	defer func() {
		s.lastCall.Store(time.Now().UnixNano())
		s.inFlight.Add(-1)
	}()
	_ = grpc.SetHeader(ctx, metadata.Pairs(version.Header, version.Version))
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(version.Header); len(v) > 0 && v[0] != version.Version {
			if _, seen := s.warnedFor.LoadOrStore(v[0], true); !seen {
				s.log.Warn("client of a different version connected; upgrade both or restart the daemon",
					"client_version", v[0], "daemon_version", version.Version)
			}
		}
	}
	start := time.Now()
	resp, err := handler(ctx, req)
	if err != nil {
		code := status.Code(err)
		level := slog.LevelDebug
		if code == codes.Internal || code == codes.Unknown {
			level = slog.LevelError
		}
		s.log.Log(ctx, level, "call failed", "method", info.FullMethod, "code", code.String(), "err", err, "took", time.Since(start))
	}
	return resp, err
}

// idleFor reports how long the daemon has had no call in flight.
func (s *service) idleFor(now time.Time) time.Duration {
	if s.inFlight.Load() > 0 {
		return 0
	}
	return now.Sub(time.Unix(0, s.lastCall.Load()))
}

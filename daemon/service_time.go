package daemon

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The RPCs of corrections, forgetting, review, audit and the fact timeline:
// thin adapters, like the rest of the service.

func (s *service) MarkOutdated(ctx context.Context, req *ihmtv1.MarkOutdatedRequest) (*ihmtv1.MarkOutdatedResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	r, err := st.MarkOutdated(ctx, caller(req.GetCaller()), req.GetOldId(), req.GetNewId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.MarkOutdatedResponse{Old: memory(r.Old), New: memory(r.New), Notice: r.Notice, PendingReview: r.PendingReview}, nil
}

func (s *service) Forget(ctx context.Context, req *ihmtv1.ForgetRequest) (*ihmtv1.ForgetResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	l, err := st.Forget(ctx, caller(req.GetCaller()), req.GetId(), req.GetReason())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.ForgetResponse{Memory: memory(l)}, nil
}

func (s *service) Restore(ctx context.Context, req *ihmtv1.RestoreRequest) (*ihmtv1.RestoreResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	l, err := st.Restore(ctx, caller(req.GetCaller()), req.GetId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.RestoreResponse{Memory: memory(l)}, nil
}

func (s *service) Purge(ctx context.Context, req *ihmtv1.PurgeRequest) (*ihmtv1.PurgeResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	r, err := st.Purge(ctx, caller(req.GetCaller()), req.GetId())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.PurgeResponse{
		Memory: memory(r.Leaf), LeafBytes: int64(r.LeafBytes), LogEntries: int64(r.LogEntries),
		Message: fmt.Sprintf("Purged %s: removed %d bytes of text from its leaf file and from %d log entries; its header, tombstone and this purge stay on record.", r.Leaf.ID, r.LeafBytes, r.LogEntries),
	}, nil
}

func (s *service) ListReview(ctx context.Context, req *ihmtv1.ListReviewRequest) (*ihmtv1.ListReviewResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	pending, err := st.PendingReview(caller(req.GetCaller()), int(req.GetLimit()))
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.ListReviewResponse{}
	for _, l := range pending {
		out.Memories = append(out.Memories, memory(l))
	}
	return out, nil
}

func (s *service) Review(ctx context.Context, req *ihmtv1.ReviewRequest) (*ihmtv1.ReviewResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	var d store.Decision
	switch req.GetDecision() {
	case ihmtv1.ReviewDecision_REVIEW_DECISION_APPROVE:
		d = store.Approve
	case ihmtv1.ReviewDecision_REVIEW_DECISION_REJECT:
		d = store.Reject
	default:
		return nil, toStatus(fmt.Errorf("%w: unknown review decision %d: approve or reject", store.ErrInvalid, req.GetDecision()))
	}
	l, err := st.Review(ctx, caller(req.GetCaller()), req.GetId(), d, req.GetNote())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.ReviewResponse{Memory: memory(l)}, nil
}

func (s *service) Log(ctx context.Context, req *ihmtv1.LogRequest) (*ihmtv1.LogResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	f := store.LogFilter{Agent: req.GetAgent(), Session: req.GetSessionId(), Limit: int(min(max(req.GetLimit(), 0), 10000))}
	if since := req.GetSince(); since != "" {
		t, err := dates.Parse(since)
		if err != nil {
			return nil, toStatus(fmt.Errorf("%w: since: %v", store.ErrInvalid, err))
		}
		f.Since = t
	}
	entries, matched, err := st.Log(caller(req.GetCaller()), f)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.LogResponse{Matched: int64(matched)}
	for _, e := range entries {
		out.Entries = append(out.Entries, &ihmtv1.LogEntry{
			Seq: e.Seq, Time: timestamppb.New(e.Time), Op: e.Op, Ids: e.IDs,
			Agent: &ihmtv1.Agent{Name: e.Agent.Name, Version: e.Agent.Version}, SessionId: e.Session, Project: e.Project, Summary: e.Summary,
		})
	}
	return out, nil
}

func (s *service) VerifyAudit(ctx context.Context, req *ihmtv1.VerifyAuditRequest) (*ihmtv1.VerifyAuditResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	rep, err := st.VerifyAudit()
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.VerifyAuditResponse{Ok: len(rep.Problems) == 0, Entries: rep.Entries, Unchained: rep.Unchained, Path: rep.Path, DamagedLines: rep.Damaged}
	for _, p := range rep.Problems {
		out.Problems = append(out.Problems, &ihmtv1.AuditProblem{Line: p.Line, Seq: p.Seq, Kind: p.Kind, Detail: p.Detail})
	}
	return out, nil
}

func (s *service) Facts(ctx context.Context, req *ihmtv1.FactsRequest) (*ihmtv1.FactsResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := searchScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	rows, err := st.Facts(caller(req.GetCaller()), req.GetSubject(), req.GetAsOf(), req.GetKnownAt(), scope)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.FactsResponse{}
	for _, r := range rows {
		out.Facts = append(out.Facts, fact(r.Key, r.Entry, r.Current))
	}
	return out, nil
}

func (s *service) Timeline(ctx context.Context, req *ihmtv1.TimelineRequest) (*ihmtv1.TimelineResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := searchScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	rows, err := st.Timeline(caller(req.GetCaller()), req.GetSubject(), req.GetAttribute(), req.GetKnownAt(), scope)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.TimelineResponse{}
	for _, r := range rows {
		out.Facts = append(out.Facts, fact(r.Key, r.Entry, r.Current))
	}
	return out, nil
}

func (s *service) Conflicts(ctx context.Context, req *ihmtv1.ConflictsRequest) (*ihmtv1.ConflictsResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := searchScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	sups, err := st.Conflicts(caller(req.GetCaller()), scope)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.ConflictsResponse{}
	for _, x := range sups {
		out.Supersessions = append(out.Supersessions, &ihmtv1.Supersession{Old: fact(x.Key, x.Old, false), New: fact(x.Key, x.New, false)})
	}
	return out, nil
}

func (s *service) Export(ctx context.Context, req *ihmtv1.ExportRequest) (*ihmtv1.ExportResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := searchScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	recs, next, err := st.Export(caller(req.GetCaller()), scope, int(req.GetOffset()))
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.ExportResponse{Records: recs, NextOffset: int64(next)}, nil
}

func (s *service) Import(ctx context.Context, req *ihmtv1.ImportRequest) (*ihmtv1.ImportResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	r, err := st.Import(ctx, caller(req.GetCaller()), req.GetRecords())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.ImportResponse{Imported: int64(r.Imported), Unchanged: int64(r.Unchanged)}, nil
}

func fact(k timeline.Key, e timeline.Entry, current bool) *ihmtv1.Fact {
	f := &ihmtv1.Fact{
		Subject: k.Subject, Attribute: k.Attribute, Value: e.Value, MemoryId: e.Leaf, Scope: k.Scope, Current: current,
		ValidFrom: timestamppb.New(e.ValidFrom), RecordedAt: timestamppb.New(e.RecordedAt),
		ValidTo: ts(e.ValidTo), SupersededAt: ts(e.SupersededAt),
	}
	if f.Scope == "" {
		f.Scope = leaf.ScopeGlobal
	}
	return f
}

// ts converts a time that may be unset.
func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func (s *service) Ingest(ctx context.Context, req *ihmtv1.IngestRequest) (*ihmtv1.IngestResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := saveScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	r, err := st.Ingest(ctx, store.IngestInput{
		Caller: caller(req.GetCaller()), Name: req.GetName(), Content: req.GetContent(), Type: req.GetType(),
		Domain: req.GetDomain(), Tags: req.GetTags(), Scope: scope, Date: req.GetDate(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.IngestResponse{Superseded: r.Superseded, Type: r.Type, Domain: r.Domain, Oversized: int32(r.Oversized), Message: r.Message}
	switch r.Status {
	case store.Ingested:
		out.Status = ihmtv1.IngestStatus_INGEST_STATUS_SAVED
	case store.Unchanged:
		out.Status = ihmtv1.IngestStatus_INGEST_STATUS_UNCHANGED
	case store.IngestPending:
		out.Status = ihmtv1.IngestStatus_INGEST_STATUS_PENDING_REVIEW
	case store.IngestRefused:
		out.Status = ihmtv1.IngestStatus_INGEST_STATUS_REFUSED
	default:
		return nil, toStatus(fmt.Errorf("ingest ended in an unknown state %d", r.Status))
	}
	for _, l := range r.Leaves {
		out.Ids = append(out.Ids, l.ID)
	}
	return out, nil
}

// Rebuild closes the store and opens it again without its derived files
// (the facts snapshot and the summary tree), which re-derives the index,
// the fact timelines and the tree from the leaf files. Meanwhile the health service says NOT_SERVING and calls
// answer "still opening", so clients wait instead of failing.
func (s *service) Rebuild(ctx context.Context, req *ihmtv1.RebuildRequest) (*ihmtv1.RebuildResponse, error) {
	c := caller(req.GetCaller())
	if !c.IsPerson() {
		return nil, toStatus(fmt.Errorf("%w: a rebuild is the user's to start: ask them to run `ihmt rebuild`", store.ErrPermission))
	}
	if s.openStore == nil {
		return nil, status.Error(codes.Unimplemented, "this service cannot reopen its store")
	}
	s.rebuilding.Lock()
	defer s.rebuilding.Unlock()
	old := s.store.Swap(nil)
	if old == nil {
		return nil, status.Error(codes.Unavailable, "the daemon is still opening the store: retry in a moment")
	}
	start := time.Now()
	s.setServing(false)
	s.log.Info("rebuild: closing the store", "agent", c.Agent.Name)
	if err := old.Close(); err != nil {
		s.log.Error("rebuild: closing the store failed", "err", err)
	}
	if err := store.DropSnapshots(s.info.GetStorePath()); err != nil {
		s.log.Warn("rebuild: could not remove the derived snapshot", "err", err)
	}
	st, err := s.openStore()
	if err != nil {
		// It would not open at a start either: stop, so that the next start
		// reports why, rather than serve nothing.
		s.log.Error("rebuild: the store does not open; stopping", "err", err)
		go s.shutdown()
		return nil, toStatus(fmt.Errorf("rebuild: %w", err))
	}
	s.store.Store(st)
	s.setServing(true)
	// Searches are served again (through the index); the tree is rebuilt
	// in the background, and this waits for it.
	_, tree, err := st.Consolidate(ctx, false)
	if err != nil {
		return nil, toStatus(fmt.Errorf("rebuild: the summary tree: %w", err))
	}
	stats := st.Stats(c)
	took := time.Since(start)
	s.log.Info("rebuild: done", "memories", stats.Memories, "facts", stats.Facts, "branches", tree.Branches, "took", took.Round(time.Millisecond))
	return &ihmtv1.RebuildResponse{Memories: int64(stats.Memories), Facts: int64(stats.Facts), TookMs: took.Milliseconds(), Tree: treeStats(tree)}, nil
}

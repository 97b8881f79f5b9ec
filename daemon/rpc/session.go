package rpc

import (
	"context"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/pkg/scratch"
	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// SessionServer is the SessionService over the daemon's scratch sessions:
// notes, digests and the attach stream that tells the daemon a shim is
// still there. It needs no store: scratch notes are never stored.
type SessionServer struct {
	ihmtv1.UnimplementedSessionServiceServer
	sessions *scratch.Sessions
	log      *slog.Logger
}

// NewSessionServer returns the SessionService over sessions.
func NewSessionServer(sessions *scratch.Sessions, log *slog.Logger) *SessionServer {
	if log == nil {
		log = slog.Default()
	}
	return &SessionServer{sessions: sessions, log: log}
}

// sessionKeyHeader is the metadata a session call carries its key in
// (client.SessionKeyHeader; the daemon does not import the client).
const sessionKeyHeader = "ihmt-session-key"

// claim checks that the call brings the key of the session it names: a
// session id is public, so it alone reaches nothing (scratch.Claim).
func claim(ctx context.Context, sessions *scratch.Sessions, id string) error {
	var key string
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(sessionKeyHeader); len(v) == 1 {
			key = v[0]
		}
	}
	return sessions.Claim(id, key)
}

// Attach holds the caller's session while its stream lasts: a shim opens
// it on its first session call and keeps it until it exits, which is how
// the daemon learns that the session is gone (after the grace period). It
// ends when the daemon stops, too, so a graceful stop does not wait for it.
func (s *SessionServer) Attach(req *ihmtv1.AttachRequest, stream grpc.ServerStreamingServer[ihmtv1.AttachResponse]) error {
	id := req.GetCaller().GetSessionId()
	if err := claim(stream.Context(), s.sessions, id); err != nil {
		return toStatus(err)
	}
	detach, err := s.sessions.Attach(id)
	if err != nil {
		return toStatus(err)
	}
	defer detach()
	lim := s.sessions.Limits()
	if err := stream.Send(&ihmtv1.AttachResponse{
		GraceSeconds: int64(lim.Grace.Seconds()), TtlSeconds: int64(lim.TTL.Seconds()),
		SessionBytesLimit: lim.SessionBytes, TotalBytesLimit: lim.TotalBytes,
	}); err != nil {
		return err
	}
	s.log.Debug("session attached", "session", id, "agent", req.GetCaller().GetAgentName())
	select {
	case <-stream.Context().Done():
		s.log.Debug("session detached", "session", id)
	case <-s.sessions.Done():
	}
	return nil
}

// Note keeps a note for the caller's session.
func (s *SessionServer) Note(ctx context.Context, req *ihmtv1.NoteRequest) (*ihmtv1.NoteResponse, error) {
	if err := claim(ctx, s.sessions, req.GetCaller().GetSessionId()); err != nil {
		return nil, toStatus(err)
	}
	e, u, err := s.sessions.Note(req.GetCaller().GetSessionId(), req.GetText())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.NoteResponse{Id: e.ID, Usage: usageReply(u)}, nil
}

// Recall searches the caller's session.
func (s *SessionServer) Recall(ctx context.Context, req *ihmtv1.RecallRequest) (*ihmtv1.RecallResponse, error) {
	if err := claim(ctx, s.sessions, req.GetCaller().GetSessionId()); err != nil {
		return nil, toStatus(err)
	}
	r, err := s.sessions.Recall(req.GetCaller().GetSessionId(), req.GetQuery(), req.GetClue(), int(req.GetLimit()))
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.RecallResponse{
		Status: verdictReply(r.Verdict), Confidence: r.Confidence, Message: r.Message,
		Searched: int32(r.Searched), Usage: usageReply(r.Usage),
	}
	for _, h := range r.Hits {
		out.Hits = append(out.Hits, recallHit(h))
	}
	for _, h := range r.Candidates {
		out.Candidates = append(out.Candidates, recallHit(h))
	}
	return out, nil
}

// DigestOutput condenses an output and keeps it in the caller's session.
func (s *SessionServer) DigestOutput(ctx context.Context, req *ihmtv1.DigestOutputRequest) (*ihmtv1.DigestOutputResponse, error) {
	if err := claim(ctx, s.sessions, req.GetCaller().GetSessionId()); err != nil {
		return nil, toStatus(err)
	}
	e, d, u, err := s.sessions.DigestOutput(req.GetCaller().GetSessionId(), req.GetText(), req.GetLabel())
	if err != nil {
		return nil, toStatus(err)
	}
	return &ihmtv1.DigestOutputResponse{
		Id: e.ID, Digest: d.Text, Lines: int32(d.Lines), Failures: int32(d.Failures), Totals: d.Totals, Usage: usageReply(u),
	}, nil
}

func usageReply(u scratch.Usage) *ihmtv1.SessionUsage {
	return &ihmtv1.SessionUsage{
		Notes: int32(u.Entries), Bytes: u.Bytes, BytesLimit: u.Limit,
		DroppedNow: int32(u.DroppedNow), DroppedTotal: int32(u.DroppedTotal),
	}
}

func recallHit(h scratch.Hit) *ihmtv1.RecallHit {
	return &ihmtv1.RecallHit{
		Id: h.ID, Kind: h.Kind, Label: h.Label, Text: h.Text,
		FirstLine: int32(h.First), LastLine: int32(h.Last), NotedAt: timestamppb.New(h.NotedAt), Score: h.Score,
	}
}

// verdictReply is a verdict in the API's words.
func verdictReply(v store.Verdict) ihmtv1.SearchStatus {
	switch v {
	case store.Found:
		return ihmtv1.SearchStatus_SEARCH_STATUS_FOUND
	case store.Ambiguous:
		return ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS
	case store.NotFound:
		return ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND
	}
	return ihmtv1.SearchStatus_SEARCH_STATUS_UNSPECIFIED
}

package rpc

import (
	"context"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// ContextServer is the ContextService over the same daemon's store: the
// briefing a session-start hook injects. It shares the MemoryService's
// adapter (its store, its error translation, its activity count through the
// one interceptor), so it is a view of Server, not a second server.
type ContextServer struct {
	ihmtv1.UnimplementedContextServiceServer
	s *Server
}

// Context returns the ContextService of s.
func (s *Server) Context() *ContextServer { return &ContextServer{s: s} }

// Brief builds the caller's briefing in the store.
func (cs *ContextServer) Brief(ctx context.Context, req *ihmtv1.BriefRequest) (*ihmtv1.BriefResponse, error) {
	return withStore(cs.s, func(st *store.Store) (*ihmtv1.BriefResponse, error) {
		b, err := st.Brief(store.BriefInput{Caller: caller(req.GetCaller()), MaxTokens: int(req.GetMaxTokens())})
		if err != nil {
			return nil, err
		}
		out := &ihmtv1.BriefResponse{Text: b.Text, Tokens: int32(b.Tokens), LeftOut: int32(b.LeftOut)}
		for _, it := range b.Items {
			out.Items = append(out.Items, &ihmtv1.BriefItem{Kind: it.Kind, Id: it.ID, Text: it.Text, Tokens: int32(it.Tokens)})
		}
		return out, nil
	})
}

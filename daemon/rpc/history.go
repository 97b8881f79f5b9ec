package rpc

import (
	"context"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// What the memory learned and when: the audit log and its verification,
// and the fact timelines (the current facts, one fact's history, and every
// value that replaced another).

func (s *Server) Log(ctx context.Context, req *ihmtv1.LogRequest) (*ihmtv1.LogResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.LogResponse, error) {
		entries, matched, err := st.Log(caller(req.GetCaller()), logFilter(req))
		if err != nil {
			return nil, err
		}
		return logReply(entries, matched), nil
	})
}

func (s *Server) VerifyAudit(ctx context.Context, req *ihmtv1.VerifyAuditRequest) (*ihmtv1.VerifyAuditResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.VerifyAuditResponse, error) {
		rep, err := st.VerifyAudit()
		if err != nil {
			return nil, err
		}
		return auditReply(rep), nil
	})
}

func (s *Server) Facts(ctx context.Context, req *ihmtv1.FactsRequest) (*ihmtv1.FactsResponse, error) {
	return withStoreIn(s, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.FactsResponse, error) {
		rows, err := st.Facts(caller(req.GetCaller()), req.GetSubject(), req.GetAsOf(), req.GetKnownAt(), scope)
		if err != nil {
			return nil, err
		}
		return &ihmtv1.FactsResponse{Facts: facts(rows)}, nil
	})
}

func (s *Server) Timeline(ctx context.Context, req *ihmtv1.TimelineRequest) (*ihmtv1.TimelineResponse, error) {
	return withStoreIn(s, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.TimelineResponse, error) {
		rows, err := st.Timeline(caller(req.GetCaller()), req.GetSubject(), req.GetAttribute(), req.GetKnownAt(), scope)
		if err != nil {
			return nil, err
		}
		return &ihmtv1.TimelineResponse{Facts: facts(rows)}, nil
	})
}

func (s *Server) Conflicts(ctx context.Context, req *ihmtv1.ConflictsRequest) (*ihmtv1.ConflictsResponse, error) {
	return withStoreIn(s, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.ConflictsResponse, error) {
		sups, err := st.Conflicts(caller(req.GetCaller()), scope)
		if err != nil {
			return nil, err
		}
		return &ihmtv1.ConflictsResponse{Supersessions: supersessions(sups)}, nil
	})
}

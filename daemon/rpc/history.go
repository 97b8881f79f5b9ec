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
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.LogResponse, error) {
		f := logFilter(req)
		f.Scope = scope
		entries, matched, err := st.Log(caller(req.GetCaller()), f)
		return &ihmtv1.LogResponse{Matched: int64(matched), Entries: each(entries, logEntry)}, err
	})
}

func (s *Server) VerifyAudit(ctx context.Context, req *ihmtv1.VerifyAuditRequest) (*ihmtv1.VerifyAuditResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.VerifyAuditResponse, error) {
		rep, err := st.VerifyAudit()
		return auditReply(rep), err
	})
}

func (s *Server) Facts(ctx context.Context, req *ihmtv1.FactsRequest) (*ihmtv1.FactsResponse, error) {
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.FactsResponse, error) {
		rows, err := st.Facts(caller(req.GetCaller()), req.GetSubject(), req.GetAsOf(), req.GetKnownAt(), scope)
		return &ihmtv1.FactsResponse{Facts: each(rows, fact)}, err
	})
}

func (s *Server) Timeline(ctx context.Context, req *ihmtv1.TimelineRequest) (*ihmtv1.TimelineResponse, error) {
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.TimelineResponse, error) {
		rows, err := st.Timeline(caller(req.GetCaller()), req.GetSubject(), req.GetAttribute(), req.GetKnownAt(), scope)
		return &ihmtv1.TimelineResponse{Facts: each(rows, fact)}, err
	})
}

func (s *Server) Conflicts(ctx context.Context, req *ihmtv1.ConflictsRequest) (*ihmtv1.ConflictsResponse, error) {
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.ConflictsResponse, error) {
		sups, err := st.Conflicts(caller(req.GetCaller()), scope)
		if err != nil {
			return nil, err
		}
		probable, err := st.Probables(caller(req.GetCaller()), scope)
		return &ihmtv1.ConflictsResponse{Supersessions: each(sups, supersession), Probable: each(probable, probableLink)}, err
	})
}

func (s *Server) Unlink(ctx context.Context, req *ihmtv1.UnlinkRequest) (*ihmtv1.UnlinkResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.UnlinkResponse, error) {
		l, err := st.Unlink(ctx, caller(req.GetCaller()), req.GetOldId(), req.GetNewId())
		return &ihmtv1.UnlinkResponse{Holder: memory(l)}, err
	})
}

// currency is the one model's answer on the wire.
func currency(c store.Currency) *ihmtv1.Currency {
	return &ihmtv1.Currency{Current: c.Current, SupersededBy: c.By, How: string(c.How), Certainty: c.Certainty}
}

func probableLink(p store.ProbableLink) *ihmtv1.ProbableLink {
	return &ihmtv1.ProbableLink{Old: memory(p.Old), New: memory(p.New), Confidence: p.Confidence, About: p.About}
}

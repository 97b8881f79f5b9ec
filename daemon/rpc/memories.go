package rpc

import (
	"context"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The calls on memories themselves: save, search and get, and the changes
// of a memory's life — a correction, forgetting, restoring and purging.

func (s *Server) Save(ctx context.Context, req *ihmtv1.SaveRequest) (*ihmtv1.SaveResponse, error) {
	return withStoreIn(s, saveScope, req.GetScope(), func(st *store.Store, scope store.Scope) (*ihmtv1.SaveResponse, error) {
		res, err := st.Save(ctx, saveInput(req, scope))
		if err != nil {
			return nil, err
		}
		return saveReply(res)
	})
}

func (s *Server) Search(ctx context.Context, req *ihmtv1.SearchRequest) (*ihmtv1.SearchResponse, error) {
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.SearchResponse, error) {
		res, err := st.Search(searchInput(req, scope))
		return searchReply(res), err
	})
}

func (s *Server) Get(ctx context.Context, req *ihmtv1.GetRequest) (*ihmtv1.GetResponse, error) {
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.GetResponse, error) {
		c := caller(req.GetCaller())
		m, err := st.Get(c, req.GetId(), scope)
		if err != nil {
			return nil, err
		}
		sd, err := st.Standing(c, req.GetId(), scope)
		if err != nil {
			return nil, err
		}
		resp := &ihmtv1.GetResponse{Memory: memory(m), Currency: currency(sd.Currency)}
		for _, p := range sd.Probable {
			resp.Probable = append(resp.Probable, probableLink(p))
		}
		return resp, nil
	})
}

func (s *Server) MarkOutdated(ctx context.Context, req *ihmtv1.MarkOutdatedRequest) (*ihmtv1.MarkOutdatedResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.MarkOutdatedResponse, error) {
		r, err := st.MarkOutdated(ctx, caller(req.GetCaller()), req.GetOldId(), req.GetNewId())
		return &ihmtv1.MarkOutdatedResponse{Old: memory(r.Old), New: memory(r.New), Notice: r.Notice, PendingReview: r.PendingReview}, err
	})
}

func (s *Server) Forget(ctx context.Context, req *ihmtv1.ForgetRequest) (*ihmtv1.ForgetResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.ForgetResponse, error) {
		m, err := st.Forget(ctx, caller(req.GetCaller()), req.GetId(), req.GetReason())
		return &ihmtv1.ForgetResponse{Memory: memory(m)}, err
	})
}

func (s *Server) Restore(ctx context.Context, req *ihmtv1.RestoreRequest) (*ihmtv1.RestoreResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.RestoreResponse, error) {
		m, err := st.Restore(ctx, caller(req.GetCaller()), req.GetId())
		return &ihmtv1.RestoreResponse{Memory: memory(m)}, err
	})
}

func (s *Server) Purge(ctx context.Context, req *ihmtv1.PurgeRequest) (*ihmtv1.PurgeResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.PurgeResponse, error) {
		r, err := st.Purge(ctx, caller(req.GetCaller()), req.GetId())
		return purgeReply(r), err
	})
}

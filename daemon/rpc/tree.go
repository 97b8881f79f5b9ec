package rpc

import (
	"context"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The summary tree: its outline, and writing the branches it owes now.

// Tree lists the summary tree's outline within the caller's scope.
func (s *Server) Tree(ctx context.Context, req *ihmtv1.TreeRequest) (*ihmtv1.TreeResponse, error) {
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.TreeResponse, error) {
		lines, stats, err := st.Outline(caller(req.GetCaller()), scope, int(req.GetDepth()))
		return &ihmtv1.TreeResponse{Stats: treeStats(stats), Nodes: each(lines, treeNode)}, err
	})
}

// Consolidate writes the branches pending changes complete, now.
func (s *Server) Consolidate(ctx context.Context, req *ihmtv1.ConsolidateRequest) (*ihmtv1.ConsolidateResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.ConsolidateResponse, error) {
		written, stats, err := st.Consolidate(ctx, req.GetForce())
		if err != nil {
			return nil, err
		}
		s.cfg.Log.Info("consolidated", "agent", req.GetCaller().GetAgentName(), "force", req.GetForce(), "branches_written", written)
		return &ihmtv1.ConsolidateResponse{Written: int64(written), Stats: treeStats(stats)}, nil
	})
}

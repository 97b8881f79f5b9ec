package daemon

import (
	"context"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Tree lists the summary tree's outline within the caller's scope.
func (s *service) Tree(ctx context.Context, req *ihmtv1.TreeRequest) (*ihmtv1.TreeResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	scope, err := searchScope(req.GetScope())
	if err != nil {
		return nil, toStatus(err)
	}
	lines, stats, err := st.Outline(caller(req.GetCaller()), scope, int(req.GetDepth()))
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.TreeResponse{Stats: treeStats(stats)}
	for _, l := range lines {
		out.Nodes = append(out.Nodes, &ihmtv1.TreeNode{
			Depth: int32(l.Depth), Id: l.ID, Layer: int32(l.Layer), Group: l.Group,
			Title: l.Title, Children: int32(l.Children), Gone: int32(l.Gone),
		})
	}
	return out, nil
}

// Consolidate writes the branches pending changes complete, now.
func (s *service) Consolidate(ctx context.Context, req *ihmtv1.ConsolidateRequest) (*ihmtv1.ConsolidateResponse, error) {
	st, err := s.open()
	if err != nil {
		return nil, err
	}
	c := caller(req.GetCaller())
	written, stats, err := st.Consolidate(ctx, req.GetForce())
	if err != nil {
		return nil, toStatus(err)
	}
	s.log.Info("consolidated", "agent", c.Agent.Name, "force", req.GetForce(), "branches_written", written)
	return &ihmtv1.ConsolidateResponse{Written: int64(written), Stats: treeStats(stats)}, nil
}

func treeStats(t store.TreeStats) *ihmtv1.TreeStats {
	return &ihmtv1.TreeStats{
		Ready: t.Ready, Leaves: int64(t.Leaves), Pending: int64(t.Pending), Branches: int64(t.Branches),
		Layers: int64(t.Layers), RootItems: int64(t.Root), Gone: int64(t.Gone),
	}
}

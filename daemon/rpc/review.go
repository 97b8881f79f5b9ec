package rpc

import (
	"context"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The person's review of what agents saved: the memories held for it, and
// a decision on one.

func (s *Server) ListReview(ctx context.Context, req *ihmtv1.ListReviewRequest) (*ihmtv1.ListReviewResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.ListReviewResponse, error) {
		pending, err := st.PendingReview(caller(req.GetCaller()), int(req.GetLimit()))
		return &ihmtv1.ListReviewResponse{Memories: each(pending, memory)}, err
	})
}

func (s *Server) Review(ctx context.Context, req *ihmtv1.ReviewRequest) (*ihmtv1.ReviewResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.ReviewResponse, error) {
		d, err := decision(req.GetDecision())
		if err != nil {
			return nil, err
		}
		m, err := st.Review(ctx, caller(req.GetCaller()), req.GetId(), d, req.GetNote())
		return &ihmtv1.ReviewResponse{Memory: memory(m)}, err
	})
}

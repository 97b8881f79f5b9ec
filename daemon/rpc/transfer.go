package rpc

import (
	"context"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Memories in and out in bulk: export and import of exact records, and
// ingest, which cuts a document into memories.

func (s *Server) Export(ctx context.Context, req *ihmtv1.ExportRequest) (*ihmtv1.ExportResponse, error) {
	return withStoreIn(s, searchScope, req.GetScope(), func(st *store.Store, scope store.SearchScope) (*ihmtv1.ExportResponse, error) {
		recs, next, err := st.Export(caller(req.GetCaller()), scope, int(req.GetOffset()))
		return &ihmtv1.ExportResponse{Records: recs, NextOffset: int64(next)}, err
	})
}

func (s *Server) Import(ctx context.Context, req *ihmtv1.ImportRequest) (*ihmtv1.ImportResponse, error) {
	return withStore(s, func(st *store.Store) (*ihmtv1.ImportResponse, error) {
		r, err := st.Import(ctx, caller(req.GetCaller()), req.GetRecords())
		return &ihmtv1.ImportResponse{Imported: int64(r.Imported), Unchanged: int64(r.Unchanged),
			Skipped: int64(r.Skipped), SkippedNote: r.SkippedNote}, err
	})
}

func (s *Server) Ingest(ctx context.Context, req *ihmtv1.IngestRequest) (*ihmtv1.IngestResponse, error) {
	return withStoreIn(s, saveScope, req.GetScope(), func(st *store.Store, scope store.Scope) (*ihmtv1.IngestResponse, error) {
		r, err := st.Ingest(ctx, ingestInput(req, scope))
		if err != nil {
			return nil, err
		}
		return ingestReply(r)
	})
}

package client

import (
	"context"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// SyncInit asks the daemon to set up sync over git with a remote
// (SyncService).
func (c *Client) SyncInit(ctx context.Context, req *ihmtv1.SyncServiceInitRequest) (*ihmtv1.SyncServiceInitResponse, error) {
	req.Caller = c.caller(req.Caller)
	api := ihmtv1.NewSyncServiceClient(c.conn)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.SyncServiceInitResponse, error) { return api.Init(ctx, req) })
}

// Sync asks the daemon to sync now.
func (c *Client) Sync(ctx context.Context, req *ihmtv1.SyncRequest) (*ihmtv1.SyncResponse, error) {
	req.Caller = c.caller(req.Caller)
	api := ihmtv1.NewSyncServiceClient(c.conn)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.SyncResponse, error) { return api.Sync(ctx, req) })
}

// SyncStatus asks the daemon where sync stands.
func (c *Client) SyncStatus(ctx context.Context, req *ihmtv1.SyncServiceStatusRequest) (*ihmtv1.SyncServiceStatusResponse, error) {
	req.Caller = c.caller(req.Caller)
	api := ihmtv1.NewSyncServiceClient(c.conn)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.SyncServiceStatusResponse, error) { return api.Status(ctx, req) })
}

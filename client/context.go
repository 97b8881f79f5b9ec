package client

import (
	"context"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Brief asks for the caller's session-start briefing (ContextService).
func (c *Client) Brief(ctx context.Context, req *ihmtv1.BriefRequest) (*ihmtv1.BriefResponse, error) {
	req.Caller = c.caller(req.Caller)
	api := ihmtv1.NewContextServiceClient(c.conn)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.BriefResponse, error) { return api.Brief(ctx, req) })
}

// ContextSettings returns the person's settings for what hooks inject.
func (c *Client) ContextSettings(ctx context.Context) (*ihmtv1.SettingsResponse, error) {
	req := &ihmtv1.SettingsRequest{Caller: c.caller(nil)}
	api := ihmtv1.NewContextServiceClient(c.conn)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.SettingsResponse, error) { return api.Settings(ctx, req) })
}

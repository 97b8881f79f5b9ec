package client

import (
	"context"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// ServePage asks the daemon to serve the person's web page (UIService) and
// returns its address, token included.
func (c *Client) ServePage(ctx context.Context, req *ihmtv1.ServeRequest) (*ihmtv1.ServeResponse, error) {
	req.Caller = c.caller(req.Caller)
	api := ihmtv1.NewUIServiceClient(c.conn)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ServeResponse, error) { return api.Serve(ctx, req) })
}

// PageStatus says whether the daemon serves the page.
func (c *Client) PageStatus(ctx context.Context) (*ihmtv1.UIServiceStatusResponse, error) {
	req := &ihmtv1.UIServiceStatusRequest{Caller: c.caller(nil)}
	api := ihmtv1.NewUIServiceClient(c.conn)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.UIServiceStatusResponse, error) { return api.Status(ctx, req) })
}

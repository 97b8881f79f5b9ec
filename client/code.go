package client

import (
	"context"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The project code calls: a project's map, its symbols found by a query,
// and its files read with the session's memory of what it was handed.

func (c *Client) code() ihmtv1.CodeServiceClient { return ihmtv1.NewCodeServiceClient(c.conn) }

// ProjectMap maps a project's files, with their symbols on request.
func (c *Client) ProjectMap(ctx context.Context, req *ihmtv1.ProjectMapRequest) (*ihmtv1.ProjectMapResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ProjectMapResponse, error) { return c.code().ProjectMap(ctx, req) })
}

// FindCode finds the symbols of a project that answer a query.
func (c *Client) FindCode(ctx context.Context, req *ihmtv1.FindCodeRequest) (*ihmtv1.FindCodeResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.FindCodeResponse, error) { return c.code().FindCode(ctx, req) })
}

// ReadFile reads a project file: whole, or UNCHANGED or a diff when the
// session was handed it before.
func (c *Client) ReadFile(ctx context.Context, req *ihmtv1.ReadFileRequest) (*ihmtv1.ReadFileResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ReadFileResponse, error) {
		return c.code().ReadFile(c.withSessionKey(ctx), req)
	})
}

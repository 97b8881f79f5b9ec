package client

import (
	"context"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The calls beyond save and search: corrections, forgetting, review, audit,
// the fact timeline, export and import. Each fills in the client's caller
// when the request has none.

// MarkOutdated links a correction to the memory it corrects.
func (c *Client) MarkOutdated(ctx context.Context, req *ihmtv1.MarkOutdatedRequest) (*ihmtv1.MarkOutdatedResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.MarkOutdatedResponse, error) { return c.api.MarkOutdated(ctx, req) })
}

// Forget tombstones a memory.
func (c *Client) Forget(ctx context.Context, req *ihmtv1.ForgetRequest) (*ihmtv1.ForgetResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ForgetResponse, error) { return c.api.Forget(ctx, req) })
}

// Restore undoes a Forget.
func (c *Client) Restore(ctx context.Context, req *ihmtv1.RestoreRequest) (*ihmtv1.RestoreResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.RestoreResponse, error) { return c.api.Restore(ctx, req) })
}

// Purge removes a forgotten memory's text from its leaf and the log.
func (c *Client) Purge(ctx context.Context, req *ihmtv1.PurgeRequest) (*ihmtv1.PurgeResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.PurgeResponse, error) { return c.api.Purge(ctx, req) })
}

// ListReview lists what waits for a person's review.
func (c *Client) ListReview(ctx context.Context, req *ihmtv1.ListReviewRequest) (*ihmtv1.ListReviewResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ListReviewResponse, error) { return c.api.ListReview(ctx, req) })
}

// Review records a person's decision on a memory.
func (c *Client) Review(ctx context.Context, req *ihmtv1.ReviewRequest) (*ihmtv1.ReviewResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ReviewResponse, error) { return c.api.Review(ctx, req) })
}

// Log lists mutation log entries.
func (c *Client) Log(ctx context.Context, req *ihmtv1.LogRequest) (*ihmtv1.LogResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.LogResponse, error) { return c.api.Log(ctx, req) })
}

// VerifyAudit walks the log's hash chain.
func (c *Client) VerifyAudit(ctx context.Context, req *ihmtv1.VerifyAuditRequest) (*ihmtv1.VerifyAuditResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.VerifyAuditResponse, error) { return c.api.VerifyAudit(ctx, req) })
}

// Facts lists fact values in a view.
func (c *Client) Facts(ctx context.Context, req *ihmtv1.FactsRequest) (*ihmtv1.FactsResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.FactsResponse, error) { return c.api.Facts(ctx, req) })
}

// Timeline lists every value of one subject's attribute.
func (c *Client) Timeline(ctx context.Context, req *ihmtv1.TimelineRequest) (*ihmtv1.TimelineResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.TimelineResponse, error) { return c.api.Timeline(ctx, req) })
}

// Conflicts lists every supersession.
func (c *Client) Conflicts(ctx context.Context, req *ihmtv1.ConflictsRequest) (*ihmtv1.ConflictsResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ConflictsResponse, error) { return c.api.Conflicts(ctx, req) })
}

// Unlink undoes a probable supersession.
func (c *Client) Unlink(ctx context.Context, req *ihmtv1.UnlinkRequest) (*ihmtv1.UnlinkResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.UnlinkResponse, error) { return c.api.Unlink(ctx, req) })
}

// Export returns memories as leaf records.
func (c *Client) Export(ctx context.Context, req *ihmtv1.ExportRequest) (*ihmtv1.ExportResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ExportResponse, error) { return c.api.Export(ctx, req) })
}

// Import stores exported records.
func (c *Client) Import(ctx context.Context, req *ihmtv1.ImportRequest) (*ihmtv1.ImportResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ImportResponse, error) { return c.api.Import(ctx, req) })
}

// Ingest stores a document as leaves.
func (c *Client) Ingest(ctx context.Context, req *ihmtv1.IngestRequest) (*ihmtv1.IngestResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.IngestResponse, error) { return c.api.Ingest(ctx, req) })
}

// Rebuild re-derives the store's derived state from its leaf files.
func (c *Client) Rebuild(ctx context.Context, req *ihmtv1.RebuildRequest) (*ihmtv1.RebuildResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.RebuildResponse, error) { return c.api.Rebuild(ctx, req) })
}

// Tree returns the summary tree's outline.
func (c *Client) Tree(ctx context.Context, req *ihmtv1.TreeRequest) (*ihmtv1.TreeResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.TreeResponse, error) { return c.api.Tree(ctx, req) })
}

// Consolidate writes the summary branches pending changes complete, now.
func (c *Client) Consolidate(ctx context.Context, req *ihmtv1.ConsolidateRequest) (*ihmtv1.ConsolidateResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ConsolidateResponse, error) { return c.api.Consolidate(ctx, req) })
}

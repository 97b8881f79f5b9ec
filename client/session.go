package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"google.golang.org/grpc/metadata"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// SessionKeyHeader is the gRPC metadata that carries a session's key: a
// session's notes, digests and file reads answer only to the key that
// opened it, never to its id alone.
const SessionKeyHeader = "ihmt-session-key"

func newSessionKey() string {
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// withSessionKey adds this client's session key to a session call.
func (c *Client) withSessionKey(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, SessionKeyHeader, c.sessionKey)
}

// The session scratch calls: notes, recall and digests, held by the daemon
// for one ihmt-mcp session (Caller.session_id), and the stream that tells
// the daemon the session is still there.

func (c *Client) sessions() ihmtv1.SessionServiceClient {
	return ihmtv1.NewSessionServiceClient(c.conn)
}

// Note keeps a note for the caller's session.
func (c *Client) Note(ctx context.Context, req *ihmtv1.NoteRequest) (*ihmtv1.NoteResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.NoteResponse, error) {
		return c.sessions().Note(c.withSessionKey(ctx), req)
	})
}

// Recall searches the caller's session notes and digested outputs.
func (c *Client) Recall(ctx context.Context, req *ihmtv1.RecallRequest) (*ihmtv1.RecallResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.RecallResponse, error) {
		return c.sessions().Recall(c.withSessionKey(ctx), req)
	})
}

// DigestOutput condenses a command output and keeps it for Recall.
func (c *Client) DigestOutput(ctx context.Context, req *ihmtv1.DigestOutputRequest) (*ihmtv1.DigestOutputResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.DigestOutputResponse, error) {
		return c.sessions().DigestOutput(c.withSessionKey(ctx), req)
	})
}

// Attach holds the caller's session open in the daemon until ctx ends or
// the stream breaks (the daemon stopped): it returns once the stream is
// gone. attached is called with the daemon's limits once the stream is up.
// It never starts a daemon: a session call does that, and a session whose
// daemon stopped has lost its notes anyway.
func (c *Client) Attach(ctx context.Context, caller *ihmtv1.Caller, attached func(*ihmtv1.AttachResponse)) error {
	stream, err := c.sessions().Attach(c.withSessionKey(ctx), &ihmtv1.AttachRequest{Caller: c.caller(caller)})
	if err != nil {
		return c.translate(err)
	}
	first, err := stream.Recv()
	if err != nil {
		return c.translate(err)
	}
	if attached != nil {
		attached(first)
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("session stream ended: %w", c.translate(err))
		}
	}
}

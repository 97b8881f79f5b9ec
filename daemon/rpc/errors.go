package rpc

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ihmt-dev/ihmt/pkg/store"
)

// ErrOpening means the daemon has no open store yet: it is opening it, at
// its start or for a rebuild. A client retries.
var ErrOpening = errors.New("the daemon is still opening the store: retry in a moment")

// toStatus translates the engine's errors into gRPC codes — the one place
// where that happens on this side of the wire.
func toStatus(err error) error {
	switch {
	case errors.Is(err, store.ErrInvalid):
		// The code says "invalid"; the message need not say it again.
		return status.Error(codes.InvalidArgument, strings.Replace(err.Error(), store.ErrInvalid.Error()+": ", "", 1))
	case errors.Is(err, store.ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, store.ErrConflict):
		return status.Error(codes.FailedPrecondition, strings.Replace(err.Error(), store.ErrConflict.Error()+": ", "", 1))
	case errors.Is(err, store.ErrPermission):
		return status.Error(codes.PermissionDenied, strings.Replace(err.Error(), store.ErrPermission.Error()+": ", "", 1))
	case errors.Is(err, ErrOpening):
		return status.Error(codes.Unavailable, ErrOpening.Error())
	case errors.Is(err, store.ErrClosed):
		return status.Error(codes.Unavailable, "the daemon is shutting down: retry in a moment")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

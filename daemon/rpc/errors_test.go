package rpc

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ihmt-dev/ihmt/pkg/store"
)

// TestToStatus: each of the store's sentinels, wrapped as the store wraps
// them, becomes its code; the code's own word is not repeated in the
// message, and anything else is Internal with its message kept.
func TestToStatus(t *testing.T) {
	tests := []struct {
		err  error
		code codes.Code
		msg  string
	}{
		{fmt.Errorf("%w: content is empty", store.ErrInvalid), codes.InvalidArgument, "content is empty"},
		{fmt.Errorf("get 0123: %w", store.ErrNotFound), codes.NotFound, "get 0123: " + store.ErrNotFound.Error()},
		{fmt.Errorf("%w: already forgotten", store.ErrConflict), codes.FailedPrecondition, "already forgotten"},
		{fmt.Errorf("%w: the person's to do", store.ErrPermission), codes.PermissionDenied, "the person's to do"},
		{fmt.Errorf("rebuild: %w", ErrOpening), codes.Unavailable, ErrOpening.Error()},
		{fmt.Errorf("save: %w", store.ErrClosed), codes.Unavailable, "the daemon is shutting down: retry in a moment"},
		{fmt.Errorf("save: %w", context.Canceled), codes.Canceled, "save: context canceled"},
		{fmt.Errorf("save: %w", context.DeadlineExceeded), codes.DeadlineExceeded, "save: context deadline exceeded"},
		{errors.New("disk on fire"), codes.Internal, "disk on fire"},
	}
	for _, tt := range tests {
		s := status.Convert(toStatus(tt.err))
		if s.Code() != tt.code || s.Message() != tt.msg {
			t.Errorf("toStatus(%q) = %v %q, want %v %q", tt.err, s.Code(), s.Message(), tt.code, tt.msg)
		}
	}
}

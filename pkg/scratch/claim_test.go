package scratch

import (
	"errors"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// TestClaim: the first key to use a session id holds it; the same key
// passes again (the control), another key or none is refused.
func TestClaim(t *testing.T) {
	s := New(Limits{})
	defer s.Close()
	mine, theirs := strings.Repeat("a", 48), strings.Repeat("b", 48)
	for _, c := range []struct {
		id, key string
		want    error
	}{
		{"s1", mine, nil},
		{"s1", mine, nil},
		{"s1", theirs, ErrNotYours},
		{"s1", "", leaf.ErrInvalid},
		{"s2", theirs, nil},
		{"s2", mine, ErrNotYours},
	} {
		if err := s.Claim(c.id, c.key); !errors.Is(err, c.want) && (err != nil || c.want != nil) {
			t.Errorf("Claim(%s, %.4s…) = %v, want %v", c.id, c.key, err, c.want)
		}
	}
	if !errors.Is(ErrNotYours, leaf.ErrPermission) {
		t.Fatal("ErrNotYours must be a permission error, for the gRPC code")
	}
}

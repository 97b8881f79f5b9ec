package ui_test

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestNoWayIntoTheStore: the page reaches the memory only through the
// daemon's gRPC service — it imports no engine package and not the
// adapter, so it cannot call the store by another way.
func TestNoWayIntoTheStore(t *testing.T) {
	bp, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range bp.Imports { // not the tests'
		if strings.HasPrefix(p, "github.com/ihmt-dev/ihmt/pkg/") || strings.HasPrefix(p, "github.com/ihmt-dev/ihmt/daemon") {
			t.Errorf("the page imports %s: reach the memory through the gRPC service instead", p)
		}
	}
	// Positive control: the imports read are the page's.
	if !slices.Contains(bp.Imports, "github.com/ihmt-dev/ihmt/proto/ihmt/v1") || !slices.Contains(bp.Imports, "google.golang.org/grpc") {
		t.Errorf("read the imports %v: is the test reading the page's files?", bp.Imports)
	}
}

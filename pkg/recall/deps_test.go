package recall_test

import (
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// writers are the packages that write the store's files: the store and
// its writer, the atomic file writes, the log, the summary tree (which
// writes its branches) and sync.
var writers = []string{"pkg/store", "pkg/atomicfile", "pkg/journal", "pkg/tree", "pkg/gitsync"}

// linksWriter returns the first writer pkg links.
func linksWriter(t *testing.T, pkg string) string {
	has := testenv.Deps(t, pkg)
	for _, w := range writers {
		if has[w] {
			return w
		}
	}
	return ""
}

// TestDepsNoWriter: the pipeline reads the store through its Reader and
// links no code that writes it. The positive control: the same check
// finds the writer in pkg/store's own links.
func TestDepsNoWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	if w := linksWriter(t, "pkg/recall"); w != "" {
		t.Errorf("pkg/recall links %s: the search pipeline must read the store through recall.Reader only", w)
	}
	if w := linksWriter(t, "pkg/store"); w == "" {
		t.Error("control: pkg/store links no writer: the check cannot be trusted")
	}
}

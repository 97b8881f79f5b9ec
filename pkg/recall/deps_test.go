package recall_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ihmt-dev/ihmt/"

// writers are the packages that write the store's files: the store and
// its writer, the atomic file writes, the log, the summary tree (which
// writes its branches) and sync.
var writers = []string{"pkg/store", "pkg/atomicfile", "pkg/journal", "pkg/tree", "pkg/gitsync"}

// linksWriter returns the first writer pkg links, as go list sees it.
func linksWriter(t *testing.T, pkg string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list %s: %v", pkg, err)
	}
	has := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		has[strings.TrimPrefix(p, module)] = true
	}
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

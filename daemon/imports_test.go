package daemon

import (
	"go/build"
	"strings"
	"testing"
)

// TestImports keeps the daemon on the store's API: the daemon and its gRPC
// adapter may use the store and the shared helpers (paths, safesocket,
// version), never the store's parts, whose types would then leak into the
// replies and tie the daemon to how the store is built.
func TestImports(t *testing.T) {
	const pkg = "github.com/ihmt-dev/ihmt/pkg/"
	allowed := map[string]bool{"store": true, "paths": true, "safesocket": true, "version": true,
		// The session and project families are engines of their own beside
		// the store, not parts of it: the sessions' scratch notes are never
		// stored, and the code index is derived from a project's files.
		"scratch": true, "codeindex": true,
		// read_file's diff against what a session was handed.
		"linediff": true,
		// Sync over git runs beside the store and reaches it only through
		// the store's API (SyncRecords, Merge).
		"gitsync": true,
	}
	seen := map[string]bool{}
	for name, dir := range map[string]string{"daemon": ".", "daemon/rpc": "rpc"} {
		bp, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range bp.Imports { // not the tests'
			part, ok := strings.CutPrefix(p, pkg)
			if !ok {
				continue
			}
			seen[part] = true
			if !allowed[part] {
				t.Errorf("%s imports %s: reach it through the store's API (pkg/store/api.go)", name, p)
			}
		}
	}
	// Positive control: the packages read are the daemon's.
	if !seen["store"] || !seen["safesocket"] {
		t.Errorf("read no import of pkg/store or pkg/safesocket (saw %v): is the test reading the daemon's files?", seen)
	}
}

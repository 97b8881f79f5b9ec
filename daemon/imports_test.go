package daemon

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the daemon on the store's API: the daemon and its gRPC
// adapter may use the store and the shared helpers (paths, safesocket,
// version), never the store's parts, whose types would then leak into the
// replies and tie the daemon to how the store is built.
func TestImports(t *testing.T) {
	const pkg = "github.com/ihmt-dev/ihmt/pkg/"
	allowed := map[string]bool{"store": true, "paths": true, "safesocket": true, "version": true}
	seen := map[string]bool{}
	for _, dir := range []string{".", "rpc"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
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
	}
	// Positive control: the files read are the daemon's.
	if !seen["store"] || !seen["safesocket"] {
		t.Errorf("read no import of pkg/store or pkg/safesocket (saw %v): is the test reading the daemon's files?", seen)
	}
}

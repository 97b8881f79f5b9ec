package shim

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/ihmt-dev/ihmt"

// allowedInternal are the module's packages outside client, proto and shim
// that ihmt-mcp may link: the shared helpers, not the engine. Each says why.
var allowedInternal = map[string]bool{
	// Where the socket is, as the daemon resolves it, whose it is and
	// whether anyone listens there.
	module + "/pkg/paths":   true,
	module + "/pkg/version": true, // the version both ends report
}

// TestDeps keeps the shim tiny: ihmt-mcp starts with every agent session, so
// it may link the client, the generated API and the MCP SDK, never the
// daemon or the engine (as tailscale's TestDeps does for its binaries).
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	// go test puts its own go first on PATH.
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == "/dev/null" {
		t.Fatalf("find the module root: %q %v", gomod, err)
	}
	cmd := exec.Command("go", "list", "-deps", "./shim/cmd/ihmt-mcp")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))

	var bad []string
	has := map[string]bool{}
	for _, p := range deps {
		has[p] = true
		switch {
		case p == module+"/daemon" || strings.HasPrefix(p, module+"/daemon/"):
			bad = append(bad, p)
		case strings.HasPrefix(p, module+"/pkg/") && !allowedInternal[p]:
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		t.Errorf("ihmt-mcp depends on packages it must not link (the daemon and the engine stay out of the shim):\n\t%s",
			strings.Join(bad, "\n\t"))
	}

	// Positive control: the list is the real dependency set.
	for _, want := range []string{
		module + "/client",
		module + "/proto/ihmt/v1",
		module + "/shim",
		"github.com/modelcontextprotocol/go-sdk/mcp",
	} {
		if !has[want] {
			t.Errorf("ihmt-mcp's dependencies lack %s; is the list right? (%d packages)", want, len(deps))
		}
	}
}

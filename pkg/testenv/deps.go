package testenv

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Module is the module's import path.
const Module = "github.com/ihmt-dev/ihmt"

// Deps lists what the module's package pkg ("pkg/recall") links, as go list
// sees it: the module's own packages by their path inside it
// ("pkg/store"), the rest by import path.
func Deps(t testing.TB, pkg string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", Module+"/"+pkg).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list %s: %v", pkg, err)
	}
	has := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		has[strings.TrimPrefix(p, Module+"/")] = true
	}
	return has
}

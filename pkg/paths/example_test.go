package paths_test

import (
	"fmt"

	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// Resolve applies the rules to a given environment: here the one a shim
// launched by Codex sees (no XDG variables) on a machine without a login
// session's /run/user directory, then the same with an override.
func ExampleResolve() {
	env := map[string]string{"HOME": "/home/u", "PATH": "/usr/bin", "USER": "u"}
	getenv := func(k string) string { return env[k] }
	p, err := paths.Resolve(getenv, "linux", 1<<30) // a uid with no /run/user directory
	fmt.Println(p.Data, p.Socket, err)

	env["IHMT_SOCKET"] = "/tmp/ihmt-u/ihmtd.sock"
	p, err = paths.Resolve(getenv, "linux", 1<<30)
	fmt.Println(p.Socket, p.RuntimeDir(), p.LockFile(), err)

	env["IHMT_HOME"] = "ihmt"
	_, err = paths.Resolve(getenv, "linux", 1<<30)
	fmt.Println(err)
	// Output:
	// /home/u/.local/share/ihmt /home/u/.local/state/ihmt/ihmtd.sock <nil>
	// /tmp/ihmt-u/ihmtd.sock /tmp/ihmt-u /home/u/.local/share/ihmt/ihmtd.lock <nil>
	// IHMT_HOME is "ihmt", a relative path; set it to an absolute path, since the daemon, the CLI and the MCP shim run in different working directories
}

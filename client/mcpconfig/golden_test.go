package mcpconfig

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/client/instructions"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from what install writes")

// goldenServer is what the golden files register: an environment, so each
// client's way of passing one is in them; goldenHook what their hooks run.
var (
	goldenServer = Server{Command: mcpPath, Env: map[string]string{"IHMT_HOME": "/home/u/ihmt-store"}}
	goldenHook   = Hook{Command: filepath.Join(filepath.Dir(mcpPath), "ihmt"), Env: goldenServer.Env}
)

// TestGoldenFiles: the exact files `ihmt mcp install` writes for each
// client that is configured from its documentation alone (no CLI here to
// check it with; Gemini CLI and Copilot CLI are also driven for real by
// scripts/agents-check.sh), hooks included where the client gets them, per
// scope and, for the desktop apps, per system — into a
// fresh home, and into a home that holds the fixture (its other servers,
// keys and comments). The instructions block is shown as a placeholder, so
// a change of the instructions' wording does not touch every golden file.
// Go test -run TestGoldenFiles ./client/mcpconfig -update rewrites them;
// read the diff before committing it.
func TestGoldenFiles(t *testing.T) {
	for _, client := range slices.Sorted(maps.Keys(jsonClients)) {
		c := jsonClients[client]
		systems := []string{"linux"}
		if client == ClaudeDesktop || client == VSCode {
			systems = []string{"linux", "darwin"}
		}
		scopes := []string{ScopeUser}
		if c.project != nil {
			scopes = append(scopes, ScopeProject)
		}
		for _, goos := range systems {
			for _, scope := range scopes {
				for _, withFixture := range []bool{false, true} {
					if withFixture && scope == ScopeProject {
						continue // the fixture is a user file
					}
					name := client + "-" + scope
					if len(systems) > 1 {
						name += "-" + goos
					}
					if withFixture {
						name += "-onto-fixture"
					}
					t.Run(name, func(t *testing.T) { goldenCase(t, name, client, scope, goos, withFixture) })
				}
			}
		}
	}
}

func goldenCase(t *testing.T, name, client, scope, goos string, withFixture bool) {
	root := t.TempDir()
	env := Env{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"), GOOS: goos}
	os.MkdirAll(env.Home, 0o700)
	os.MkdirAll(env.Project, 0o700)
	var fixture, fixturePath string
	if withFixture {
		loc, err := env.Locate(client, scope)
		if err != nil {
			t.Fatal(err)
		}
		fixture, fixturePath = fixtures[client].content, loc.Configs[0]
		write(t, fixturePath, fixture)
	}
	o := Options{Env: env, Client: client, Scope: scope, Server: goldenServer}
	p, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if HasHooks(client) {
		if err := AddHooks(p, o, goldenHook, false); err != nil {
			t.Fatal(err)
		}
	}
	apply(t, p)
	dir := filepath.Join("testdata", "golden", name)
	if *update {
		os.RemoveAll(dir)
	}
	var written []string
	for _, c := range p.Changes {
		if !c.Changed() {
			continue
		}
		rel, err := filepath.Rel(root, c.Path)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(written, rel) {
			continue // the registration's file holds the hooks too (Gemini CLI)
		}
		written = append(written, rel)
		got := strings.ReplaceAll(read(t, c.Path), strings.TrimSpace(instructions.Text), "{{the instructions: client/instructions/instructions.md}}")
		golden := filepath.Join(dir, rel)
		if *update {
			write(t, golden, got)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to write it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", c.Path, golden, got, want)
		}
	}
	// Nothing else is expected: every golden file was written.
	var expected []string
	filepath.WalkDir(dir, func(path string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			expected = append(expected, rel)
		}
		return nil
	})
	slices.Sort(written)
	slices.Sort(expected)
	if !*update && !slices.Equal(written, expected) {
		t.Errorf("install wrote %q, the golden files are %q", written, expected)
	}
	// What was written reads back as current, and goes away again.
	r := Inspect(env, client, scope)
	if !r.Registered || !r.Current || r.Command != mcpPath || r.Env["IHMT_HOME"] != goldenServer.Env["IHMT_HOME"] || r.InstructionsCurrent != (r.Instructions != "") {
		t.Errorf("read back: %+v", r)
	}
	if st := InspectHooks(env, client, scope, goldenHook); HasHooks(client) && (!st.Installed || !st.Current || st.Problem != "" || !strings.Contains(st.Command, goldenHook.Command+hookMarker+client)) {
		t.Errorf("hooks read back: %+v", st)
	}
	uo := Options{Env: env, Client: client, Scope: scope}
	u, err := Uninstall(uo)
	if err != nil {
		t.Fatal(err)
	}
	if HasHooks(client) {
		if err := AddHooks(u, uo, Hook{}, true); err != nil {
			t.Fatal(err)
		}
	}
	apply(t, u)
	for _, c := range p.Changes {
		b, err := os.ReadFile(c.Path)
		switch {
		case c.Path == fixturePath:
			if string(b) != fixture {
				t.Errorf("uninstall left %s as %q, want the fixture back", c.Path, b)
			}
		case err == nil:
			t.Errorf("uninstall left %s", c.Path)
		}
	}
}

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The session and project families through real shims, over stdio, with
// the go-sdk client, against a real ihmtd.

// graceDaemon starts ihmtd with a short session grace, so that a test sees
// a gone shim's notes go.
func (e *testEnv) graceDaemon(t *testing.T, grace time.Duration) {
	t.Helper()
	cmd := exec.Command(bins.Daemon, "-data", e.home, "-socket", e.sock)
	cmd.Dir, cmd.Env = e.workDir, e.environ("", "IHMT_SESSION_GRACE="+grace.String())
	d := &daemonProc{cmd: cmd, out: &testenv.Logs{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.waitErr = cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		if !d.exited() {
			cmd.Process.Kill()
		}
		<-d.done
	})
	e.waitReady(t, d)
}

// shimIn launches ihmt-mcp with its working directory in dir.
func (e *testEnv) shimIn(t *testing.T, ctx context.Context, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	return e.shimEnv(t, ctx, dir, nil, args...)
}

// shimEnv is shimIn with extra environment variables.
func (e *testEnv) shimEnv(t *testing.T, ctx context.Context, dir string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bins.Shim, args...)
	cmd.Dir, cmd.Env = dir, e.environ("", env...)
	stderr := &testenv.Logs{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolbox-test", Version: "1.0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("start ihmt-mcp: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type recallAnswer struct {
	Status string `json:"status"`
	Hits   []struct {
		ID, Kind, Text string
	} `json:"hits"`
	Candidates []struct{ ID string } `json:"candidates"`
	Message    string                `json:"message"`
}

type noteAnswer struct {
	ID string `json:"id"`
}

func TestSessionNotes(t *testing.T) {
	e := newEnv(t)
	e.graceDaemon(t, time.Second)
	ctx := testenv.Context(t)
	a := e.shimIn(t, ctx, e.workDir)
	b := e.shimIn(t, ctx, e.workDir)

	// A long-term memory and a note sharing its words; and a note whose
	// words no memory has.
	mem, err := save(ctx, a, "Release builds are signed on the quokka server every Friday.")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callTool[noteAnswer](ctx, a, "note", map[string]any{"text": "Release builds are signed on the quokka server: saw it in ci.yml line 40."}); err != nil {
		t.Fatal(err)
	}
	n, err := callTool[noteAnswer](ctx, a, "note", map[string]any{"text": "The wombat fixture needs TZ=UTC or TestParseDates fails."})
	if err != nil || n.ID == "" {
		t.Fatalf("note: %+v %v", n, err)
	}

	t.Run("recalled in its session", func(t *testing.T) {
		r, err := callTool[recallAnswer](ctx, a, "recall", map[string]any{"query": "wombat fixture timezone"})
		if err != nil || r.Status != "found" || len(r.Hits) == 0 || !strings.Contains(r.Hits[0].Text, "TZ=UTC") {
			t.Fatalf("recall in its session: %+v %v", r, err)
		}
	})
	t.Run("not in search_memory", func(t *testing.T) {
		// Positive control: the memory with the same words is found, and
		// is the memory, not the note.
		s, err := search(ctx, a, map[string]any{"query": "quokka server release builds signed", "detail": "full"})
		if err != nil || s.Status != "found" || s.Results[0].ID != mem.ID {
			t.Fatalf("search for the memory: %+v %v", s, err)
		}
		for _, r := range s.Results {
			if strings.Contains(r.Content, "ci.yml") {
				t.Errorf("search_memory returned the note: %+v", r)
			}
		}
		s, err = search(ctx, a, map[string]any{"query": "wombat fixture"})
		if err != nil || s.Status != "not_found" {
			t.Fatalf("search_memory found a note: %+v %v", s, err)
		}
	})
	t.Run("invisible to another session", func(t *testing.T) {
		r, err := callTool[recallAnswer](ctx, b, "recall", map[string]any{"query": "wombat fixture timezone"})
		if err != nil || r.Status != "not_found" || len(r.Hits) != 0 {
			t.Fatalf("another session recalled the note: %+v %v", r, err)
		}
	})
	t.Run("secrets refused", func(t *testing.T) {
		_, err := callTool[noteAnswer](ctx, a, "note", map[string]any{"text": "deploy with token ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8"})
		if te, ok := err.(*toolError); !ok || !strings.Contains(te.text, "secret") || strings.Contains(te.text, "ghp_") {
			t.Fatalf("note with a token: %v", err)
		}
		r, _ := callTool[recallAnswer](ctx, a, "recall", map[string]any{"query": "deploy token"})
		if r.Status == "found" {
			t.Errorf("the refused note was kept: %+v", r)
		}
		_, err = callTool[map[string]any](ctx, a, "digest_output", map[string]any{"text": "env:\nGITHUB_TOKEN=ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8\nok"})
		if _, ok := err.(*toolError); !ok {
			t.Fatalf("digest of an output with a secret: %v", err)
		}
	})
	t.Run("digest_output", func(t *testing.T) {
		var out strings.Builder
		for i := range 300 {
			out.WriteString("=== RUN   TestStep" + string(rune('A'+i%26)) + "\n")
			if i == 150 {
				out.WriteString("    parse_test.go:88: the marmalade header was dropped\n--- FAIL: TestParseHeaders (0.01s)\n")
			}
		}
		out.WriteString("FAIL\nFAIL\tgithub.com/x/parse\t0.3s\nok  \tgithub.com/x/other\t0.1s\n")
		d, err := callTool[struct {
			ID     string
			Digest string
			Totals []string
		}](ctx, a, "digest_output", map[string]any{"text": out.String(), "label": "go test ./..."})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Digest, "--- FAIL: TestParseHeaders") || !strings.Contains(d.Digest, "marmalade") ||
			len(d.Totals) == 0 || !strings.Contains(d.Totals[0], "1 packages ok, 1 FAIL") || len(d.Digest) > 3000 {
			t.Fatalf("digest:\n%s\ntotals %q", d.Digest, d.Totals)
		}
		// A line the digest left out is found in the kept output.
		if strings.Contains(d.Digest, "TestStepQ") {
			t.Fatalf("the digest holds every line (%d bytes)", len(d.Digest))
		}
		r, err := callTool[recallAnswer](ctx, a, "recall", map[string]any{"query": "TestStepQ"})
		if err != nil || r.Status != "found" || r.Hits[0].Kind != "output" || !strings.Contains(r.Hits[0].Text, "TestStepQ") {
			t.Fatalf("recall of a line of the output: %+v %v", r, err)
		}
	})
	t.Run("gone after the shim exits", func(t *testing.T) {
		// The session id is the one the memory was saved with.
		s, err := search(ctx, a, map[string]any{"query": "quokka server release builds signed"})
		if err != nil || len(s.Results) == 0 || s.Results[0].Session == "" {
			t.Fatalf("session of the saved memory: %+v %v", s, err)
		}
		c, err := client.New(client.Options{Socket: e.sock})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		caller := &ihmtv1.Caller{AgentName: "test", SessionId: s.Results[0].Session}
		// Another client naming the session's public id: refused while the
		// session lives (its notes answer only to the shim's key), and an
		// empty new session once it is gone.
		direct := func() (ihmtv1.SearchStatus, error) {
			r, err := c.Recall(ctx, &ihmtv1.RecallRequest{Caller: caller, Query: "wombat fixture"})
			return r.GetStatus(), err
		}
		if st, err := direct(); !errors.Is(err, client.ErrPermission) {
			t.Fatalf("another client's recall of the running session: %v %v, want refused", st, err)
		}
		shimRecall := func() string {
			r, err := callTool[recallAnswer](ctx, a, "recall", map[string]any{"query": "wombat fixture"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		}
		// Positive control: the shim itself recalls its note.
		if st := shimRecall(); st != "found" {
			t.Fatalf("the shim's recall while it runs: %v", st)
		}
		// A shim that is still attached keeps its notes past the grace.
		time.Sleep(1500 * time.Millisecond)
		if st := shimRecall(); st != "found" {
			t.Fatalf("an attached session lost its notes after the grace: %v", st)
		}
		a.Close()
		waitFor(t, 10*time.Second, func() (bool, string) {
			st, err := direct()
			return err == nil && st == ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND, fmt.Sprintf("recall after the shim exited: %v %v", st, err)
		})
		// The other session is untouched by it.
		if _, err := callTool[noteAnswer](ctx, b, "note", map[string]any{"text": "b's own note about kiwis"}); err != nil {
			t.Fatal(err)
		}
		r, err := callTool[recallAnswer](ctx, b, "recall", map[string]any{"query": "kiwis"})
		if err != nil || r.Status != "found" {
			t.Fatalf("the second session: %+v %v", r, err)
		}
	})
}

// project makes a git repository with a little code, a .gitignore, an
// ignored directory, and symlinks in and out of it.
func project(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "proj"), filepath.Join(base, "outside.txt")
	files := map[string]string{
		".git/HEAD":  "ref: refs/heads/main\n",
		".gitignore": "gen/\n*.log\n",
		"config/config.go": `package config

import "os"

// ParseConfig reads the settings file at path and returns its values.
func ParseConfig(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseLines(string(data)), nil
}

func parseLines(s string) map[string]string { return map[string]string{"raw": s} }
`,
		"config/config_test.go": `package config

import "testing"

// TestParseConfig checks the settings file parser.
func TestParseConfig(t *testing.T) {
	if _, err := ParseConfig("testdata/x"); err == nil {
		t.Fatal("no error")
	}
}
`,
		"alpha/worker.go": "package alpha\n\n// Drain empties the queue.\nfunc Drain(queue []int) int {\n\tn := len(queue)\n\treturn n\n}\n",
		"beta/worker.go":  "package beta\n\n// Drain empties the queue.\nfunc Drain(queue []int) int {\n\tn := len(queue)\n\treturn n\n}\n" + strings.Repeat("\n// Pad is here to make the file long.\nfunc Pad() {}\n", 20),
		"gen/huge.go":     "package gen\n\nfunc Generated() {}\n",
		"debug.log":       "noise\n",
		"sub/notes.md":    "# Notes\n\nNothing here.\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("not yours\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": outside, "in": "config/config.go"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

type mapAnswer struct {
	Root  string `json:"root"`
	Files []struct {
		Path    string
		Tokens  int64
		Symbols []struct{ Name, Kind, Lines string }
	} `json:"files"`
	TotalTokens int64 `json:"total_tokens"`
}

type findAnswer struct {
	Status string `json:"status"`
	Hits   []struct {
		Place, Name, Kind, Code string
	} `json:"hits"`
	Candidates []struct{ Place, Name string } `json:"candidates"`
	Tokens     int64                          `json:"tokens"`
}

type readAnswer struct {
	Mode, Text, Path string
}

func TestProjectTools(t *testing.T) {
	e := servedEnv(t)
	ctx := testenv.Context(t)
	root, outside := project(t)
	// The shim starts in a subdirectory: the project is the git top level.
	cs := e.shimIn(t, ctx, filepath.Join(root, "sub"))
	logBefore, _ := os.ReadFile(filepath.Join(e.home, "log.jsonl"))
	t.Cleanup(func() {
		// The code index is derived: no project call wrote a memory or an
		// audit entry, and the index lives in its own directory.
		if after, _ := os.ReadFile(filepath.Join(e.home, "log.jsonl")); string(after) != string(logBefore) {
			t.Errorf("the project tools changed the store's log:\n%s", after[len(logBefore):])
		}
		if m, _ := filepath.Glob(filepath.Join(e.home, "code", "*", "manifest.json")); len(m) != 1 {
			t.Errorf("code index manifests: %v, want one under the store's code/", m)
		}
	})

	t.Run("project_map", func(t *testing.T) {
		m, err := callTool[mapAnswer](ctx, cs, "project_map", map[string]any{"detail": "symbols"})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		syms := map[string]string{}
		for _, f := range m.Files {
			paths = append(paths, f.Path)
			for _, s := range f.Symbols {
				syms[s.Name] = f.Path + " " + s.Kind + " " + s.Lines
			}
		}
		for _, want := range []string{"config/config.go", "config/config_test.go", "alpha/worker.go", ".gitignore", "sub/notes.md"} {
			if !slices.Contains(paths, want) {
				t.Errorf("map lacks %s: %v", want, paths)
			}
		}
		for _, ignored := range []string{"gen/huge.go", "debug.log", "out", "in"} {
			if slices.Contains(paths, ignored) {
				t.Errorf("map lists %s (ignored, or a symlink): %v", ignored, paths)
			}
		}
		if got := syms["ParseConfig"]; got != "config/config.go func 5-12" {
			t.Errorf("ParseConfig in the map: %q (all: %v)", got, syms)
		}
		if m.TotalTokens == 0 || !strings.HasSuffix(m.Root, "proj") {
			t.Errorf("map: root %s, tokens %d", m.Root, m.TotalTokens)
		}
		sub, err := callTool[mapAnswer](ctx, cs, "project_map", map[string]any{"subpath": "alpha"})
		if err != nil || len(sub.Files) != 1 || sub.Files[0].Path != "alpha/worker.go" {
			t.Fatalf("map of a subpath: %+v %v", sub, err)
		}
	})
	t.Run("find_code scope", func(t *testing.T) {
		for _, c := range []struct{ scope, want string }{
			{"", "ParseConfig"}, {"main", "ParseConfig"}, {"test", "TestParseConfig"}, {"all", ""},
		} {
			f, err := callTool[findAnswer](ctx, cs, "find_code", map[string]any{"query": "parse the settings file", "scope": c.scope})
			if err != nil || f.Status != "found" || len(f.Hits) == 0 {
				t.Fatalf("scope %q: %+v %v", c.scope, f, err)
			}
			if c.want != "" && f.Hits[0].Name != c.want {
				t.Errorf("scope %q: first hit %s, want %s", c.scope, f.Hits[0].Name, c.want)
			}
			for _, h := range f.Hits {
				isTest := strings.HasSuffix(strings.SplitN(h.Place, ":", 2)[0], "_test.go")
				if (c.scope == "" || c.scope == "main") && isTest || c.scope == "test" && !isTest {
					t.Errorf("scope %q returned %s", c.scope, h.Place)
				}
			}
			if c.want == "ParseConfig" && (!strings.HasPrefix(f.Hits[0].Place, "config/config.go:5-12") || !strings.Contains(f.Hits[0].Code, "os.ReadFile(path)")) {
				t.Errorf("hit: %+v", f.Hits[0])
			}
		}
		if _, err := callTool[findAnswer](ctx, cs, "find_code", map[string]any{"query": "x", "scope": "tests"}); err == nil {
			t.Error("scope tests accepted")
		}
		// The code is not memory: search_memory does not see it.
		if s, err := search(ctx, cs, map[string]any{"query": "ParseConfig settings file"}); err != nil || s.Status != "not_found" {
			t.Errorf("search_memory found code: %+v %v", s, err)
		}
	})
	t.Run("find_code tie asks for a clue", func(t *testing.T) {
		f, err := callTool[findAnswer](ctx, cs, "find_code", map[string]any{"query": "drain queue"})
		if err != nil || f.Status != "ambiguous" || len(f.Candidates) != 2 || len(f.Hits) != 0 {
			t.Fatalf("tie: %+v %v", f, err)
		}
		f, err = callTool[findAnswer](ctx, cs, "find_code", map[string]any{"query": "drain queue", "clue": "beta"})
		if err != nil || f.Status != "found" || !strings.HasPrefix(f.Hits[0].Place, "beta/worker.go:") {
			t.Fatalf("with a clue: %+v %v", f, err)
		}
		f, err = callTool[findAnswer](ctx, cs, "find_code", map[string]any{"query": "zeppelin hangar"})
		if err != nil || f.Status != "not_found" || len(f.Hits) != 0 {
			t.Fatalf("no match: %+v %v", f, err)
		}
	})
	t.Run("path tricks", func(t *testing.T) {
		for _, c := range []struct {
			tool string
			args map[string]any
			ok   bool
		}{
			{"read_file", map[string]any{"path": "config/config.go"}, true},
			{"read_file", map[string]any{"path": filepath.Join(root, "alpha", "worker.go")}, true},
			{"read_file", map[string]any{"path": "in"}, false}, // a symlink inside: read_file follows none
			{"read_file", map[string]any{"path": "../outside.txt"}, false},
			{"read_file", map[string]any{"path": "config/../../outside.txt"}, false},
			{"read_file", map[string]any{"path": outside}, false},
			{"read_file", map[string]any{"path": "/etc/hostname"}, false},
			{"read_file", map[string]any{"path": "out"}, false}, // a symlink outside
			{"project_map", map[string]any{"path": ".."}, false},
			{"project_map", map[string]any{"subpath": "../.."}, false},
			{"find_code", map[string]any{"query": "drain", "path": "/tmp"}, false},
			{"find_code", map[string]any{"query": "drain", "path": "alpha"}, true},
		} {
			_, err := callTool[map[string]any](ctx, cs, c.tool, c.args)
			if c.ok && err != nil {
				t.Errorf("%s %v: %v", c.tool, c.args, err)
			}
			if !c.ok {
				te, isTool := err.(*toolError)
				if !isTool || !strings.Contains(te.text, "outside") || strings.Contains(te.text, "not yours") {
					t.Errorf("%s %v: want a refusal naming the outside, got %v", c.tool, c.args, err)
				}
			}
		}
	})
	t.Run("read_file again", func(t *testing.T) {
		// Not read yet in this session (path tricks read alpha's).
		const f = "beta/worker.go"
		first, err := callTool[readAnswer](ctx, cs, "read_file", map[string]any{"path": f})
		if err != nil || first.Mode != "full" || !strings.Contains(first.Text, "func Drain") {
			t.Fatalf("first read: %+v %v", first, err)
		}
		again, err := callTool[readAnswer](ctx, cs, "read_file", map[string]any{"path": f})
		if err != nil || again.Mode != "unchanged" || again.Text != "" {
			t.Fatalf("second read: %+v %v", again, err)
		}
		p := filepath.Join(root, f)
		if err := os.WriteFile(p, []byte(strings.Replace(first.Text, "n := len(queue)", "n := len(queue) * 2", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := callTool[readAnswer](ctx, cs, "read_file", map[string]any{"path": f})
		if err != nil || d.Mode != "diff" || !strings.Contains(d.Text, "-\tn := len(queue)\n+\tn := len(queue) * 2\n") || strings.Contains(d.Text, "package beta") {
			t.Fatalf("read after a change: %+v %v", d, err)
		}
		full, err := callTool[readAnswer](ctx, cs, "read_file", map[string]any{"path": f, "force": true})
		if err != nil || full.Mode != "full" || !strings.Contains(full.Text, "* 2") {
			t.Fatalf("forced read: %+v %v", full, err)
		}
		// Another session has read nothing: it gets the file whole.
		other := e.shimIn(t, ctx, root)
		o, err := callTool[readAnswer](ctx, other, "read_file", map[string]any{"path": f})
		if err != nil || o.Mode != "full" {
			t.Fatalf("another session's first read: %+v %v", o, err)
		}
		// The index follows the change too.
		fc, err := callTool[findAnswer](ctx, cs, "find_code", map[string]any{"query": "drain queue", "clue": "beta"})
		if err != nil || fc.Status != "found" || !strings.Contains(fc.Hits[0].Code, "* 2") {
			t.Fatalf("find after a change: %+v %v", fc, err)
		}
	})
}

func TestToolFamilies(t *testing.T) {
	e := servedEnv(t)
	ctx := testenv.Context(t)
	for _, c := range []struct {
		flag, env []string
		want      []string
	}{
		{nil, nil, []string{"digest_output", "find_code", "forget_memory", "mark_outdated", "note", "project_map", "read_file", "recall", "save_memory", "search_memory"}},
		{[]string{"--tools", "memory"}, nil, []string{"forget_memory", "mark_outdated", "save_memory", "search_memory"}},
		{[]string{"--tools", "session,project"}, nil, []string{"digest_output", "find_code", "note", "project_map", "read_file", "recall"}},
		// What `ihmt mcp install --tools` writes; the flag wins over it.
		{nil, []string{"IHMT_TOOLS=session"}, []string{"digest_output", "note", "recall"}},
		{[]string{"--tools", "project"}, []string{"IHMT_TOOLS=session"}, []string{"find_code", "project_map", "read_file"}},
	} {
		cs := e.shimEnv(t, ctx, e.workDir, c.env, c.flag...)
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, c.want) {
			t.Errorf("ihmt-mcp %v (env %v) lists %v, want %v", c.flag, c.env, names, c.want)
		}
	}
	// A bad family stops the shim with a message.
	out, err := exec.Command(bins.Shim, "--tools", "memory,files").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown family "files"`) {
		t.Errorf("--tools memory,files: %v %s", err, out)
	}
}

// TestToolboxBadInput: every bad argument is a tool error that says what
// to do, and changes nothing; each row's positive control passes.
func TestToolboxBadInput(t *testing.T) {
	e := servedEnv(t)
	ctx := testenv.Context(t)
	root, _ := project(t)
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte("\x00\x01\x02binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := e.shimIn(t, ctx, root)
	for _, c := range []struct {
		tool     string
		bad, ok  map[string]any
		saysWhat string
	}{
		{"note", map[string]any{"text": "  \n"}, map[string]any{"text": "a real note"}, "empty"},
		{"note", map[string]any{"text": "bell \a here"}, map[string]any{"text": "no bell here"}, "control character"},
		{"note", map[string]any{"text": strings.Repeat("x", 70<<10)}, map[string]any{"text": strings.Repeat("x", 60<<10)}, "at most"},
		{"recall", map[string]any{"query": "   "}, map[string]any{"query": "real note"}, "no words"},
		{"recall", map[string]any{"query": "note", "limit": 99}, map[string]any{"query": "note", "limit": 5}, "limit"},
		{"digest_output", map[string]any{"text": ""}, map[string]any{"text": "ok\n"}, "empty"},
		{"digest_output", map[string]any{"text": "ok\n", "label": "two\nlines"}, map[string]any{"text": "ok\n", "label": "make"}, "one line"},
		{"project_map", map[string]any{"detail": "everything"}, map[string]any{"detail": "files"}, "use files or symbols"},
		{"project_map", map[string]any{"subpath": "nowhere"}, map[string]any{"subpath": "alpha"}, "does not exist"},
		{"find_code", map[string]any{"query": "drain", "max_tokens": 5}, map[string]any{"query": "drain", "max_tokens": 100}, "max_tokens"},
		{"find_code", map[string]any{"query": "drain", "scope": "unit"}, map[string]any{"query": "drain", "scope": "all"}, "use main, test or all"},
		{"read_file", map[string]any{"path": "alpha"}, map[string]any{"path": "alpha/worker.go"}, "directory"},
		{"read_file", map[string]any{"path": "blob.bin"}, map[string]any{"path": ".gitignore"}, "not UTF-8 text"},
		{"read_file", map[string]any{"path": "missing.go"}, map[string]any{"path": "sub/notes.md"}, "does not exist"},
		{"read_file", map[string]any{"path": ""}, map[string]any{"path": "config/config.go"}, "path"},
	} {
		_, err := callTool[map[string]any](ctx, cs, c.tool, c.bad)
		if te, ok := err.(*toolError); !ok || !strings.Contains(te.text, c.saysWhat) {
			t.Errorf("%s %v: want a tool error saying %q, got %v", c.tool, c.bad, c.saysWhat, err)
		}
		if _, err := callTool[map[string]any](ctx, cs, c.tool, c.ok); err != nil {
			t.Errorf("%s %v (positive control): %v", c.tool, c.ok, err)
		}
	}
}

// TestStopWithAttachedShim: a shim's attach stream does not hold up the
// daemon's stop — the stream ends with the stop, instead of the graceful
// stop waiting its time out for it — and the shim attaches again to the
// next daemon, whose sessions start empty.
func TestStopWithAttachedShim(t *testing.T) {
	e := newEnv(t)
	d := e.startDaemon(t)
	e.waitReady(t, d)
	ctx := testenv.Context(t)
	cs := e.shimIn(t, ctx, e.workDir)
	if _, err := callTool[noteAnswer](ctx, cs, "note", map[string]any{"text": "the ocelot build flag"}); err != nil {
		t.Fatal(err)
	}
	// The shim has attached: the stream is what the stop must not wait for.
	waitFor(t, 5*time.Second, func() (bool, string) {
		r, err := callTool[recallAnswer](ctx, cs, "recall", map[string]any{"query": "ocelot"})
		return err == nil && r.Status == "found", "recall before the stop"
	})
	d.cmd.Process.Signal(syscall.SIGTERM)
	if code, _ := d.waitExit(t, 15*time.Second); code != 0 {
		t.Fatalf("ihmtd exit status %d\n%s", code, d.out)
	}
	if strings.Contains(d.out.String(), "did not finish in time") {
		t.Errorf("the stop waited for the attach stream:\n%s", d.out)
	}
	// Notes live in the daemon: the next one (the shim starts it) has none,
	// and says so.
	r, err := callTool[recallAnswer](ctx, cs, "recall", map[string]any{"query": "ocelot"})
	if err != nil || r.Status != "not_found" || !strings.Contains(r.Message, "no notes") {
		t.Fatalf("recall after a daemon restart: %+v %v", r, err)
	}
	if _, err := callTool[noteAnswer](ctx, cs, "note", map[string]any{"text": "the lynx build flag"}); err != nil {
		t.Fatal(err)
	}
	if r, err := callTool[recallAnswer](ctx, cs, "recall", map[string]any{"query": "lynx"}); err != nil || r.Status != "found" {
		t.Fatalf("a note to the new daemon: %+v %v", r, err)
	}
}

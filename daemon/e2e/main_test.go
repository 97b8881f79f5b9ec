package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/testenv"

	// The binaries under test are built by TestMain, which go test's cache
	// cannot see; importing what they are made of makes a change to any of
	// it rerun these tests instead of replaying a cached pass.
	_ "github.com/ihmt-dev/ihmt/client/cli"
	_ "github.com/ihmt-dev/ihmt/daemon"
	_ "github.com/ihmt-dev/ihmt/shim"
)

// bins are the binaries TestMain built, all in one directory.
var bins testenv.Binaries

// TestMain builds the three binaries once for the whole package. A plain
// build, without -race: the binaries are the system under test, the race
// detector watches the test's own goroutines, and a race-instrumented daemon
// would make the timing figures meaningless.
func TestMain(m *testing.M) {
	// Re-executed as another user by TestOtherUserRefused: dial the daemon
	// directly, with no client-side checks, and report what happened.
	if sock := os.Getenv(rawDialEnv); sock != "" {
		os.Exit(rawHealthCheck(sock))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	dir, err := os.MkdirTemp("", "ihmt-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if bins, err = testenv.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Printf("e2e: built ihmtd, ihmt-mcp and ihmt in %s\n", time.Since(start).Round(10*time.Millisecond))
	}
	return m.Run()
}

// testEnv is one test's world: a store, a socket, and a neutral working
// directory for the child processes.
type testEnv struct {
	t       *testing.T
	root    string // t.TempDir(): store, working directory, scratch
	home    string // IHMT_HOME
	sockDir string // testenv.SocketDir: short, for sun_path
	sock    string // IHMT_SOCKET
	workDir string // outside any git repository
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	root := t.TempDir()
	sockDir := testenv.SocketDir(t)
	e := &testEnv{
		t:       t,
		root:    root,
		home:    filepath.Join(root, "store"),
		sockDir: sockDir,
		sock:    filepath.Join(sockDir, "ihmtd.sock"),
		workDir: filepath.Join(root, "work"),
	}
	if err := os.Mkdir(e.workDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Registered after t.TempDir and SocketDir, so it runs before the
	// store and the socket's directory are removed.
	t.Cleanup(e.killDaemons)
	return e
}

// servedEnv is a test environment whose daemon is started and serving.
func servedEnv(t *testing.T) *testEnv {
	t.Helper()
	e := newEnv(t)
	e.waitReady(t, e.startDaemon(t))
	return e
}

// environ is the environment of a child process: ours without any IHMT_
// variable, then this test's store and socket, the project if given, and
// extra (which wins over anything before it).
func (e *testEnv) environ(project string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IHMT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "IHMT_HOME="+e.home, "IHMT_SOCKET="+e.sock)
	if project != "" {
		env = append(env, "IHMT_PROJECT="+project)
	}
	return append(env, extra...)
}

// ownsArgs reports whether a daemon's command line belongs to this test.
func (e *testEnv) ownsArgs(args []string) bool {
	if len(args) == 0 || filepath.Base(args[0]) != "ihmtd" {
		return false
	}
	for _, a := range args[1:] {
		if a == e.home || a == e.sock || strings.HasPrefix(a, e.sockDir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// liveDaemons returns the pids of the running (not zombie) ihmtd processes
// of this test; ok is false where the process table cannot be read.
func (e *testEnv) liveDaemons() (pids []int, ok bool) {
	return findProcs(e.ownsArgs)
}

// killDaemons SIGKILLs every daemon this test caused to start — the one
// `ihmt status` names and any other whose command line names this test's
// socket or store — and waits until they are gone.
func (e *testEnv) killDaemons() {
	var pids []int
	if st, err := e.tryStatus(); err == nil && st.Pid > 0 {
		pids = append(pids, int(st.Pid))
	}
	if more, ok := e.liveDaemons(); ok {
		pids = append(pids, more...)
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for processAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// --- the CLI ---------------------------------------------------------------

type cliResult struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d after %s\nstdout:\n%s\nstderr:\n%s", r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// ihmt runs the CLI with env and args. It is safe to call from any
// goroutine: a failure to run at all is reported as exit status -1.
func (e *testEnv) ihmt(env []string, args ...string) cliResult {
	return runCmd(bins.CLI, e.workDir, env, nil, args...)
}

func runCmd(bin, dir string, env []string, attr *syscall.SysProcAttr, args ...string) cliResult {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.SysProcAttr = dir, env, attr
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := cliResult{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		r.code = -1
		r.stderr += "\n[test harness: " + err.Error() + "]"
	}
	return r
}

// cliJSON runs a CLI command that must succeed and decodes its JSON.
func (e *testEnv) cliJSON(t *testing.T, v any, env []string, args ...string) {
	t.Helper()
	r := e.ihmt(env, args...)
	if r.code != 0 {
		t.Fatalf("ihmt %s: %s", strings.Join(args, " "), r)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("ihmt %s: decode JSON: %v\n%s", strings.Join(args, " "), err, r)
	}
}

// statusJSON is `ihmt status --json`: a StatsResponse in protojson, which
// writes int64 fields as strings.
type statusJSON struct {
	StorePath  string `json:"store_path"`
	Pid        int64  `json:"pid"`
	IdleExit   bool   `json:"idle_exit"`
	Memories   int64  `json:"memories"`
	LogEntries int64  `json:"log_entries"`
}

// tryStatus asks the daemon on this test's socket for its status, without
// starting one.
func (e *testEnv) tryStatus() (statusJSON, error) {
	r := e.ihmt(e.environ(""), "status", "--json")
	if r.code != 0 {
		return statusJSON{}, fmt.Errorf("ihmt status: %s", r)
	}
	var st statusJSON
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		return statusJSON{}, fmt.Errorf("decode ihmt status --json: %v\n%s", err, r)
	}
	return st, nil
}

// waitReady polls `ihmt status` until a daemon serves on this test's socket,
// failing early if d (when given) exits first.
func (e *testEnv) waitReady(t *testing.T, d *daemonProc) statusJSON {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := e.tryStatus()
		if err == nil {
			if d != nil && st.Pid != int64(d.pid()) {
				t.Fatalf("status names pid %d, want the daemon we started, %d", st.Pid, d.pid())
			}
			return st
		}
		if d != nil && d.exited() {
			t.Fatalf("ihmtd exited before serving: %v\n%s", d.waitErr, d.out)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no daemon serves on %s after 20 s: %v", e.sock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// --- a daemon the test starts itself -----------------------------------------

type daemonProc struct {
	cmd     *exec.Cmd
	out     *testenv.Logs
	done    chan struct{}
	waitErr error
}

// startDaemon runs `ihmtd -data HOME -socket SOCK args...` as our child.
// Cleanup kills it if it is still running.
func (e *testEnv) startDaemon(t *testing.T, args ...string) *daemonProc {
	t.Helper()
	cmd := exec.Command(bins.Daemon, append([]string{"-data", e.home, "-socket", e.sock}, args...)...)
	cmd.Dir, cmd.Env = e.workDir, e.environ("")
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
		select {
		case <-d.done:
		case <-time.After(10 * time.Second):
			t.Errorf("ihmtd pid %d did not exit after SIGKILL", d.pid())
		}
	})
	return d
}

func (d *daemonProc) pid() int { return d.cmd.Process.Pid }

func (d *daemonProc) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// waitExit waits up to timeout for the daemon to exit and returns its exit
// status and how long the wait took.
func (d *daemonProc) waitExit(t *testing.T, timeout time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	select {
	case <-d.done:
	case <-time.After(timeout):
		t.Fatalf("ihmtd pid %d still running after %s\n%s", d.pid(), timeout, d.out)
	}
	return d.cmd.ProcessState.ExitCode(), time.Since(start)
}

// --- shims -------------------------------------------------------------------

type shimOpts struct {
	name     string // the MCP client's name; its version is "1.0"
	path     string // the ihmt-mcp binary; default the one beside ihmtd
	project  string // IHMT_PROJECT
	env      []string
	protocol string // MCP protocol version; default the SDK's latest
}

// connectShim launches ihmt-mcp as an MCP client named o.name would, and
// closes it at cleanup. The returned buffer collects the shim's stderr.
func (e *testEnv) connectShim(t *testing.T, ctx context.Context, o shimOpts) (*mcp.ClientSession, *testenv.Logs) {
	t.Helper()
	cs, stderr, err := e.dialShim(ctx, o)
	if err != nil {
		t.Fatalf("start ihmt-mcp as %s: %v\n%s", o.name, err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

func (e *testEnv) dialShim(ctx context.Context, o shimOpts) (*mcp.ClientSession, *testenv.Logs, error) {
	path := o.path
	if path == "" {
		path = bins.Shim
	}
	cmd := exec.Command(path)
	cmd.Dir, cmd.Env = e.workDir, e.environ(o.project, o.env...)
	stderr := &testenv.Logs{}
	cmd.Stderr = stderr
	var opts *mcp.ClientSessionOptions
	if o.protocol != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: o.protocol}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: o.name, Version: "1.0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, opts)
	return cs, stderr, err
}

// loneShim copies ihmt-mcp alone into an otherwise empty directory and
// returns it with a PATH setting naming only that directory: a shim that
// cannot find (and so cannot start) ihmtd.
func loneShim(t *testing.T) (path, pathEnv string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "ihmt-mcp")
	copyFile(t, bins.Shim, path, 0o755)
	return path, "PATH=" + dir
}

// toolError is a tool call answered with IsError.
type toolError struct{ text string }

func (e *toolError) Error() string { return "tool error: " + e.text }

// callTool calls a tool and decodes its structured content into T. A tool
// error comes back as *toolError.
func callTool[T any](ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (T, error) {
	var out T
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return out, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return out, &toolError{text: resultText(res)}
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return out, fmt.Errorf("%s: structured content: %w", tool, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("%s: decode structured content %s: %w", tool, b, err)
	}
	return out, nil
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// saved is save_memory's structured result (the fields the tests read).
type saved struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Scope   string `json:"scope"`
	Project string `json:"project"`
}

// answer is search_memory's structured result (the fields the tests read).
type answer struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Results []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
		Scope   string `json:"scope"`
		Project string `json:"project"`
		Agent   string `json:"agent"`
		Session string `json:"session"`
	} `json:"results"`
	Candidates []struct {
		ID string `json:"id"`
	} `json:"candidates"`
}

// ids lists every memory an answer names, results and candidates alike.
func (a answer) ids() []string {
	var out []string
	for _, r := range a.Results {
		out = append(out, r.ID)
	}
	for _, c := range a.Candidates {
		out = append(out, c.ID)
	}
	return out
}

func save(ctx context.Context, cs *mcp.ClientSession, content string) (saved, error) {
	return callTool[saved](ctx, cs, "save_memory", map[string]any{"content": content})
}

func search(ctx context.Context, cs *mcp.ClientSession, args map[string]any) (answer, error) {
	return callTool[answer](ctx, cs, "search_memory", args)
}

// memo is a memory a test saved and later expects to find.
type memo struct {
	id, text, query string
}

// findEach searches for every memo through cs, with a few calls in flight at
// once, and returns one message per memo that is not found as the first
// result with exactly its text.
func findEach(ctx context.Context, cs *mcp.ClientSession, memos []memo) []string {
	const workers = 4
	var (
		mu       sync.Mutex
		problems []string
		next     = make(chan memo)
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for m := range next {
				a, err := search(ctx, cs, map[string]any{"query": m.query})
				msg := ""
				switch {
				case err != nil:
					msg = err.Error()
				case a.Status != "found" || len(a.Results) == 0:
					msg = fmt.Sprintf("status %s (%s), candidates %v", a.Status, a.Message, a.ids())
				case a.Results[0].ID != m.id:
					msg = fmt.Sprintf("first result %s %q", a.Results[0].ID, a.Results[0].Content)
				case a.Results[0].Content != m.text:
					msg = fmt.Sprintf("content %q", a.Results[0].Content)
				}
				if msg != "" {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("%s (%q) by query %q: %s", m.id, m.text, m.query, msg))
					mu.Unlock()
				}
			}
		})
	}
	for _, m := range memos {
		next <- m
	}
	close(next)
	wg.Wait()
	return problems
}

// --- the store's files -------------------------------------------------------

// logEntry is one line of log.jsonl.
type logEntry struct {
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Op    string    `json:"op"`
	ID    string    `json:"id"`
	Agent struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"agent"`
	Session string       `json:"session"`
	Project string       `json:"project"`
	Leaf    *leaf.Header `json:"leaf"`
	Text    string       `json:"text"`
}

// storeFiles is what a store directory holds, read straight from disk.
type storeFiles struct {
	leaves map[string]leaf.Leaf // by id
	temps  []string             // leftover temporary files under leaves/
	log    []logEntry
}

// readStore reads every leaf file and the whole log. Anything under leaves/
// that is neither a valid leaf in its right place nor a dot-file left by an
// interrupted atomic write fails the test.
func readStore(t *testing.T, home string) storeFiles {
	t.Helper()
	sf := storeFiles{leaves: map[string]leaf.Leaf{}}
	root := filepath.Join(home, "leaves")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			sf.temps = append(sf.temps, path)
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		l, err := leaf.Parse(data)
		if err != nil {
			t.Errorf("leaf file %s: %v", path, err)
			return nil
		}
		if want := filepath.Join(root, l.ID[:2], l.ID+".txt"); path != want {
			t.Errorf("leaf %s is at %s, want %s", l.ID, path, want)
		}
		if _, dup := sf.leaves[l.ID]; dup {
			t.Errorf("leaf %s twice", l.ID)
		}
		sf.leaves[l.ID] = l
		return nil
	})
	if err != nil {
		t.Fatalf("read leaves: %v", err)
	}
	f, err := os.Open(filepath.Join(home, "log.jsonl"))
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				t.Errorf("log.jsonl ends in a torn line after a clean stop: %q", line)
			}
			break
		}
		if err != nil {
			t.Fatalf("read log: %v", err)
		}
		var le logEntry
		if err := json.Unmarshal(line, &le); err != nil {
			t.Fatalf("log line %d: %v: %s", n, err, line)
		}
		sf.log = append(sf.log, le)
	}
	return sf
}

// checkConsistent checks that the log and the leaf files tell the same
// story: every save in the log once, a leaf for each and no other leaf, in
// sequence, with the same header and text.
func checkConsistent(t *testing.T, sf storeFiles) {
	t.Helper()
	seen := map[string]bool{}
	for i, le := range sf.log {
		if le.Seq != int64(i+1) {
			t.Errorf("log line %d has seq %d", i+1, le.Seq)
		}
		if le.Op != "save" {
			continue
		}
		if seen[le.ID] {
			t.Errorf("log saves %s twice", le.ID)
		}
		seen[le.ID] = true
		l, ok := sf.leaves[le.ID]
		switch {
		case !ok:
			t.Errorf("log entry %d saves %s, but there is no leaf file", le.Seq, le.ID)
		case l.Text != le.Text:
			t.Errorf("leaf %s text %q, log says %q", le.ID, l.Text, le.Text)
		case le.Leaf == nil || l.Checksum != le.Leaf.Checksum || l.Session != le.Session || l.Agent.Name != le.Agent.Name:
			t.Errorf("leaf %s header %+v does not match its log entry %+v", le.ID, l.Header, le)
		}
	}
	for id := range sf.leaves {
		if !seen[id] {
			t.Errorf("leaf %s has no save in the log", id)
		}
	}
}

// --- small things ------------------------------------------------------------

// waitFor polls cond every 10 ms until it reports true or timeout passes;
// the string cond returns describes the state for the failure message.
func waitFor(t *testing.T, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func copyFile(t *testing.T, src, dst string, perm os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, perm); err != nil {
		t.Fatal(err)
	}
}

func isSocket(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().Type() == fs.ModeSocket
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
)

// demoProject is the project both demo agents work in.
const demoProject = "github.com/example/webshop"

// demoStep is one tool call of the tour, as --json reports it.
type demoStep struct {
	Agent  string         `json:"agent"`
	Tool   string         `json:"tool"`
	Args   map[string]any `json:"args"`
	Text   string         `json:"text"`
	Result map[string]any `json:"result"`
	Millis float64        `json:"ms"`
}

// cmdDemo is the one-command tour: a daemon on a throw-away store, two real
// ihmt-mcp processes posing as two agents, a save through one and a search
// through the other.
func cmdDemo(e *env, args []string) error {
	fs, asJSON := e.flags("demo", "")
	keep := fs.Bool("keep", false, "keep the throw-away store and daemon log, and print where they are")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	// With --json, stdout carries only the JSON; the narration goes to stderr.
	say := e.stdout
	if *asJSON {
		say = e.stderr
	}
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Minute)
	defer cancel()
	fmt.Fprint(say, demoPlan)

	tmp, err := os.MkdirTemp("", "ihmt-demo-")
	if err != nil {
		return fmt.Errorf("create a throw-away directory: %w", err)
	}
	if *keep {
		defer fmt.Fprintf(say, "\nkept: store %s, daemon log %s\n", filepath.Join(tmp, "store"), filepath.Join(tmp, "ihmtd.log"))
	} else {
		defer os.RemoveAll(tmp)
	}
	bins, err := demoBinaries(ctx, say, tmp)
	if err != nil {
		return err
	}
	d, err := startDemoDaemon(ctx, say, bins["ihmtd"], tmp)
	if d != nil {
		defer d.stop()
	}
	if err != nil {
		return err
	}
	tour := &demoTour{ctx: ctx, say: say, agents: map[string]*mcp.ClientSession{}}
	defer tour.close()
	if err := tour.launch(bins["ihmt-mcp"], d.sock, d.home); err != nil {
		return err
	}
	ok, err := tour.run()
	if err != nil {
		return err
	}
	return d.report(ctx, e, say, ok, *asJSON, tour.steps)
}

// demoDaemon is the tour's ihmtd, started the way a service manager would.
type demoDaemon struct {
	home, sock string
	cmd        *exec.Cmd
	c          *client.Client
	exited     chan error
	logf       *os.File
}

// startDemoDaemon starts ihmtd on a store in tmp and waits until it serves.
// A daemon it returns, even with an error, is to be stopped.
func startDemoDaemon(ctx context.Context, say io.Writer, bin, tmp string) (*demoDaemon, error) {
	d := &demoDaemon{home: filepath.Join(tmp, "store"), sock: filepath.Join(tmp, "ihmtd.sock"), exited: make(chan error, 1)}
	fmt.Fprintf(say, "1. starting ihmtd on a throw-away store (%s)\n", d.home)
	logf, err := os.Create(filepath.Join(tmp, "ihmtd.log"))
	if err != nil {
		return nil, err
	}
	d.logf = logf
	d.cmd = exec.Command(bin, "-data", d.home, "-socket", d.sock)
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	if err := d.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { d.exited <- d.cmd.Wait() }()
	if d.c, err = client.New(client.Options{Socket: d.sock, StartTimeout: 10 * time.Second}); err != nil {
		return d, err
	}
	if err := waitServing(ctx, d.c, d.exited); err != nil {
		return d, fmt.Errorf("%w (daemon log: %s)", err, logf.Name())
	}
	fmt.Fprintf(say, "   ihmtd pid %d serving on %s\n", d.cmd.Process.Pid, d.sock)
	return d, nil
}

// stop asks the daemon to shut down, and kills it if it will not.
func (d *demoDaemon) stop() {
	if d.c != nil {
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		d.c.Shutdown(sctx)
		select {
		case <-d.exited:
		case <-sctx.Done():
			d.cmd.Process.Kill()
		}
		scancel()
		d.c.Close()
	} else {
		d.cmd.Process.Kill()
		<-d.exited
	}
	d.logf.Close()
}

// report ends the tour with what the daemon holds, and fails it when the
// round trip did not come out as it should.
func (d *demoDaemon) report(ctx context.Context, e *env, say io.Writer, ok, asJSON bool, steps []demoStep) error {
	st, err := d.c.Stats(ctx)
	if err != nil {
		return err
	}
	pid := d.cmd.Process.Pid
	if asJSON {
		if err := e.printJSON(map[string]any{"ok": ok, "daemon_pid": pid, "memories": st.GetMemories(), "log_entries": st.GetLogEntries(), "steps": steps}); err != nil {
			return err
		}
	}
	fmt.Fprintf(say, "\n5. one daemon (pid %d) holds %d memories written by one agent and found by another; its log has %d entries.\n",
		pid, st.GetMemories(), st.GetLogEntries())
	if !ok {
		return errors.New("the round trip did not come out as expected: see the steps above")
	}
	fmt.Fprintln(say, "   Next: `"+goInstall+"`, then register ihmt-mcp with your agents (see README.md).")
	return nil
}

// demoTour is two agents' sessions and the tool calls they make.
type demoTour struct {
	ctx    context.Context
	say    io.Writer
	agents map[string]*mcp.ClientSession
	steps  []demoStep
}

// launch starts two agents, each its own ihmt-mcp process, as Claude Code
// and Codex would launch them.
func (t *demoTour) launch(shim, sock, home string) error {
	for i, name := range []string{"claude-code", "codex"} {
		cmd := exec.Command(shim)
		cmd.Env = append(os.Environ(), "IHMT_SOCKET="+sock, "IHMT_HOME="+home, "IHMT_PROJECT="+demoProject)
		start := time.Now()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "demo"}, nil).Connect(t.ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return fmt.Errorf("start ihmt-mcp as %s: %w", name, err)
		}
		t.agents[name] = cs
		fmt.Fprintf(t.say, "%d. %s launched its own ihmt-mcp (initialized in %s)\n", i+2, name, time.Since(start).Round(100*time.Microsecond))
	}
	return nil
}

// close ends the agents' sessions, the last launched first.
func (t *demoTour) close() {
	for _, name := range []string{"codex", "claude-code"} {
		if cs := t.agents[name]; cs != nil {
			cs.Close()
		}
	}
}

// run is the round trip: claude-code saves two memories; codex finds them,
// misses what was never said, and saving the first again is a duplicate.
// ok says whether it all came out so.
func (t *demoTour) run() (ok bool, err error) {
	fmt.Fprintln(t.say, "\n4. claude-code saves what it learned; codex, another agent, finds it")
	saved, err := t.call("claude-code", "save_memory", map[string]any{
		"content": "2026-11-02 We moved the staging database to PostgreSQL 17 because the order importer needs MERGE … RETURNING.",
	})
	if err != nil {
		return false, err
	}
	if _, err := t.call("claude-code", "save_memory", map[string]any{
		"content": "The user prefers table-driven tests and short commit messages in the imperative mood.", "scope": "global",
	}); err != nil {
		return false, err
	}
	found, err := t.call("codex", "search_memory", map[string]any{"query": "which database does staging run?"})
	if err != nil {
		return false, err
	}
	for _, q := range []string{"how does the user like tests written", "kubernetes ingress controller"} {
		if _, err := t.call("codex", "search_memory", map[string]any{"query": q}); err != nil {
			return false, err
		}
	}
	dup, err := t.call("codex", "save_memory", map[string]any{"content": saved.Args["content"]})
	if err != nil {
		return false, err
	}
	return found.Result["status"] == "found" && dup.Result["status"] == "duplicate" && dup.Result["id"] == saved.Result["id"], nil
}

// call makes one tool call as agent and narrates it.
func (t *demoTour) call(agent, tool string, args map[string]any) (demoStep, error) {
	start := time.Now()
	res, err := t.agents[agent].CallTool(t.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return demoStep{}, fmt.Errorf("%s → %s: %w", agent, tool, err)
	}
	st := demoStep{Agent: agent, Tool: tool, Args: args, Millis: float64(time.Since(start).Microseconds()) / 1000}
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			st.Text += tc.Text
		}
	}
	if res.IsError {
		return st, fmt.Errorf("%s → %s failed: %s", agent, tool, st.Text)
	}
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &st.Result)
	}
	t.steps = append(t.steps, st)
	fmt.Fprintf(t.say, "\n%s → %s %s   (%.1f ms)\n%s\n", agent, tool, compactArgs(args), st.Millis, indent(st.Text))
	return st, nil
}

func waitServing(ctx context.Context, c *client.Client, exited <-chan error) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := c.Ping(ctx)
		if err == nil {
			return nil
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("ihmtd exited before serving: %v", werr)
		default:
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// demoBinaries finds ihmtd and ihmt-mcp: beside this program (an install),
// else built from the source tree the demo runs in (`go run ./client/cmd/ihmt
// demo`), else on PATH.
func demoBinaries(ctx context.Context, say io.Writer, tmp string) (map[string]string, error) {
	names := []string{"ihmtd", "ihmt-mcp"}
	found := func(dir string) map[string]string {
		m := map[string]string{}
		for _, n := range names {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				return nil
			}
			m[n] = p
		}
		return m
	}
	if exe, err := os.Executable(); err == nil {
		if m := found(filepath.Dir(exe)); m != nil {
			return m, nil
		}
	}
	if root := moduleRoot(); root != "" {
		if _, err := exec.LookPath("go"); err == nil {
			bin := filepath.Join(tmp, "bin")
			fmt.Fprintln(say, "0. building ihmtd and ihmt-mcp from source (on a cold cache this takes minutes; then seconds)…")
			start := time.Now()
			cmd := exec.CommandContext(ctx, "go", "build", "-o", bin+string(filepath.Separator), "./daemon/cmd/ihmtd", "./shim/cmd/ihmt-mcp")
			cmd.Dir = root
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := runAlive(cmd, say, demoHeartbeat); err != nil {
				return nil, fmt.Errorf("build the binaries: %v\n%s", err, out.String())
			}
			fmt.Fprintf(say, "   built in %s\n", time.Since(start).Round(100*time.Millisecond))
			return found(bin), nil
		}
	}
	m := map[string]string{}
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			return nil, fmt.Errorf("%s is not beside ihmt nor on PATH: run the demo from the source tree (go run ./client/cmd/ihmt demo) or install with `%s`", n, goInstall)
		}
		m[n] = p
	}
	return m, nil
}

// demoPlan is printed the moment the demo starts, before anything slow.
const demoPlan = `The demo, step by step (about 10 s once the binaries are built):
  0. build ihmtd and ihmt-mcp if they are not beside ihmt
  1. start ihmtd on a throw-away store
  2-3. launch two ihmt-mcp processes, as Claude Code and as Codex would
  4. save through one agent, find through the other, miss what was never said
  5. what the daemon holds; then everything is removed (--keep keeps it)

`

// demoHeartbeat is how often a long build says it is still going.
const demoHeartbeat = 15 * time.Second

// runAlive runs cmd, writing a line to say every so often until it ends,
// so that a cold build of several minutes never looks hung.
func runAlive(cmd *exec.Cmd, say io.Writer, every time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			fmt.Fprintf(say, "   still compiling (%s so far)…\n", time.Since(start).Round(time.Second))
		}
	}
}

// moduleRoot returns the IHMT source tree containing the working directory,
// or "".
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/ihmt-dev/ihmt\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func compactArgs(args map[string]any) string {
	b, _ := json.Marshal(args)
	return string(b)
}

func indent(s string) string {
	return "   " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n   ")
}

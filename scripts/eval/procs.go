package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// world is one run's processes: a real ihmtd on its own store and socket,
// and the real ihmt-mcp shims that talk to it.
type world struct {
	bins    testenv.Binaries
	home    string // IHMT_HOME: the store
	sock    string // IHMT_SOCKET
	work    string // working directories of the shims, one per project
	daemon  *exec.Cmd
	dlog    *testenv.Logs
	dexited chan struct{}

	mu    sync.Mutex
	shims []*shim
}

// startWorld starts ihmtd on home and waits until it serves. The socket
// lives in a short temporary directory (a Unix socket path has a ~104-byte
// limit), removed by stop.
func startWorld(ctx context.Context, bins testenv.Binaries, home, work string) (*world, error) {
	sockDir, err := os.MkdirTemp("", "ihmt-eval")
	if err != nil {
		return nil, err
	}
	w := &world{bins: bins, home: home, sock: filepath.Join(sockDir, "ihmtd.sock"), work: work, dlog: &testenv.Logs{}, dexited: make(chan struct{})}
	w.daemon = exec.Command(bins.Daemon, "-data", home, "-socket", w.sock, "-log-level", "warn")
	w.daemon.Env = w.environ("")
	w.daemon.Stdout, w.daemon.Stderr = w.dlog, w.dlog
	if err := w.daemon.Start(); err != nil {
		os.RemoveAll(sockDir)
		return nil, fmt.Errorf("start ihmtd: %w", err)
	}
	go func() { w.daemon.Wait(); close(w.dexited) }()
	if err := w.waitServing(ctx); err != nil {
		w.stop()
		return nil, err
	}
	return w, nil
}

func (w *world) waitServing(ctx context.Context) error {
	c, err := client.New(client.Options{Socket: w.sock})
	if err != nil {
		return err
	}
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.Ping(pctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-w.dexited:
			return fmt.Errorf("ihmtd exited before serving:\n%s", w.dlog)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ihmtd does not serve on %s after 60 s: %v\n%s", w.sock, err, w.dlog)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop closes every shim, then stops ihmtd with SIGTERM (it drains and
// fsyncs, so a kept store is whole) and removes the socket's directory.
func (w *world) stop() error {
	w.mu.Lock()
	shims := w.shims
	w.shims = nil
	w.mu.Unlock()
	for _, s := range shims {
		s.cs.Close()
	}
	var err error
	w.daemon.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.dexited:
	case <-time.After(30 * time.Second):
		w.daemon.Process.Kill()
		<-w.dexited
		err = errors.New("ihmtd did not stop within 30 s of SIGTERM; killed")
	}
	os.RemoveAll(filepath.Dir(w.sock))
	return err
}

// environ is a child's environment: ours without any IHMT_ variable, then
// this run's store and socket, and the project when given.
func (w *world) environ(project string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IHMT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "IHMT_HOME="+w.home, "IHMT_SOCKET="+w.sock)
	if project != "" {
		env = append(env, "IHMT_PROJECT="+project)
	}
	return env
}

// shim is one ihmt-mcp process, reached with the go-sdk MCP client.
type shim struct {
	name   string
	cs     *mcp.ClientSession
	stderr *testenv.Logs
}

// connect starts ihmt-mcp as the MCP client named agent, in project (via
// IHMT_PROJECT; "" runs it in a directory outside any repository, whose
// own key is then its project, and which its calls do not depend on:
// global saves say scope global, global questions scope all).
func (w *world) connect(ctx context.Context, project, agent string) (*shim, error) {
	cmd := exec.Command(w.bins.Shim)
	cmd.Dir = filepath.Join(w.work, "global")
	if err := os.MkdirAll(cmd.Dir, 0o755); err != nil {
		return nil, err
	}
	cmd.Env = w.environ(project)
	s := &shim{name: fmt.Sprintf("%s in %s", agent, orGlobal(project)), stderr: &testenv.Logs{}}
	cmd.Stderr = s.stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: agent, Version: "1.0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("start ihmt-mcp as %s: %w\n%s", s.name, err, s.stderr)
	}
	s.cs = cs
	w.mu.Lock()
	w.shims = append(w.shims, s)
	w.mu.Unlock()
	return s, nil
}

// connectAll starts a shim for every pair at once (process starts overlap;
// only the saves must keep their order).
func (w *world) connectAll(ctx context.Context, pairs []pair) (map[pair]*shim, error) {
	out := make(map[pair]*shim, len(pairs))
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, p := range pairs {
		wg.Go(func() {
			s, err := w.connect(ctx, p.project, p.agent)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			out[p] = s
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func orGlobal(project string) string {
	if project == "" {
		return "(global)"
	}
	return project
}

// call calls a tool and decodes its structured content into out; a tool
// error is returned with the text the model would read.
func (s *shim) call(ctx context.Context, tool string, args map[string]any, out any) error {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s via %s: %w\n%s", tool, s.name, err, s.stderr)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return fmt.Errorf("%s via %s: tool error: %s", tool, s.name, b.String())
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("%s via %s: structured content: %w", tool, s.name, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s via %s: decode %s: %w", tool, s.name, raw, err)
	}
	return nil
}

// saved is save_memory's structured result (what the run reads of it).
type saved struct {
	ID     string   `json:"id"`
	IDs    []string `json:"ids"`
	Status string   `json:"status"`
}

// answer is search_memory's structured result (what the run reads of it).
type answer struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Results []struct {
		ID string `json:"id"`
	} `json:"results"`
	Candidates []struct {
		ID string `json:"id"`
	} `json:"candidates"`
}

// ranked is what the answer ranks: its results, else its candidates.
func (a answer) ranked() []string {
	var out []string
	for _, r := range a.Results {
		out = append(out, r.ID)
	}
	if len(out) == 0 {
		for _, c := range a.Candidates {
			out = append(out, c.ID)
		}
	}
	return out
}

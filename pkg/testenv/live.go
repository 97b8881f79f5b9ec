package testenv

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
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Live is a real ihmtd on its own store and socket with the real ihmt-mcp
// shims that reach it, each driven by the go-sdk MCP client over stdio, as
// an agent drives it: for the evaluation scripts, which score what an
// agent receives, and which are programs, not tests (so nothing here takes
// a testing.TB).
type Live struct {
	bins    Binaries
	home    string // IHMT_HOME: the store
	sock    string // IHMT_SOCKET
	work    string // the shims' working directory: outside any repository
	daemon  *exec.Cmd
	dlog    *Logs
	dexited chan struct{}

	mu    sync.Mutex
	shims []*LiveShim
}

// StartLive starts ihmtd on the store in home and waits until it serves.
// The shims run in work (made if missing; it should be outside any git
// repository). The socket lives in a short temporary directory (a Unix
// socket path has a ~104-byte limit) that Stop removes. daemonEnv
// ("NAME=value") is added to ihmtd's environment only, after Environ's:
// the evaluation switches retrieval signals off with IHMT_SIGNALS_OFF.
func StartLive(ctx context.Context, bins Binaries, home, work string, daemonEnv ...string) (*Live, error) {
	sockDir, err := os.MkdirTemp("", "ihmt-eval")
	if err != nil {
		return nil, err
	}
	w := &Live{bins: bins, home: home, sock: filepath.Join(sockDir, "ihmtd.sock"), work: work, dlog: &Logs{}, dexited: make(chan struct{})}
	w.daemon = exec.Command(bins.Daemon, "-data", home, "-socket", w.sock, "-log-level", "warn")
	w.daemon.Env = append(w.Environ(""), daemonEnv...)
	w.daemon.Stdout, w.daemon.Stderr = w.dlog, w.dlog
	if err := w.daemon.Start(); err != nil {
		os.RemoveAll(sockDir)
		return nil, fmt.Errorf("start ihmtd: %w", err)
	}
	go func() { w.daemon.Wait(); close(w.dexited) }()
	if err := w.waitServing(ctx); err != nil {
		w.Stop()
		return nil, err
	}
	return w, nil
}

func (w *Live) waitServing(ctx context.Context) error {
	// The health service, not the client package: the client's own tests
	// import this package.
	conn, err := grpc.NewClient("unix://"+w.sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(60 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		resp, err := health.Check(pctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		select {
		case <-w.dexited:
			return fmt.Errorf("ihmtd exited before serving:\n%s", w.dlog)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ihmtd does not serve on %s after 60 s (%v):\n%s", w.sock, err, w.dlog)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop closes every shim, then stops ihmtd with SIGTERM (it drains and
// fsyncs, so the store is whole and may be opened again) and removes the
// socket's directory. A second call does nothing more.
func (w *Live) Stop() error {
	w.mu.Lock()
	shims := w.shims
	w.shims = nil
	w.mu.Unlock()
	for _, s := range shims {
		s.cs.Close()
	}
	select {
	case <-w.dexited:
		os.RemoveAll(filepath.Dir(w.sock))
		return nil
	default:
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

// Environ is a child's environment: ours without any IHMT_ variable, then
// this daemon's store and socket, and IHMT_PROJECT when project is given.
func (w *Live) Environ(project string) []string {
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

// Socket is where the daemon listens.
func (w *Live) Socket() string { return w.sock }

// LiveShim is one ihmt-mcp process, reached with the go-sdk MCP client.
type LiveShim struct {
	name   string
	cs     *mcp.ClientSession
	stderr *Logs
}

// Shim starts ihmt-mcp as the MCP client named agent (its implementation
// name, which the daemon records as the writing agent) in project, set
// through IHMT_PROJECT. With project "" the shim's project is its working
// directory's own key, which a caller that means "no project" makes
// irrelevant: scope global on saves, scope all on searches.
func (w *Live) Shim(ctx context.Context, project, agent string) (*LiveShim, error) {
	cmd := exec.Command(w.bins.Shim)
	cmd.Dir = w.work
	if err := os.MkdirAll(cmd.Dir, 0o755); err != nil {
		return nil, err
	}
	cmd.Env = w.Environ(project)
	s := &LiveShim{name: fmt.Sprintf("%s in %s", agent, orGlobal(project)), stderr: &Logs{}}
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

// ShimKey names a shim: the project it runs in and the agent it runs as.
type ShimKey struct{ Project, Agent string }

// Shims starts a shim for every key at once: process starts overlap, which
// is most of a shim's start-up.
func (w *Live) Shims(ctx context.Context, keys []ShimKey) (map[ShimKey]*LiveShim, error) {
	out := make(map[ShimKey]*LiveShim, len(keys))
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, k := range keys {
		wg.Go(func() {
			s, err := w.Shim(ctx, k.Project, k.Agent)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			out[k] = s
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

// Call calls a tool and decodes its structured content into out; a tool
// error is returned with the text the model would read.
func (s *LiveShim) Call(ctx context.Context, tool string, args map[string]any, out any) error {
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

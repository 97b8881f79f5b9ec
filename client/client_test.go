package client

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// fakeDaemon is a MemoryService that answers Stats with a chosen version
// header and Get with a chosen status code, and records what callers send.
type fakeDaemon struct {
	ihmtv1.UnimplementedMemoryServiceServer
	version string

	mu             sync.Mutex
	callers        []*ihmtv1.Caller
	clientVersions []string
}

func (f *fakeDaemon) record(ctx context.Context, c *ihmtv1.Caller) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.callers = append(f.callers, c)
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		f.clientVersions = append(f.clientVersions, md.Get(version.Header)...)
	}
}

func (f *fakeDaemon) Stats(ctx context.Context, req *ihmtv1.StatsRequest) (*ihmtv1.StatsResponse, error) {
	f.record(ctx, req.GetCaller())
	if err := grpc.SetHeader(ctx, metadata.Pairs(version.Header, f.version)); err != nil {
		return nil, err
	}
	return &ihmtv1.StatsResponse{Version: f.version}, nil
}

// Get answers with the status code whose number is the id.
func (f *fakeDaemon) Get(ctx context.Context, req *ihmtv1.GetRequest) (*ihmtv1.GetResponse, error) {
	f.record(ctx, req.GetCaller())
	n, err := strconv.Atoi(req.GetId())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "fake daemon: id must be a status code")
	}
	if code := codes.Code(n); code != codes.OK {
		return nil, status.Error(code, "the daemon explains "+code.String())
	}
	return &ihmtv1.GetResponse{Memory: &ihmtv1.Memory{Id: req.GetId()}}, nil
}

// startFake serves f on a Unix socket and returns the socket's path.
func startFake(t *testing.T, f *fakeDaemon) string {
	t.Helper()
	sock := testenv.Socket(t)
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	ihmtv1.RegisterMemoryServiceServer(gs, f)
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	return sock
}

func newClient(t *testing.T, opts Options) *Client {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestErrorTranslation: each status code the daemon answers with comes back
// as the matching sentinel (or none), with the daemon's explanation kept.
func TestErrorTranslation(t *testing.T) {
	sock := startFake(t, &fakeDaemon{version: version.Version})
	// A short StartTimeout: Unavailable from a daemon that is listening is
	// retried (it may still be opening its store) until then.
	c := newClient(t, Options{Socket: sock, StartTimeout: 300 * time.Millisecond})
	sentinels := []error{ErrInvalid, ErrNotFound, ErrUnavailable, ErrConflict, ErrPermission, context.Canceled, context.DeadlineExceeded}
	tests := []struct {
		code        codes.Code
		want        error // nil: no sentinel
		keepMessage bool
	}{
		{codes.InvalidArgument, ErrInvalid, true},
		{codes.NotFound, ErrNotFound, true},
		{codes.Unavailable, ErrUnavailable, true},
		{codes.Internal, nil, true},
		{codes.Unknown, nil, true},
		{codes.PermissionDenied, ErrPermission, true},
		{codes.FailedPrecondition, ErrConflict, true},
		{codes.DeadlineExceeded, context.DeadlineExceeded, true},
		{codes.Canceled, context.Canceled, false},
	}
	for _, tt := range tests {
		t.Run(tt.code.String(), func(t *testing.T) {
			_, err := c.Get(testenv.Context(t), &ihmtv1.GetRequest{Id: strconv.Itoa(int(tt.code))})
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range sentinels {
				if got, want := errors.Is(err, s), s == tt.want; got != want {
					t.Errorf("errors.Is(%q, %q) = %v, want %v", err, s, got, want)
				}
			}
			if _, isStatus := status.FromError(err); isStatus && tt.want != nil {
				t.Errorf("error %q still carries a gRPC status: translation should happen once, here", err)
			}
			if msg := "the daemon explains " + tt.code.String(); tt.keepMessage && !strings.Contains(err.Error(), msg) {
				t.Errorf("error %q lost the daemon's message %q", err, msg)
			}
			if tt.want == nil && !strings.Contains(err.Error(), tt.code.String()) {
				t.Errorf("error %q does not name the code %s", err, tt.code)
			}
		})
	}
	if _, err := c.Get(testenv.Context(t), &ihmtv1.GetRequest{Id: "0"}); err != nil {
		t.Errorf("success translated into %v", err)
	}
}

// TestCallerAndVersionSent: the client fills in its default caller and sends
// its version with every call.
func TestCallerAndVersionSent(t *testing.T) {
	f := &fakeDaemon{version: version.Version}
	sock := startFake(t, f)
	def := &ihmtv1.Caller{AgentName: "ihmt-cli", SessionId: "s-default", Project: "github.com/org/repo"}
	c := newClient(t, Options{Socket: sock, Caller: def})
	ctx := testenv.Context(t)
	if _, err := c.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	own := &ihmtv1.Caller{AgentName: "claude-code", SessionId: "s-own"}
	if _, err := c.Get(ctx, &ihmtv1.GetRequest{Caller: own, Id: "0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, &ihmtv1.GetRequest{Id: "0"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.callers) != 3 || f.callers[0].GetSessionId() != "s-default" || f.callers[1].GetSessionId() != "s-own" || f.callers[2].GetSessionId() != "s-default" {
		t.Errorf("callers seen by the daemon = %v, want default, own, default", f.callers)
	}
	if len(f.clientVersions) != 3 {
		t.Fatalf("client versions seen = %q, want one per call", f.clientVersions)
	}
	for _, v := range f.clientVersions {
		if v != version.Version {
			t.Errorf("client sent version %q, want %q", v, version.Version)
		}
	}
	if got := c.DaemonVersion(); got != version.Version {
		t.Errorf("DaemonVersion = %q, want %q", got, version.Version)
	}
	if m := c.VersionMismatch(); m != "" {
		t.Errorf("VersionMismatch with equal versions = %q, want empty", m)
	}
}

func TestVersionMismatch(t *testing.T) {
	// The older side is named as the one to restart: an older daemon is
	// stopped or restarted, an older client's session restarted.
	for _, tc := range []struct {
		daemon string
		want   []string
	}{
		{"0.0.1", []string{"0.0.1", version.Version, "older than this", "ihmt daemon stop", "systemctl --user restart ihmtd"}},
		{"9.9.9", []string{"9.9.9", version.Version, "older than the running ihmtd", "new agent session"}},
		{"not-a-version", []string{"not-a-version", version.Version, "ihmt daemon stop"}},
	} {
		sock := startFake(t, &fakeDaemon{version: tc.daemon})
		c := newClient(t, Options{Socket: sock})
		if m := c.VersionMismatch(); m != "" {
			t.Errorf("VersionMismatch before any call = %q, want empty", m)
		}
		if _, err := c.Stats(testenv.Context(t)); err != nil {
			t.Fatal(err)
		}
		if got := c.DaemonVersion(); got != tc.daemon {
			t.Errorf("DaemonVersion = %q, want %s", got, tc.daemon)
		}
		m := c.VersionMismatch()
		for _, want := range tc.want {
			if !strings.Contains(m, want) {
				t.Errorf("daemon %s: VersionMismatch = %q, want it to mention %q", tc.daemon, m, want)
			}
		}
	}
}

// TestNoDaemonFailsFast: without AutoStart, a missing daemon is reported at
// once, with the command that starts one.
func TestNoDaemonFailsFast(t *testing.T) {
	sock := testenv.Socket(t)
	c := newClient(t, Options{Socket: sock})
	start := time.Now()
	_, err := c.Stats(testenv.Context(t))
	took := time.Since(start)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if took > 2*time.Second {
		t.Errorf("took %v to report a missing daemon, want under 2 s", took)
	}
	for _, want := range []string{"ihmt daemon start", sock} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to mention %q", err, want)
		}
	}
	if err := c.Ping(testenv.Context(t)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Ping = %v, want ErrUnavailable", err)
	}
}

// TestAutoStartMissingBinary: when the daemon to start does not exist, the
// error says which path failed and why, quickly.
func TestAutoStartMissingBinary(t *testing.T) {
	dir := testenv.SocketDir(t)
	bin := filepath.Join(dir, "no-such-dir", "ihmtd")
	c := newClient(t, Options{Socket: filepath.Join(dir, "run", "ihmtd.sock"), AutoStart: true, DaemonPath: bin})
	start := time.Now()
	_, err := c.Stats(testenv.Context(t))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v to fail on a missing binary", took)
	}
	for _, want := range []string{bin, "no such file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to mention %q", err, want)
		}
	}
}

// TestAutoStartDaemonNeverServes: a daemon that starts but never serves
// (here it exits at once, as one that lost the lock race or crashed would)
// is reported as unavailable after StartTimeout, pointing at its log — not as
// a slow answer.
func TestAutoStartDaemonNeverServes(t *testing.T) {
	dir := testenv.SocketDir(t)
	bin := filepath.Join(dir, "fake-ihmtd")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Socket: filepath.Join(dir, "ihmtd.sock"), AutoStart: true, DaemonPath: bin, StartTimeout: 300 * time.Millisecond})
	start := time.Now()
	_, err := c.Stats(testenv.Context(t))
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v with a StartTimeout of 300ms", took)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if log := filepath.Join(dir, "ihmtd.log"); !strings.Contains(err.Error(), log) {
		t.Errorf("err = %q, want it to point at the daemon's log %s", err, log)
	}
}

// TestAutoStartDaemonFails: a daemon that exits with an error instead of
// serving is reported at once, with the line it logged; one that exits
// because another daemon holds the lock (status 3) is not a failure, and
// the client starts another while nothing serves.
func TestAutoStartDaemonFails(t *testing.T) {
	dir := testenv.SocketDir(t)
	broken := filepath.Join(dir, "broken-ihmtd")
	script := "#!/bin/sh\necho 'ihmtd failed: open store: log entry is corrupt' >&2\nexit 1\n"
	if err := os.WriteFile(broken, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Socket: filepath.Join(dir, "ihmtd.sock"), AutoStart: true, DaemonPath: broken, StartTimeout: 5 * time.Second})
	start := time.Now()
	_, err := c.Stats(testenv.Context(t))
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "exited instead of serving") || !strings.Contains(err.Error(), "log entry is corrupt") {
		t.Fatalf("err = %v, want ErrUnavailable quoting the daemon's last log line", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("a daemon that exited took %v to report (StartTimeout 5 s): it should be reported at once", took)
	}

	// Lock held: counted spawns, then the ordinary unavailable error.
	counter := filepath.Join(dir, "spawns")
	loser := filepath.Join(dir, "loser-ihmtd")
	script = "#!/bin/sh\necho x >> " + counter + "\nexit 3\n"
	if err := os.WriteFile(loser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	c = newClient(t, Options{Socket: filepath.Join(dir, "ihmtd.sock"), AutoStart: true, DaemonPath: loser, StartTimeout: time.Second})
	_, err = c.Stats(testenv.Context(t))
	if !errors.Is(err, ErrUnavailable) || strings.Contains(err.Error(), "exited instead of serving") {
		t.Fatalf("err = %v, want the plain unavailable error", err)
	}
	data, _ := os.ReadFile(counter)
	if n := strings.Count(string(data), "x"); n < 2 || n > 3 {
		t.Errorf("spawned %d times after lock-held exits, want 2 or 3", n)
	}
}

// TestAutoStartNoBinaryAnywhere: with no DaemonPath, no ihmtd beside the
// program and none on PATH, the error says how to install one.
func TestAutoStartNoBinaryAnywhere(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := testenv.SocketDir(t)
	c := newClient(t, Options{Socket: filepath.Join(dir, "ihmtd.sock"), AutoStart: true})
	_, err := c.Stats(testenv.Context(t))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"PATH", "go install ./daemon/cmd/ihmtd"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to mention %q", err, want)
		}
	}
}

func TestDefaultSocketFromEnvironment(t *testing.T) {
	sock := filepath.Join(testenv.SocketDir(t), "custom.sock")
	t.Setenv("IHMT_SOCKET", sock)
	c := newClient(t, Options{})
	if c.Socket() != sock {
		t.Errorf("Socket() = %q, want $IHMT_SOCKET %q", c.Socket(), sock)
	}
	t.Setenv("IHMT_SOCKET", "relative.sock")
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "IHMT_SOCKET") {
		t.Errorf("New with a relative IHMT_SOCKET: %v, want an error naming IHMT_SOCKET", err)
	}
}

func TestNewSessionID(t *testing.T) {
	const n = 1000
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ids[i] = NewSessionID() })
	}
	wg.Wait()
	shape := regexp.MustCompile(`^\d{8}T\d{6}-[0-9a-f]{8}$`)
	seen := map[string]bool{}
	for _, id := range ids {
		if !shape.MatchString(id) {
			t.Errorf("session id %q does not look like 20060102T150405-xxxxxxxx", id)
		}
		if seen[id] {
			t.Errorf("session id %q issued twice", id)
		}
		seen[id] = true
	}
}

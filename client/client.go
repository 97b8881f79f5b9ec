// Package client is how every IHMT program talks to the daemon: it finds
// the socket, starts ihmtd when nobody answers, retries while it comes up,
// compares versions, and turns gRPC status codes back into errors a caller
// can test with errors.Is.
//
// The zero configuration works: New(Options{}) resolves the socket the same
// way the daemon does (package paths), so the shim, the CLI and the daemon
// agree even under the stripped environment Codex gives MCP servers.
//
// Creating a client never blocks or dials; the first call does. That keeps
// an MCP server's initialize instant whether or not a daemon is running.
package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Errors a caller can test with errors.Is; each is wrapped with the daemon's
// explanation.
var (
	// ErrInvalid: the daemon refused the request as malformed; nothing changed.
	ErrInvalid = errors.New("invalid request")
	// ErrNotFound: no such memory is visible to the caller.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: no daemon could be reached (or started).
	ErrUnavailable = errors.New("ihmtd unavailable")
	// ErrConflict: the memory's state does not allow the operation
	// (restoring a memory that is not forgotten, say).
	ErrConflict = errors.New("not allowed now")
	// ErrPermission: only the person may do this, not an agent.
	ErrPermission = errors.New("not allowed for agents")
)

// maxResponse bounds one response from the daemon: 50 results of 1 MiB and
// their headers.
const maxResponse = 64 << 20

// DefaultIdleExit is how long a daemon the client started stays up without
// calls. Long enough that a working session never pays for a restart, short
// enough that an unsupervised daemon does not linger for days.
const DefaultIdleExit = 30 * time.Minute

// Options configure a Client. The zero value is ready to use.
type Options struct {
	// Socket is the daemon's socket; empty means paths.Default().
	Socket string
	// Caller is sent with every request when the request carries none.
	Caller *ihmtv1.Caller
	// AutoStart starts ihmtd when no daemon answers.
	AutoStart bool
	// DaemonPath is the ihmtd to start; empty means the one beside this
	// executable, else ihmtd on PATH.
	DaemonPath string
	// IdleExit is passed to a daemon this client starts: 0 means
	// DefaultIdleExit, negative means the daemon never exits when idle.
	IdleExit time.Duration
	// StartTimeout bounds how long a call waits for a daemon to come up;
	// 0 means 5 s.
	StartTimeout time.Duration
	// OpenTimeout bounds how long a call waits for a daemon that is up but
	// still opening a large store; 0 means 45 s (under the 60 s an agent
	// such as Codex gives a tool call).
	OpenTimeout time.Duration
}

// Client is a connection to ihmtd. It is safe for concurrent use.
type Client struct {
	opts   Options
	socket string
	conn   *grpc.ClientConn
	api    ihmtv1.MemoryServiceClient
	health healthpb.HealthClient

	mu            sync.Mutex
	daemonVersion string

	// sessionKey proves, with each session call, that the caller is the
	// one that opened the session: a session id is public (every memory
	// names the session that wrote it), its key never leaves this process.
	sessionKey string
}

// New returns a client for the daemon at opts.Socket. It does not connect.
func New(opts Options) (*Client, error) {
	socket := opts.Socket
	if socket == "" {
		p, err := paths.Default()
		if err != nil {
			return nil, fmt.Errorf("find the daemon's socket: %w", err)
		}
		socket = p.Socket
	}
	if opts.IdleExit == 0 {
		opts.IdleExit = DefaultIdleExit
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 5 * time.Second
	}
	if opts.OpenTimeout == 0 {
		opts.OpenTimeout = 45 * time.Second
	}
	c := &Client{opts: opts, socket: socket, sessionKey: newSessionKey()}
	conn, err := grpc.NewClient("unix://"+socket,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		// Reconnect quickly: the daemon is local, and while it starts a
		// caller is waiting. The default backoff starts at a full second.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}),
		grpc.WithUnaryInterceptor(c.intercept),
		// A search may return up to 50 memories of up to 1 MiB each; the
		// default 4 MiB receive limit would fail it.
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxResponse)),
	)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", socket, err)
	}
	c.conn = conn
	c.api = ihmtv1.NewMemoryServiceClient(conn)
	c.health = healthpb.NewHealthClient(conn)
	return c, nil
}

// Socket returns the socket the client talks to.
func (c *Client) Socket() string { return c.socket }

// Close releases the connection.
func (c *Client) Close() error { return c.conn.Close() }

// DaemonVersion returns the version the daemon reported on the last call,
// or "" before any call succeeded.
func (c *Client) DaemonVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.daemonVersion
}

// VersionMismatch describes a difference between this program's version and
// the daemon's, with what to do about it; "" when they agree or are unknown.
func (c *Client) VersionMismatch() string {
	// The older side is the one to restart, and Skew names it: an upgrade
	// leaves a running daemon or a running agent session behind.
	return version.Skew(filepath.Base(os.Args[0]), version.Version, c.DaemonVersion())
}

// intercept sends our version and records the daemon's.
func (c *Client) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	ctx = metadata.AppendToOutgoingContext(ctx, version.Header, version.Version)
	var hdr metadata.MD
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Header(&hdr))...)
	if v := hdr.Get(version.Header); len(v) > 0 {
		c.mu.Lock()
		c.daemonVersion = v[0]
		c.mu.Unlock()
	}
	return err
}

func (c *Client) caller(in *ihmtv1.Caller) *ihmtv1.Caller {
	if in != nil {
		return in
	}
	return c.opts.Caller
}

// Save stores a memory.
func (c *Client) Save(ctx context.Context, req *ihmtv1.SaveRequest) (*ihmtv1.SaveResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.SaveResponse, error) { return c.api.Save(ctx, req) })
}

// Search ranks memories against a query.
func (c *Client) Search(ctx context.Context, req *ihmtv1.SearchRequest) (*ihmtv1.SearchResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.SearchResponse, error) { return c.api.Search(ctx, req) })
}

// Get returns one memory by id.
func (c *Client) Get(ctx context.Context, req *ihmtv1.GetRequest) (*ihmtv1.GetResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.GetResponse, error) { return c.api.Get(ctx, req) })
}

// Stats describes the daemon and its store.
func (c *Client) Stats(ctx context.Context) (*ihmtv1.StatsResponse, error) {
	req := &ihmtv1.StatsRequest{Caller: c.caller(nil)}
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.StatsResponse, error) { return c.api.Stats(ctx, req) })
}

// Shutdown asks the daemon to stop. It never starts one.
func (c *Client) Shutdown(ctx context.Context) error {
	_, err := c.api.Shutdown(ctx, &ihmtv1.ShutdownRequest{Caller: c.caller(nil)})
	return c.translate(err)
}

// stillOpening reports whether waiting longer may help: a daemon listens
// and says it is not serving yet (it is opening its store), and OpenTimeout
// has not run out since begin.
func (c *Client) stillOpening(ctx context.Context, begin time.Time) bool {
	if time.Since(begin) > c.opts.OpenTimeout || !c.listening() {
		return false
	}
	return c.healthStatus(ctx) == healthpb.HealthCheckResponse_NOT_SERVING
}

// healthStatus asks the daemon's health service, briefly; UNKNOWN when it
// does not answer.
func (c *Client) healthStatus(ctx context.Context) healthpb.HealthCheckResponse_ServingStatus {
	hctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	resp, err := c.health.Check(hctx, &healthpb.HealthCheckRequest{Service: ihmtv1.MemoryService_ServiceDesc.ServiceName})
	if err != nil {
		return healthpb.HealthCheckResponse_UNKNOWN
	}
	return resp.GetStatus()
}

// Ping checks that a daemon answers and is serving, without starting one.
func (c *Client) Ping(ctx context.Context) error {
	resp, err := c.health.Check(ctx, &healthpb.HealthCheckRequest{Service: ihmtv1.MemoryService_ServiceDesc.ServiceName})
	if err != nil {
		return c.translate(err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("%w: ihmtd at %s is %s (still opening its store?)", ErrUnavailable, c.socket, resp.GetStatus())
	}
	return nil
}

// call runs an RPC. When no daemon is there and AutoStart is set, it
// starts one and retries until the daemon serves or StartTimeout passes (or
// OpenTimeout, while a daemon is up but still opening a large store).
// Retrying a save is safe: saving the same text again is answered as a
// duplicate, never stored twice.
func call[T any](ctx context.Context, c *Client, rpc func(context.Context) (T, error)) (T, error) {
	resp, err := rpc(ctx)
	if status.Code(err) != codes.Unavailable {
		return resp, c.translate(err)
	}
	if uid, ok := paths.Owner(c.socket); ok && uid != os.Getuid() {
		// Another user's daemon: it refuses us by peer credentials, so
		// waiting would only delay the same answer.
		return resp, fmt.Errorf("%w: the socket %s belongs to uid %d, not to you (uid %d), and a daemon serves only its own user: set IHMT_SOCKET to a path of your own", ErrUnavailable, c.socket, uid, os.Getuid())
	}
	begin := time.Now()
	deadline := begin.Add(c.opts.StartTimeout)
	var st starter
	for {
		if giveUp, serr := c.ensureListening(&st); giveUp {
			if serr != nil {
				return resp, serr
			}
			return resp, c.translate(err)
		}
		if time.Now().After(deadline) {
			// A daemon that answers but is still opening a large store is
			// worth waiting for, up to OpenTimeout in all.
			if !c.stillOpening(ctx, begin) {
				return resp, c.translate(err)
			}
			deadline = time.Now().Add(time.Second)
		}
		select {
		case <-ctx.Done():
			return resp, c.translate(status.FromContextError(ctx.Err()).Err())
		case <-time.After(25 * time.Millisecond):
		}
		r, aerr := attempt(ctx, c, deadline, rpc)
		if code := status.Code(aerr); code == codes.DeadlineExceeded || code == codes.Canceled {
			if ctx.Err() != nil {
				return r, c.translate(aerr) // the caller gave up
			}
			if c.stillOpening(ctx, begin) {
				// The attempt outlived our own step (a daemon busy opening
				// a large store answers slowly): keep waiting for it.
				deadline = time.Now().Add(time.Second)
				continue
			}
			// Our own wait ran out while the daemon was unavailable: say
			// why it was, which says what to do.
			return resp, c.translate(err)
		}
		resp, err = r, aerr
		if status.Code(err) != codes.Unavailable {
			return resp, c.translate(err)
		}
	}
}

// attempt makes one try of a call that found no daemon serving. While the
// daemon starts or opens, the try may take no longer than the wait
// (deadline); once it serves, a slow call (an import batch, a large ingest)
// gets all the time the caller gave it.
func attempt[T any](ctx context.Context, c *Client, deadline time.Time, rpc func(context.Context) (T, error)) (T, error) {
	if c.healthStatus(ctx) != healthpb.HealthCheckResponse_SERVING {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return rpc(ctx)
}

// maxSpawns bounds how many daemons one call starts, should each lose the
// store's lock to a daemon that stops before serving it.
const maxSpawns = 3

// starter is the daemon one call started, and how many it has started.
type starter struct {
	child  *daemonProc
	spawns int
}

// ensureListening starts a daemon when none listens and AutoStart is set.
// giveUp says the call should end: with err when the daemon could not be
// started or exited instead of serving, without one (the call reports why
// it found no daemon) when AutoStart is off.
func (c *Client) ensureListening(st *starter) (giveUp bool, err error) {
	if c.listening() {
		return false, nil
	}
	if !c.opts.AutoStart {
		return true, nil
	}
	if st.child != nil {
		if done, exit := st.child.exited(); done {
			if !lockHeld(exit) {
				return true, st.child.failure(exit)
			}
			// It lost the lock to a daemon that has stopped since (an idle
			// exit, say): start another.
			st.child = nil
		}
	}
	if st.child == nil && st.spawns < maxSpawns {
		d, err := c.spawn()
		if err != nil {
			return true, err
		}
		st.child, st.spawns = d, st.spawns+1
	}
	return false, nil
}

// listening reports whether something accepts connections on the socket —
// a daemon that may still be opening its store, as opposed to none at all.
func (c *Client) listening() bool { return paths.Listening(c.socket) }

// daemonProc is a daemon this client started.
type daemonProc struct {
	bin, log string
	done     chan struct{}
	err      error // set before done is closed
}

func (d *daemonProc) exited() (done bool, exit error) {
	select {
	case <-d.done:
		return true, d.err
	default:
		return false, nil
	}
}

// failure describes a daemon that exited instead of serving, with the last
// line it logged, which usually says why.
func (d *daemonProc) failure(exit error) error {
	if exit == nil {
		exit = errors.New("exit status 0")
	}
	last := ""
	if data, err := os.ReadFile(d.log); err == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		last = lines[len(lines)-1]
	}
	return fmt.Errorf("%w: %s exited instead of serving (%v): %s (log: %s)", ErrUnavailable, d.bin, exit, last, d.log)
}

// lockHeld reports whether a daemon exited because another owns the store.
func lockHeld(exit error) bool {
	var ee *exec.ExitError
	return errors.As(exit, &ee) && ee.ExitCode() == exitLockHeld
}

// exitLockHeld mirrors daemon.ExitLockHeld, which the client cannot import.
const exitLockHeld = 3

// spawn starts ihmtd in its own session, so it outlives the caller and no
// terminal signal reaches it. Several clients may spawn at once: the store
// lock lets exactly one daemon win, and the others exit at once.
func (c *Client) spawn() (*daemonProc, error) {
	bin, err := c.daemonPath()
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(c.socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: create %s: %v", ErrUnavailable, dir, err)
	}
	// The daemon's log goes beside the socket, so the directory must be
	// private before anything is written there (ihmtd checks it too).
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: the socket directory %s is not private (it must be mode 0700): set IHMT_SOCKET to a path in a directory only you can open", ErrUnavailable, dir)
	}
	d := &daemonProc{bin: bin, log: filepath.Join(dir, "ihmtd.log"), done: make(chan struct{})}
	logf, err := os.OpenFile(d.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: open daemon log %s: %v", ErrUnavailable, d.log, err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, "-socket", c.socket, "-idle-exit", max(c.opts.IdleExit, 0).String())
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: start %s: %v", ErrUnavailable, bin, err)
	}
	// Reap it if it exits while we live, and remember how it ended.
	go func() {
		d.err = cmd.Wait()
		close(d.done)
	}()
	return d, nil
}

func (c *Client) daemonPath() (string, error) {
	if c.opts.DaemonPath != "" {
		return c.opts.DaemonPath, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "ihmtd")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("ihmtd"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: no daemon answers at %s and ihmtd is neither beside this program nor on PATH: install it with `go install ./daemon/cmd/ihmtd` or start a daemon with `ihmt daemon start`", ErrUnavailable, c.socket)
}

// translate turns a gRPC status back into this package's errors — the one
// place on the client side of the wire where that happens.
func (c *Client) translate(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.InvalidArgument:
		return fmt.Errorf("%w: %s", ErrInvalid, st.Message())
	case codes.NotFound:
		return fmt.Errorf("%w: %s", ErrNotFound, st.Message())
	case codes.FailedPrecondition:
		return fmt.Errorf("%w: %s", ErrConflict, st.Message())
	case codes.PermissionDenied:
		return fmt.Errorf("%w: %s", ErrPermission, st.Message())
	case codes.Unavailable:
		// Say what is wrong in the user's terms, not gRPC's.
		why := st.Message()
		if _, err := os.Stat(c.socket); errors.Is(err, os.ErrNotExist) {
			why = "no daemon is running: there is no socket"
		} else if !c.listening() {
			why = "nothing listens on the socket (a daemon that stopped uncleanly?)"
		}
		hint := "start it with `ihmt daemon start`"
		if c.opts.AutoStart {
			hint = "it could not be started in time; see " + filepath.Join(filepath.Dir(c.socket), "ihmtd.log") + " or run `ihmt daemon start`"
		}
		return fmt.Errorf("%w at %s: %s; %s", ErrUnavailable, c.socket, why, hint)
	case codes.DeadlineExceeded:
		return fmt.Errorf("ihmtd did not answer in time: %s: %w", st.Message(), context.DeadlineExceeded)
	case codes.Canceled:
		return context.Canceled
	}
	return fmt.Errorf("ihmtd: %s: %s", st.Code(), st.Message())
}

// NewSessionID returns a fresh session id: the start time, readable in logs
// and leaf headers, plus randomness so parallel sessions never collide.
func NewSessionID() string {
	var b [4]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// Package ui is the page the daemon serves to the person: a loopback web
// page to explore, diagnose and review the memory (`ihmt ui`).
//
// The page has no way into the store of its own. Its API (api.go) turns
// each request into one call of the daemon's gRPC services, over an
// in-process connection to the very server that agents and the CLI call,
// made as the person who asked for the page (the caller `ihmt ui` sent:
// agent "ihmt-cli", their project). Scope rules, the person's rights and
// every validation are therefore the CLI's, by construction, and every
// request the page makes counts as a call for the daemon's idle exit: a page
// left open keeps the daemon up (it asks for its status at least every
// third of the idle exit), and a daemon whose page was closed exits after
// the idle exit as before.
//
// The page is served on 127.0.0.1 only, on a random port unless told one.
// TCP has no peer credentials, so the guard is a random token that changes
// at every start: the URL `ihmt ui` prints carries it, the first load trades
// it for an HttpOnly, SameSite=Strict cookie, and every later request must
// carry that cookie. The Host header must name the loopback address and
// port (a DNS-rebinding page names its own host), a non-GET request and
// every API call must come from the page's own origin, and a strict
// Content-Security-Policy admits only the page's own script and style,
// which insert memory text as text, never as HTML. On Linux a connection
// from a process of another user is also refused before any byte is read
// (peer_linux.go).
//
// The assets (assets/) are plain HTML, CSS and JavaScript written for this
// page, embedded in the binary: no build step, no third-party script, font
// or request.
package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Config is what the page needs from the daemon.
type Config struct {
	// Conn reaches the daemon's own gRPC server (an in-process
	// connection): every API request of the page is a call on it.
	Conn grpc.ClientConnInterface
	// Log receives the page's notices; nil means slog.Default().
	Log *slog.Logger
	// IdleExit is the daemon's idle exit (0: none). The page pings at least
	// every third of it.
	IdleExit time.Duration
	// StartedAt is when the daemon started, for its uptime.
	StartedAt time.Time
}

// Page is the UIService and the HTTP server it starts.
type Page struct {
	ihmtv1.UnimplementedUIServiceServer

	cfg    Config
	caller atomic.Pointer[ihmtv1.Caller] // whom the page acts as

	mu      sync.Mutex
	srv     *http.Server
	port    int
	token   string
	since   time.Time
	closed  bool
	lastReq atomic.Int64 // unix nanos of the page's last request, 0 before any
}

// New returns the page, not yet served.
func New(cfg Config) *Page {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.StartedAt.IsZero() {
		cfg.StartedAt = time.Now()
	}
	return &Page{cfg: cfg}
}

// Serve starts the page, or returns the one served. Each Serve sets the
// caller the page acts as: the person's latest `ihmt ui` says which
// project they are in.
func (p *Page) Serve(ctx context.Context, req *ihmtv1.ServeRequest) (*ihmtv1.ServeResponse, error) {
	c := req.GetCaller()
	if c.GetAgentName() != ihmtv1.PersonAgent {
		return nil, status.Error(codes.PermissionDenied, "the page acts as the person: only `ihmt ui` may start it, not an agent")
	}
	if req.GetPort() < 0 || req.GetPort() > 65535 {
		return nil, status.Errorf(codes.InvalidArgument, "port %d: use 1 to 65535, or 0 for a free one", req.GetPort())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, status.Error(codes.Unavailable, "the daemon is shutting down: retry in a moment")
	}
	started := false
	if p.srv == nil {
		if err := p.listen(int(req.GetPort())); err != nil {
			return nil, err
		}
		started = true
	} else if port := int(req.GetPort()); port != 0 && port != p.port {
		return nil, status.Errorf(codes.FailedPrecondition, "the page is already served on port %d: open that address (`ihmt ui` prints it), or stop the daemon (`ihmt daemon stop`) to serve it on port %d", p.port, port)
	}
	// Only a Serve that stands moves the page to its caller's project.
	p.caller.Store(personCaller(c))
	p.cfg.Log.Info("page served", "address", p.address(), "project", c.GetProject(), "started", started)
	return &ihmtv1.ServeResponse{Url: p.address() + "?token=" + p.token, Port: int32(p.port), Started: started, Project: c.GetProject()}, nil
}

// personCaller is the caller the page acts as: the person's, with a session
// of the page's own (its writes are told apart from the terminal's in the log).
func personCaller(c *ihmtv1.Caller) *ihmtv1.Caller {
	return &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, AgentVersion: c.GetAgentVersion(), SessionId: "ui-" + c.GetSessionId(), Project: c.GetProject()}
}

// listen starts the HTTP server on 127.0.0.1:port with a new token; p.mu is held.
func (p *Page) listen(port int) error {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return status.Errorf(codes.Internal, "make the page's token: %v", err)
	}
	lis, err := listenLoopback(port)
	if err != nil {
		if port != 0 {
			return status.Errorf(codes.FailedPrecondition, "listen on 127.0.0.1:%d: %v: choose another --port, or leave it out for a free one", port, err)
		}
		return status.Errorf(codes.Internal, "listen on 127.0.0.1: %v", err)
	}
	p.token = hex.EncodeToString(b[:])
	p.port = lis.Addr().(*net.TCPAddr).Port
	p.since = time.Now()
	p.srv = &http.Server{
		Handler:           p.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(p.cfg.Log.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := p.srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.cfg.Log.Error("the page stopped serving", "err", err)
		}
	}()
	return nil
}

// address is the page's address without its token; p.mu is held.
func (p *Page) address() string {
	return "http://127.0.0.1:" + strconv.Itoa(p.port) + "/"
}

// Status says whether the page is served.
func (p *Page) Status(ctx context.Context, req *ihmtv1.UIServiceStatusRequest) (*ihmtv1.UIServiceStatusResponse, error) {
	out := &ihmtv1.UIServiceStatusResponse{
		IdleExitSeconds: int64(p.cfg.IdleExit / time.Second),
		UptimeSeconds:   int64(time.Since(p.cfg.StartedAt) / time.Second),
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv == nil {
		return out, nil
	}
	out.Serving, out.Address, out.ServingSince = true, p.address(), timestamppb.New(p.since)
	if n := p.lastReq.Load(); n != 0 {
		out.LastRequest = timestamppb.New(time.Unix(0, n))
	}
	out.Project = p.caller.Load().GetProject()
	return out, nil
}

// Close stops serving the page: requests in flight are cut, since the
// daemon behind them is stopping too. Serve is refused afterwards.
func (p *Page) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.srv == nil {
		return nil
	}
	if err := p.srv.Close(); err != nil {
		return fmt.Errorf("close the page: %w", err)
	}
	return nil
}

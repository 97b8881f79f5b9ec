// Package daemon is ihmtd: the one process that owns a user's memory store.
//
// It serves the MemoryService over gRPC on a Unix socket. Every write goes
// through the store's single ordered writer; any number of agents' shims and
// CLIs may call at once. This file is the daemon's life, top to bottom:
// Run resolves its paths, locks the store, listens, serves, opens the
// store, waits, and stops; a rebuild closes the store and opens it again
// in between. The calls themselves are answered by package rpc, the
// adapter between the store and the API.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/ihmt-dev/ihmt/daemon/rpc"
	"github.com/ihmt-dev/ihmt/pkg/gitsync"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/safesocket"
	"github.com/ihmt-dev/ihmt/pkg/scratch"
	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// ErrLockHeld means another ihmtd already owns the store. It is not a
// failure of the system — the other daemon serves — so a service manager
// should not restart on it: ihmtd exits with ExitLockHeld.
var ErrLockHeld = errors.New("another ihmtd is already running on this store")

// ExitLockHeld is ihmtd's exit status when the store's lock is held. The
// systemd unit lists it in RestartPreventExitStatus.
const ExitLockHeld = 3

// stopTimeout bounds how long in-flight calls may take to finish on stop.
const stopTimeout = 5 * time.Second

// maxRequest bounds one request: an ingested document and the rest of
// its message. gRPC's default limit is smaller than a document may be.
const maxRequest = store.MaxDocument + 4<<20

// Config is what Run needs.
type Config struct {
	// Paths locate the store and the socket.
	Paths paths.Paths
	// IdleExit, when positive, stops the daemon after that long without a
	// call. Set when a client auto-started the daemon; never under a
	// service manager, which expects its daemon to stay.
	IdleExit time.Duration
	// Logger receives the daemon's log; nil means slog.Default().
	Logger *slog.Logger
	// Listener, when set, is served instead of listening on Paths.Socket (a
	// seam for socket activation and tests). Run closes it.
	Listener net.Listener
	// ProfileSocket, when set, is a Unix socket to serve Go's runtime
	// profiles on (profile.go).
	ProfileSocket string
	// SignalsOff names retrieval signals to switch off (recall.Signals), for
	// measuring what each does: ihmtd takes them from IHMT_SIGNALS_OFF.
	SignalsOff []string
}

// daemon is one run of ihmtd.
type daemon struct {
	cfg    Config
	log    *slog.Logger
	store  atomic.Pointer[store.Store] // nil while the store opens
	api    *rpc.Server
	server *grpc.Server
	health *health.Server
	// rebuilding admits one rebuild at a time, and none during the stop.
	rebuilding sync.Mutex
	// stopRequested is signalled by a client's Shutdown call.
	stopRequested chan struct{}
	// sessions are the agents' scratch notes (session.go).
	sessions *scratch.Sessions
	// page is the person's web page, served on demand (page.go).
	page *page
	// syncer is sync over git (sync.go); background is its loop.
	syncer     *gitsync.Syncer
	background sync.WaitGroup
}

// RebuildReport is what a rebuild derived.
type RebuildReport = rpc.RebuildReport

// Run runs the daemon until ctx is cancelled, SIGINT or SIGTERM arrives, a
// client asks it to shut down, or it has been idle for cfg.IdleExit. A stop
// for any of those reasons returns nil.
func Run(ctx context.Context, cfg Config) error {
	d := newDaemon(cfg)
	p := cfg.Paths
	// The store directory is private to the user, and checked before
	// anything touches it: a store another user owns gets no lock file, and
	// the refusal comes before any "listening".
	if err := store.CheckDir(p.Data, d.log); err != nil {
		return err
	}
	unlock, err := lockStore(p, "use it, or stop it with `ihmt daemon stop`")
	if err != nil {
		return err
	}
	defer unlock()

	ctx, stopSignals := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stopSignals()

	lis, err := d.listen()
	if err != nil {
		return err
	}
	if cfg.Listener == nil {
		// The socket goes last, after the store is closed: its absence is
		// how `ihmt daemon stop` knows the daemon is really gone.
		defer os.Remove(p.Socket)
	}
	if cfg.ProfileSocket != "" {
		// Profiles are a person's diagnosis, not the memory: a profile
		// socket that cannot be served is logged, and the daemon serves
		// without it.
		if stopProfiles, err := d.serveProfiles(cfg.ProfileSocket); err != nil {
			d.log.Error("not serving runtime profiles; the memory is served as usual", "err", err)
		} else {
			defer stopProfiles()
			defer os.Remove(cfg.ProfileSocket)
		}
	}
	served := d.serve(lis)
	if err := d.openStore(); err != nil {
		d.server.Stop()
		return err
	}
	syncCtx, stopSync := context.WithCancel(ctx)
	d.startBackgroundSync(syncCtx)
	serveErr := d.wait(ctx, served)
	stopSync()
	d.background.Wait()
	if err := d.stop(); err != nil {
		return err
	}
	if serveErr != nil && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}

// newDaemon resolves cfg's defaults and builds the adapter the daemon will
// serve, over a store not yet open.
func newDaemon(cfg Config) *daemon {
	d := &daemon{cfg: cfg, log: cfg.Logger, stopRequested: make(chan struct{}, 1)}
	if d.log == nil {
		d.log = slog.Default()
	}
	d.sessions = newSessions(d.log)
	d.syncer = gitsync.NewFor(d.store.Load, cfg.Paths.Data)
	d.api = rpc.New(rpc.Config{
		Log:        d.log,
		Store:      d.store.Load,
		StorePath:  cfg.Paths.Data,
		SocketPath: cfg.Paths.Socket,
		IdleExit:   cfg.IdleExit > 0,
		Shutdown:   d.requestStop,
		Rebuild:    d.rebuild,
	})
	return d
}

// lockStore takes the store's lock, held for the whole life of the process:
// only one daemon may own the store. The lock sits next to the data it
// protects. held says what to do when another process holds it.
func lockStore(p paths.Paths, held string) (unlock func(), err error) {
	lock := flock.New(p.LockFile(), flock.SetPermissions(0o600))
	locked, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p.LockFile(), err)
	}
	if !locked {
		return nil, fmt.Errorf("%w (lock %s): %s", ErrLockHeld, p.LockFile(), held)
	}
	return func() { lock.Unlock() }, nil
}

// listen listens on the socket — first, so that clients can connect while
// the store loads. safesocket makes the runtime directory 0700, removes a
// stale socket (safe: we hold the lock, so no live daemon of this store
// owns it), listens, and chmods the socket 0600.
func (d *daemon) listen() (net.Listener, error) {
	if d.cfg.Listener != nil {
		return d.cfg.Listener, nil
	}
	sock := d.cfg.Paths.Socket
	lis, err := safesocket.Listen(sock, func(uid int, err error) {
		d.log.Warn("refused a connection from another user", "uid", uid, "err", err)
	})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", sock, err)
	}
	return lis, nil
}

// serve registers the API, the health service (NOT_SERVING until the store
// is open) and reflection, and serves lis until the stop. The returned
// channel receives why serving ended.
func (d *daemon) serve(lis net.Listener) <-chan error {
	d.server = grpc.NewServer(grpc.UnaryInterceptor(d.api.Intercept), grpc.MaxRecvMsgSize(maxRequest))
	ihmtv1.RegisterMemoryServiceServer(d.server, d.api)
	d.registerToolbox(d.server)
	ihmtv1.RegisterContextServiceServer(d.server, d.api.Context(d.contextSettings))
	ihmtv1.RegisterSyncServiceServer(d.server, d.api.Sync(d.syncer, d.syncInterval))
	d.health = health.NewServer()
	d.setServing(false)
	healthpb.RegisterHealthServer(d.server, d.health)
	reflection.Register(d.server)
	d.registerPage(d.server)

	served := make(chan error, 1)
	go func() { served <- d.server.Serve(lis) }()
	p := d.cfg.Paths
	d.log.Info("ihmtd listening", "version", version.Version, "socket", p.Socket, "store", p.Data, "pid", os.Getpid(), "idle_exit", d.cfg.IdleExit)
	return served
}

// setServing sets the health status of the server and of the API.
func (d *daemon) setServing(serving bool) {
	status := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		status = healthpb.HealthCheckResponse_SERVING
	}
	d.health.SetServingStatus("", status)
	d.health.SetServingStatus(ihmtv1.MemoryService_ServiceDesc.ServiceName, status)
}

// openStore opens the store, serves it, and tells systemd the daemon is
// ready.
func (d *daemon) openStore() error {
	st, err := openStoreIn(d.cfg.Paths.Data, d.log, d.cfg.SignalsOff)
	if err != nil {
		return err
	}
	d.store.Store(st)
	d.setServing(true)
	if err := sdNotify("READY=1"); err != nil {
		d.log.Warn("could not tell systemd the daemon is ready", "err", err)
	}
	// Opening reads, decodes and indexes every leaf once: it leaves about
	// as much garbage as the store keeps, which the runtime would otherwise
	// hold on to until the heap grew that far again. It goes back now, off
	// the serving path: a full collection of a large store is not free.
	go func() {
		debug.FreeOSMemory()
		switch limit, ok := setMemoryLimit(); {
		case ok && limit > 0:
			d.log.Info("soft memory limit set", "limit_mib", limit>>20)
		case ok:
			d.log.Info("no soft memory limit: the store needs more room than the target leaves; Go's defaults apply", "target_mib", memoryTarget>>20)
		}
	}()
	return nil
}

// requestStop asks the wait to end; asking twice is asking once.
func (d *daemon) requestStop() {
	select {
	case d.stopRequested <- struct{}{}:
	default:
	}
}

// wait serves until a reason to stop: ctx (a signal), a client's Shutdown,
// idleness, or the server failing, which it returns. Meanwhile it keeps
// the memory in check.
func (d *daemon) wait(ctx context.Context, served <-chan error) error {
	memory := time.NewTicker(memoryCheck)
	defer memory.Stop()
	var idle <-chan time.Time
	if exit := d.cfg.IdleExit; exit > 0 {
		t := time.NewTicker(min(max(exit/10, 10*time.Millisecond), time.Minute))
		defer t.Stop()
		idle = t.C
	}
	for {
		select {
		case <-ctx.Done():
			d.log.Info("stopping", "reason", context.Cause(ctx))
			return nil
		case <-d.stopRequested:
			d.log.Info("stopping", "reason", "shutdown requested")
			return nil
		case now := <-idle:
			// A session's notes live only here: while one holds any, the
			// daemon stays (each session goes after its grace or TTL).
			if quiet := d.api.IdleFor(now); quiet >= d.cfg.IdleExit && !d.sessions.Held() {
				d.log.Info("stopping", "reason", "idle", "idle_for", quiet.Round(time.Second))
				return nil
			}
		case err := <-served:
			d.log.Error("gRPC server stopped", "err", err)
			return err
		case now := <-memory.C:
			setMemoryLimit() // the store may have grown
			if d.api.IdleFor(now) >= memoryIdle {
				releaseIdleMemory()
			}
		}
	}
}

// stop refuses new calls, lets in-flight ones finish (bounded), then
// closes the store, which drains accepted writes, writes out pending leaf
// files and syncs the log. Run removes the socket and unlocks after that.
func (d *daemon) stop() error {
	sdNotify("STOPPING=1") // best effort: systemd learns of the stop from our exit anyway
	d.health.Shutdown()
	d.sessions.Close() // ends the attached streams, which a graceful stop would wait for
	d.closePage()      // its requests would only find the daemon stopping
	done := make(chan struct{})
	go func() { d.server.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopTimeout):
		d.log.Warn("in-flight calls did not finish in time; stopping anyway", "timeout", stopTimeout)
		d.server.Stop()
	}
	// A rebuild in progress finishes first: the store it opens is the one
	// to close.
	d.rebuilding.Lock()
	defer d.rebuilding.Unlock()
	if st := d.store.Load(); st != nil {
		if err := st.Close(); err != nil {
			return fmt.Errorf("close store: %w", err)
		}
	}
	d.log.Info("stopped")
	return nil
}

// rebuild closes the store and opens it again without its derived files
// (the facts snapshot and the summary tree), which re-derives the index,
// the fact timelines and the tree from the leaf files. Meanwhile the
// health service says NOT_SERVING and calls answer "still opening", so
// clients wait instead of failing.
func (d *daemon) rebuild(ctx context.Context, c store.Caller) (RebuildReport, error) {
	d.rebuilding.Lock()
	defer d.rebuilding.Unlock()
	old := d.store.Swap(nil)
	if old == nil {
		return RebuildReport{}, rpc.ErrOpening
	}
	start := time.Now()
	d.setServing(false)
	d.log.Info("rebuild: closing the store", "agent", c.Agent.Name)
	if err := old.Close(); err != nil {
		d.log.Error("rebuild: closing the store failed", "err", err)
	}
	if err := store.DropSnapshots(d.cfg.Paths.Data); err != nil {
		d.log.Warn("rebuild: could not remove the derived snapshot", "err", err)
	}
	st, err := openStoreIn(d.cfg.Paths.Data, d.log, d.cfg.SignalsOff)
	if err != nil {
		// It would not open at a start either: stop, so that the next start
		// reports why, rather than serve nothing.
		d.log.Error("rebuild: the store does not open; stopping", "err", err)
		d.requestStop()
		return RebuildReport{}, fmt.Errorf("rebuild: %w", err)
	}
	d.store.Store(st)
	d.setServing(true)
	// Searches are served again (through the index); the tree is rebuilt
	// in the background, and this waits for it.
	r, err := derived(ctx, st)
	if err != nil {
		return RebuildReport{}, fmt.Errorf("rebuild: the summary tree: %w", err)
	}
	r.Took = time.Since(start)
	d.log.Info("rebuild: done", "memories", r.Memories, "facts", r.Facts, "branches", r.Tree.Branches, "took", r.Took.Round(time.Millisecond))
	return r, nil
}

// openStoreIn opens the store in dir with its settings. The settings live in
// the store directory: it is checked before they are read.
func openStoreIn(dir string, log *slog.Logger, signalsOff []string) (*store.Store, error) {
	if err := store.CheckDir(dir, log); err != nil {
		return nil, err
	}
	opts, err := storeOptions(dir, log)
	if err != nil {
		return nil, err
	}
	opts.Logger = log
	opts.SignalsOff = signalsOff
	if len(signalsOff) > 0 {
		log.Warn("retrieval signals switched off, for measuring: answers differ from a normal daemon's", "off", signalsOff)
	}
	if t := opts.Lexicon.Translations(); t != nil {
		log.Info("FreeDict translations join queries", "files", t.Files, "headwords", t.Headwords)
	} else {
		log.Info("FreeDict not installed: queries use the built-in glossary and synonyms")
	}
	defer collectOftenWhileOpening()()
	st, err := store.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	return st, nil
}

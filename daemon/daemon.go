// Package daemon is ihmtd: the one process that owns a user's memory store.
//
// It serves the MemoryService over gRPC on a Unix socket. Every write goes
// through the store's single ordered writer; any number of agents' shims and
// CLIs may call at once. Run reads top to bottom as the daemon's life:
// resolve paths, lock the store, listen, serve, open the store, wait, stop.
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
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/safesocket"
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
}

// Run runs the daemon until ctx is cancelled, SIGINT or SIGTERM arrives, a
// client asks it to shut down, or it has been idle for cfg.IdleExit. A stop
// for any of those reasons returns nil.
func Run(ctx context.Context, cfg Config) error {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	p := cfg.Paths

	// The store directory is private to the user.
	if err := os.MkdirAll(p.Data, 0o700); err != nil {
		return fmt.Errorf("create store directory: %w", err)
	}

	// Only one daemon may own the store. The lock sits next to the data it
	// protects and is held for the whole life of the process.
	lock := flock.New(p.LockFile(), flock.SetPermissions(0o600))
	locked, err := lock.TryLock()
	if err != nil {
		return fmt.Errorf("lock %s: %w", p.LockFile(), err)
	}
	if !locked {
		return fmt.Errorf("%w (lock %s): use it, or stop it with `ihmt daemon stop`", ErrLockHeld, p.LockFile())
	}
	defer lock.Unlock()

	ctx, stopSignals := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stopSignals()

	// Listen first, so clients can connect while the store loads. Holding
	// the lock makes removing a stale socket safe: no live daemon owns it.
	lis := cfg.Listener
	if lis == nil {
		lis, err = safesocket.Listen(p.Socket, func(uid int, err error) {
			log.Warn("refused a connection from another user", "uid", uid, "err", err)
		})
		if err != nil {
			return fmt.Errorf("listen on %s: %w", p.Socket, err)
		}
		// The socket goes last, after the store is closed: its absence is how
		// `ihmt daemon stop` knows the daemon is really gone. (Deferred after
		// the unlock above, so it runs before it.)
		defer os.Remove(p.Socket)
	}

	stopRequested := make(chan struct{}, 1)
	svc := &service{
		log: log,
		shutdown: func() {
			select {
			case stopRequested <- struct{}{}:
			default:
			}
		},
		info: &ihmtv1.StatsResponse{
			Version:    version.Version,
			StorePath:  p.Data,
			SocketPath: p.Socket,
			Pid:        int64(os.Getpid()),
			StartedAt:  timestamppb.Now(),
			IdleExit:   cfg.IdleExit > 0,
		},
	}
	svc.lastCall.Store(time.Now().UnixNano())

	// Ingest carries documents of up to 16 MiB; the default limit is 4 MiB.
	gs := grpc.NewServer(grpc.UnaryInterceptor(svc.intercept), grpc.MaxRecvMsgSize(20<<20))
	ihmtv1.RegisterMemoryServiceServer(gs, svc)
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	hs.SetServingStatus(ihmtv1.MemoryService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(gs, hs)
	reflection.Register(gs)

	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	log.Info("ihmtd listening", "version", version.Version, "socket", p.Socket, "store", p.Data, "pid", os.Getpid(), "idle_exit", cfg.IdleExit)

	svc.openStore = func() (*store.Store, error) { return openStoreIn(p.Data, log) }
	svc.setServing = func(serving bool) {
		status := healthpb.HealthCheckResponse_NOT_SERVING
		if serving {
			status = healthpb.HealthCheckResponse_SERVING
		}
		hs.SetServingStatus("", status)
		hs.SetServingStatus(ihmtv1.MemoryService_ServiceDesc.ServiceName, status)
	}
	st, err := svc.openStore()
	if err != nil {
		gs.Stop()
		return err
	}
	svc.store.Store(st)
	svc.setServing(true)
	if err := sdNotify("READY=1"); err != nil {
		log.Warn("could not tell systemd the daemon is ready", "err", err)
	}
	// Opening reads, decodes and indexes every leaf once: it leaves about
	// as much garbage as the store keeps, which the runtime would otherwise
	// hold on to until the heap grew that far again. It goes back now, off
	// the serving path (a full collection of a large store takes a few
	// hundred ms of CPU).
	go func() {
		debug.FreeOSMemory()
		switch limit, ok := setMemoryLimit(); {
		case ok && limit > 0:
			log.Info("soft memory limit set", "limit_mib", limit>>20)
		case ok:
			log.Info("no soft memory limit: the store needs more room than the target leaves; Go's defaults apply", "target_mib", memoryTarget>>20)
		}
	}()
	memory := time.NewTicker(memoryCheck)
	defer memory.Stop()

	var idle <-chan time.Time
	if cfg.IdleExit > 0 {
		t := time.NewTicker(min(max(cfg.IdleExit/10, 10*time.Millisecond), time.Minute))
		defer t.Stop()
		idle = t.C
	}
	var serveErr error
wait:
	for {
		select {
		case <-ctx.Done():
			log.Info("stopping", "reason", context.Cause(ctx))
			break wait
		case <-stopRequested:
			log.Info("stopping", "reason", "shutdown requested")
			break wait
		case now := <-idle:
			if d := svc.idleFor(now); d >= cfg.IdleExit {
				log.Info("stopping", "reason", "idle", "idle_for", d.Round(time.Second))
				break wait
			}
		case serveErr = <-served:
			log.Error("gRPC server stopped", "err", serveErr)
			break wait
		case now := <-memory.C:
			setMemoryLimit() // the store may have grown
			if svc.idleFor(now) >= memoryIdle {
				releaseIdleMemory()
			}
		}
	}

	sdNotify("STOPPING=1") // best effort: systemd learns of the stop from our exit anyway
	// Stop: refuse new calls, let in-flight ones finish (bounded), then
	// close the store, which drains accepted writes, writes out pending leaf
	// files and syncs the log; the socket is removed after that.
	hs.Shutdown()
	done := make(chan struct{})
	go func() { gs.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopTimeout):
		log.Warn("in-flight calls did not finish in time; stopping anyway", "timeout", stopTimeout)
		gs.Stop()
	}
	// A rebuild in progress finishes first: the store it opens is the one
	// to close.
	svc.rebuilding.Lock()
	defer svc.rebuilding.Unlock()
	if st := svc.store.Load(); st != nil {
		if err := st.Close(); err != nil {
			return fmt.Errorf("close store: %w", err)
		}
	}
	log.Info("stopped")
	if serveErr != nil && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}

// openStoreIn opens the store in dir with its settings. The settings live in
// the store directory: it is checked before they are read.
func openStoreIn(dir string, log *slog.Logger) (*store.Store, error) {
	if err := store.CheckDir(dir, log); err != nil {
		return nil, err
	}
	opts, err := storeOptions(dir)
	if err != nil {
		return nil, err
	}
	opts.Logger = log
	defer collectOftenWhileOpening()()
	st, err := store.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	return st, nil
}

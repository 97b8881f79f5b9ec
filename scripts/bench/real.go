package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// realDaemon is an ihmtd process the bench started: the comparison, the
// scale run and the restart phase measure the daemon as users run it.
type realDaemon struct {
	p       paths.Paths
	bin     string // the directory of the binary
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process has exited, waitErr says how
	waitErr error
	open    time.Duration // from exec until the health service said SERVING
}

// startReal runs the ihmtd in binDir on the store at p and waits until it
// serves; the time that took is its open time.
func startReal(ctx context.Context, binDir string, p paths.Paths) (*realDaemon, error) {
	cmd := exec.Command(filepath.Join(binDir, "ihmtd"), "-data", p.Data, "-socket", p.Socket, "-log-level", "warn")
	cmd.Stderr = os.Stderr
	d := &realDaemon{p: p, bin: binDir, cmd: cmd, exited: make(chan struct{})}
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	go func() { d.waitErr = cmd.Wait(); close(d.exited) }()
	if err := waitServing(ctx, p.Socket, d.exited, func() error { return d.waitErr }, 10*time.Minute); err != nil {
		d.kill()
		return nil, err
	}
	d.open = time.Since(t)
	return d, nil
}

func (d *realDaemon) pid() int { return d.cmd.Process.Pid }

// rss reads the daemon's resident size and its peak, in MiB.
func (d *realDaemon) rss() (now, peak float64) {
	if v, ok := procStatus(d.pid(), "VmRSS"); ok {
		now = mib(v)
	}
	if v, ok := procStatus(d.pid(), "VmHWM"); ok {
		peak = mib(v)
	}
	return now, peak
}

// stop sends SIGTERM and waits for the exit; it returns how long that took.
func (d *realDaemon) stop() (time.Duration, error) {
	t := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
		if d.waitErr != nil {
			return time.Since(t), fmt.Errorf("ihmtd exit: %w", d.waitErr)
		}
		return time.Since(t), nil
	case <-time.After(60 * time.Second):
		d.kill()
		return time.Since(t), errors.New("ihmtd did not exit within 60 s of SIGTERM; killed")
	}
}

// kill ends the process if it still runs (a deferred clean-up).
func (d *realDaemon) kill() {
	select {
	case <-d.exited:
	default:
		d.cmd.Process.Kill()
		<-d.exited
	}
}

// freshPaths names a new store and its socket for one measurement.
func (b *bench) freshPaths(name string) paths.Paths {
	return paths.Paths{Data: filepath.Join(b.tmp, name), Socket: filepath.Join(b.sock, name+".sock")}
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/version"
)

func cmdStatus(e *env, args []string) error {
	fs, asJSON := e.flags("status", "")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	c, err := e.client(false)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(e.ctx, 3*time.Second)
	defer cancel()
	st, err := c.Stats(ctx)
	if err != nil {
		if *asJSON && errors.Is(err, client.ErrUnavailable) {
			e.printJSON(map[string]any{"running": false, "socket": c.Socket(), "error": err.Error()})
		}
		return err
	}
	if *asJSON {
		return e.printProto(st)
	}
	fmt.Fprintf(e.stdout, "ihmtd %s running (pid %d, since %s)\n", st.GetVersion(), st.GetPid(), client.FormatTime(st.GetStartedAt().AsTime()))
	fmt.Fprintf(e.stdout, "  store:    %s\n  socket:   %s\n", st.GetStorePath(), st.GetSocketPath())
	fmt.Fprintf(e.stdout, "  memories: %d (%d global, %d in this project, %d projects)\n", st.GetMemories(), st.GetGlobalMemories(), st.GetProjectMemories(), st.GetProjects())
	fmt.Fprintf(e.stdout, "  log:      %d entries\n", st.GetLogEntries())
	if t := st.GetTree(); t.GetReady() {
		fmt.Fprintf(e.stdout, "  tree:     %d branches over %d layers, %d memories not yet under a branch\n", t.GetBranches(), t.GetLayers(), t.GetPending())
	} else {
		fmt.Fprintln(e.stdout, "  tree:     catching up with the store")
	}
	if st.GetIdleExit() {
		fmt.Fprintln(e.stdout, "  started on demand: exits when idle")
	}
	if st.GetStorePath() != "" {
		fmt.Fprint(e.stdout, lexiconWarning(st.GetStorePath()))
	}
	if st.GetVersion() != version.Version {
		fmt.Fprintf(e.stdout, "  warning: %s\n", c.VersionMismatch())
	}
	return nil
}

func cmdDaemon(e *env, args []string) error {
	sub, args, err := subcommand("daemon", args)
	if err != nil {
		return err
	}
	fs, asJSON := e.flags("daemon "+sub, "")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	// A daemon a person starts explicitly stays until stopped; only one an
	// agent starts on demand exits when idle.
	caller, err := e.caller()
	if err != nil {
		return err
	}
	c, err := client.New(client.Options{Socket: e.socket, Caller: caller, AutoStart: sub == "start", IdleExit: -1})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	report := func(running bool, msg string) error {
		if *asJSON {
			return e.printJSON(map[string]any{"running": running, "socket": c.Socket(), "message": msg})
		}
		fmt.Fprintln(e.stdout, msg)
		return nil
	}
	switch sub {
	case "start":
		return daemonStart(ctx, c, report)
	case "stop":
		return daemonStop(ctx, c, report)
	case "status":
		if err := c.Ping(ctx); err != nil {
			if err := report(false, "ihmtd is not running at "+c.Socket()+" (start it with `ihmt daemon start`)"); err != nil {
				return err
			}
			return errReported
		}
		return report(true, "ihmtd is running at "+c.Socket())
	}
	return usageError{fmt.Sprintf("unknown daemon command %q: say start, stop or status", sub)}
}

// daemonStart starts ihmtd unless one is running, and waits for it to
// serve.
func daemonStart(ctx context.Context, c *client.Client, report func(running bool, msg string) error) error {
	if c.Ping(ctx) == nil {
		return report(true, "ihmtd is already running at "+c.Socket())
	}
	st, err := c.Stats(ctx) // starts the daemon and waits for it to serve
	if err != nil {
		return err
	}
	return report(true, fmt.Sprintf("ihmtd %s started (pid %d) at %s, store %s", st.GetVersion(), st.GetPid(), c.Socket(), st.GetStorePath()))
}

// daemonStop asks a running ihmtd to stop, and waits until it has.
func daemonStop(ctx context.Context, c *client.Client, report func(running bool, msg string) error) error {
	if err := c.Ping(ctx); err != nil {
		return report(false, "ihmtd is not running at "+c.Socket())
	}
	if err := c.Shutdown(ctx); err != nil {
		return err
	}
	// The daemon removes its socket as its last act of stopping.
	for {
		if _, err := os.Stat(c.Socket()); errors.Is(err, os.ErrNotExist) {
			return report(false, "ihmtd stopped")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ihmtd did not stop within 10 s: look at its log, or kill it")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// cmdSync is `ihmt sync` (sync now), `ihmt sync init REMOTE` and `ihmt sync
// status`: one memory across a person's machines, over a git remote.
func cmdSync(e *env, args []string) error {
	fs, asJSON := e.flags("sync", "[init REMOTE | status]")
	device := fs.String("device", "", "init: this machine's device id (default: from the host name)")
	offline := fs.Bool("offline", false, "status: do not read the remote")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return call(e, *asJSON, func(c *client.Client) (*ihmtv1.SyncResponse, error) {
			return c.Sync(e.ctx, &ihmtv1.SyncRequest{})
		}, func(resp *ihmtv1.SyncResponse) error { return e.printSyncReport(resp.GetReport()) })
	case pos[0] == "init" && len(pos) == 2:
		remote, err := absRemote(pos[1])
		if err != nil {
			return err
		}
		return call(e, *asJSON, func(c *client.Client) (*ihmtv1.SyncServiceInitResponse, error) {
			return c.SyncInit(e.ctx, &ihmtv1.SyncServiceInitRequest{Remote: remote, Device: *device})
		}, func(resp *ihmtv1.SyncServiceInitResponse) error {
			st := resp.GetStatus()
			fmt.Fprintf(e.stdout, "sync is set up: this machine is device %s, syncing with %s through %s\n", st.GetDevice(), st.GetRemote(), st.GetDir())
			fmt.Fprintln(e.stdout, "run `ihmt sync` now and on your other machines (or set [sync] interval in config.toml); keep the remote private: it holds your memories' text")
			return nil
		})
	case pos[0] == "status" && len(pos) == 1:
		return call(e, *asJSON, func(c *client.Client) (*ihmtv1.SyncServiceStatusResponse, error) {
			return c.SyncStatus(e.ctx, &ihmtv1.SyncServiceStatusRequest{Fetch: !*offline})
		}, func(resp *ihmtv1.SyncServiceStatusResponse) error { return e.printSyncStatus(resp.GetStatus()) })
	}
	return usageError{"use: ihmt sync | ihmt sync init REMOTE [--device NAME] | ihmt sync status [--offline]"}
}

// absRemote makes a remote that is a local path absolute: the daemon runs
// git in its own directory, not in this one. URLs (scheme://…) and ssh's
// host:path form are left as they are.
func absRemote(r string) (string, error) {
	if strings.Contains(r, "://") {
		return r, nil
	}
	if i := strings.Index(r, ":"); i >= 0 && !strings.Contains(r[:i], "/") {
		return r, nil // host:path
	}
	abs, err := filepath.Abs(r)
	if err != nil {
		return "", fmt.Errorf("remote %s: %w", r, err)
	}
	return abs, nil
}

func (e *env) printSyncReport(r *ihmtv1.SyncReport) error {
	fmt.Fprintf(e.stdout, "synced %s with %s in %.1f s: sent %d, received %d (%d stored or changed, %d already here, %d purged, %d held for review)\n",
		r.GetDevice(), r.GetRemote(), float64(r.GetTookMs())/1000, r.GetPublished(), r.GetReceived(), r.GetAdmitted(), r.GetUnchanged(), r.GetPurged(), r.GetHeld())
	if len(r.GetDevices()) > 0 {
		fmt.Fprintf(e.stdout, "devices: %s\n", strings.Join(r.GetDevices(), ", "))
	}
	e.printRefusals(r.GetRefused())
	for _, p := range r.GetProblems() {
		fmt.Fprintf(e.stdout, "PROBLEM: %s\n", p)
	}
	if r.GetHeld() > 0 {
		fmt.Fprintln(e.stdout, "see what is held: ihmt review")
	}
	return nil
}

func (e *env) printRefusals(rs []*ihmtv1.SyncRefusal) {
	for _, r := range rs {
		what := r.GetPath()
		if what == "" {
			what = "memory " + r.GetId()
		}
		if r.GetOutgoing() {
			fmt.Fprintf(e.stdout, "NOT SENT: %s: %s\n", what, r.GetReason())
			continue
		}
		if r.GetDevice() != "" {
			what += " (from " + r.GetDevice() + ")"
		}
		fmt.Fprintf(e.stdout, "REFUSED: %s: %s\n", what, r.GetReason())
	}
}

func (e *env) printSyncStatus(st *ihmtv1.SyncStatus) error {
	if !st.GetEnabled() {
		fmt.Fprintln(e.stdout, "sync is not set up: ihmt sync init REMOTE (a bare repository on another disk, an ssh remote, a private repository)")
		return nil
	}
	fmt.Fprintf(e.stdout, "device:    %s\nremote:    %s\nwork tree: %s (git %s)\n", st.GetDevice(), st.GetRemote(), st.GetDir(), st.GetGitVersion())
	last := "never"
	if st.GetLastSync() != nil {
		t := st.GetLastSync().AsTime()
		last = fmt.Sprintf("%s (%s ago)", t.Local().Format(time.DateTime), time.Since(t).Round(time.Second))
	}
	fmt.Fprintf(e.stdout, "last sync: %s\n", last)
	if iv := st.GetIntervalSeconds(); iv > 0 {
		fmt.Fprintf(e.stdout, "background: every %s\n", time.Duration(iv)*time.Second)
	} else {
		fmt.Fprintln(e.stdout, "background: off ([sync] interval = \"15m\" in config.toml turns it on)")
	}
	fmt.Fprintf(e.stdout, "to send:   %d versions of memories, %d commits\nto receive: %d versions\n", st.GetToSend(), st.GetUnpushed(), st.GetToReceive())
	if len(st.GetDevices()) > 0 {
		fmt.Fprintf(e.stdout, "devices:   %s\n", strings.Join(st.GetDevices(), ", "))
	}
	if st.GetLastError() != "" {
		fmt.Fprintf(e.stdout, "LAST ERROR: %s\n", st.GetLastError())
	}
	e.printRefusals(st.GetRefused())
	return nil
}

package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// syncCheck reports sync over git: off, or set up with its remote, its last
// sync and what waits to be sent; a failed last sync or refused records
// are warnings. It asks only a daemon that answered, and never reads the
// remote (status --offline).
func (d *doctor) syncCheck() {
	const name = "sync"
	tree := filepath.Join(d.storeDir(), "sync", ".git")
	_, statErr := os.Stat(tree)
	if d.stats == nil {
		if statErr == nil {
			d.add(name, checkOK, "set up ("+filepath.Dir(tree)+"); the daemon is not running, so nothing syncs until it does", "")
		}
		return
	}
	who, err := d.e.caller() // sync is the person's: the daemon answers only them
	if err != nil {
		d.add(name, checkFail, err.Error(), "")
		return
	}
	c, err := client.New(client.Options{Socket: d.paths.Socket, Caller: who})
	if err != nil {
		d.add(name, checkFail, err.Error(), "")
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
	defer cancel()
	resp, err := c.SyncStatus(ctx, &ihmtv1.SyncServiceStatusRequest{})
	if err != nil {
		d.add(name, checkWarn, "the daemon does not say how sync stands: "+err.Error(), "ihmt daemon stop (the next call starts the installed version)")
		return
	}
	st := resp.GetStatus()
	if !st.GetEnabled() {
		d.add(name, checkOK, "off; `ihmt sync init REMOTE` shares this memory with your other machines", "")
		return
	}
	if _, err := exec.LookPath("git"); err != nil {
		d.add(name, checkFail, "sync is set up, but git is not on PATH", "install git (apt install git, brew install git)")
		return
	}
	last := "never synced"
	if st.GetLastSync() != nil {
		last = "last sync " + time.Since(st.GetLastSync().AsTime()).Round(time.Second).String() + " ago"
	}
	bg := "background off"
	if iv := st.GetIntervalSeconds(); iv > 0 {
		bg = "every " + (time.Duration(iv) * time.Second).String()
	}
	finding := fmt.Sprintf("device %s with %s: %s, %s; %d versions to send", st.GetDevice(), st.GetRemote(), last, bg, st.GetToSend())
	switch {
	case st.GetLastError() != "":
		d.add(name, checkWarn, finding+"; the last sync failed: "+st.GetLastError(), "ihmt sync (it says what to fix)")
	case len(st.GetRefused()) > 0:
		d.add(name, checkWarn, fmt.Sprintf("%s; %d records refused", finding, len(st.GetRefused())), "ihmt sync status names them")
	default:
		d.add(name, checkOK, finding, "")
	}
}

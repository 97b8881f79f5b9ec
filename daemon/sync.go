package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// syncSettings are config.toml's [sync] keys.
type syncSettings struct {
	// Interval is how often the daemon syncs in the background, as Go
	// writes a duration ("15m", "1h"); empty or "0" is off.
	Interval string `toml:"interval"`
}

// minSyncInterval keeps a background sync from running back to back: a
// sync forks git a dozen times and reads the remote. A variable for the
// test that runs the background loop.
var minSyncInterval = time.Minute

// syncInterval is the background sync's interval from config.toml, read at
// each call (0: off). A setting that cannot be read is off, and logged.
func (d *daemon) syncInterval() time.Duration {
	iv, err := d.readSyncInterval()
	if err != nil {
		d.log.Warn("background sync is off", "err", err)
		return 0
	}
	return iv
}

func (d *daemon) readSyncInterval() (time.Duration, error) {
	path := filepath.Join(d.cfg.Paths.Data, ConfigName)
	s, err := readSettings(path)
	if err != nil {
		return 0, err
	}
	if s.Sync.Interval == "" || s.Sync.Interval == "0" {
		return 0, nil
	}
	iv, err := time.ParseDuration(s.Sync.Interval)
	if err != nil || iv < minSyncInterval {
		return 0, fmt.Errorf("%s: sync.interval = %q: use a duration of at least %s, such as \"15m\" or \"1h\"", path, s.Sync.Interval, minSyncInterval)
	}
	return iv, nil
}

// syncCheck is how often the background loop reads the config again, so a
// changed interval takes effect without a restart (a variable for tests).
var syncCheck = time.Minute

// startBackgroundSync runs sync every interval of config.toml's [sync],
// when sync is set up, until ctx ends. A failed sync is logged and tried
// again at the next interval; ihmt sync status shows the error.
func (d *daemon) startBackgroundSync(ctx context.Context) {
	d.background.Add(1)
	go func() {
		defer d.background.Done()
		var last time.Time
		t := time.NewTicker(syncCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				iv := d.syncInterval()
				if iv == 0 || !d.syncer.Enabled() || now.Sub(last) < iv {
					continue
				}
				last = now
				rep, err := d.syncer.Sync(ctx)
				if err != nil {
					d.log.Warn("background sync failed", "err", err)
					continue
				}
				d.log.Info("background sync", "published", rep.Published, "received", rep.Received,
					"admitted", rep.Admitted, "refused", len(rep.Refused), "took", rep.Took.Round(time.Millisecond))
			}
		}
	}()
}

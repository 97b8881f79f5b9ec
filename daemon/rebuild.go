package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofrs/flock"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// RebuildReport is what an offline rebuild derived.
type RebuildReport struct {
	Memories, Facts int
	Tree            store.TreeStats
	Took            time.Duration
}

// RebuildOffline re-derives everything derived — the facts snapshot, the
// index and timelines, the summary tree — from the leaf files of a store no
// daemon is running on: it takes the daemon's lock (so it fails with
// ErrLockHeld while one runs: use `ihmt rebuild` then), opens the store
// without its derived files, waits for the tree and closes it again.
func RebuildOffline(ctx context.Context, p paths.Paths, log *slog.Logger) (RebuildReport, error) {
	start := time.Now()
	lock := flock.New(p.LockFile(), flock.SetPermissions(0o600))
	locked, err := lock.TryLock()
	if err != nil {
		return RebuildReport{}, fmt.Errorf("lock %s: %w", p.LockFile(), err)
	}
	if !locked {
		return RebuildReport{}, fmt.Errorf("%w (lock %s): rebuild through it with `ihmt rebuild`", ErrLockHeld, p.LockFile())
	}
	defer lock.Unlock()
	if err := store.CheckDir(p.Data, log); err != nil {
		return RebuildReport{}, err // before removing anything in it
	}
	if err := store.DropSnapshots(p.Data); err != nil {
		return RebuildReport{}, fmt.Errorf("remove derived files: %w", err)
	}
	st, err := openStoreIn(p.Data, log)
	if err != nil {
		return RebuildReport{}, err
	}
	_, tree, err := st.Consolidate(ctx, false)
	stats := st.Stats(store.Caller{})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return RebuildReport{}, fmt.Errorf("rebuild: %w", err)
	}
	return RebuildReport{Memories: stats.Memories, Facts: stats.Facts, Tree: tree, Took: time.Since(start)}, nil
}

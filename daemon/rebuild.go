package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// RebuildOffline re-derives everything derived — the facts snapshot, the
// index and timelines, the summary tree — from the leaf files of a store no
// daemon is running on: it takes the daemon's lock (so it fails with
// ErrLockHeld while one runs: use `ihmt rebuild` then), opens the store
// without its derived files, waits for the tree and closes it again.
func RebuildOffline(ctx context.Context, p paths.Paths, log *slog.Logger) (RebuildReport, error) {
	start := time.Now()
	unlock, err := lockStore(p, "rebuild through it with `ihmt rebuild`")
	if err != nil {
		return RebuildReport{}, err
	}
	defer unlock()
	if err := store.CheckDir(p.Data, log); err != nil {
		return RebuildReport{}, err // before removing anything in it
	}
	if err := store.DropSnapshots(p.Data); err != nil {
		return RebuildReport{}, fmt.Errorf("remove derived files: %w", err)
	}
	st, err := openStoreIn(p.Data, log, nil)
	if err != nil {
		return RebuildReport{}, err
	}
	r, err := derived(ctx, st)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return RebuildReport{}, fmt.Errorf("rebuild: %w", err)
	}
	r.Took = time.Since(start)
	return r, nil
}

// derived waits for a store opened without its derived files to have
// derived them again — the index and the timelines are built as it opens,
// the summary tree in the background — and counts what it holds.
func derived(ctx context.Context, st *store.Store) (RebuildReport, error) {
	_, tree, err := st.Consolidate(ctx, false)
	if err != nil {
		return RebuildReport{}, err
	}
	stats := st.Stats(store.Caller{})
	return RebuildReport{Memories: stats.Memories, Facts: stats.Facts, Tree: tree}, nil
}

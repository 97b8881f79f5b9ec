package atomicfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncFiles makes the files' content durable. Beyond a handful of files one
// syncfs(2) of their filesystem is far cheaper than an fsync each; it may
// also flush unrelated dirty data, which costs time but never correctness.
func syncFiles(fs []*os.File) error {
	if len(fs) <= 4 {
		for _, f := range fs {
			if err := f.Sync(); err != nil {
				return fmt.Errorf("sync %s: %w", f.Name(), err)
			}
		}
		return nil
	}
	if err := unix.Syncfs(int(fs[0].Fd())); err != nil {
		return fmt.Errorf("syncfs: %w", err)
	}
	return nil
}

// syncDirs makes renames in dirs durable: an fsync per directory for a few,
// one syncfs(2) for many (a batch of leaves spreads over many shards).
func syncDirs(dirs map[string]bool) error {
	if len(dirs) <= 4 {
		for dir := range dirs {
			if err := SyncDir(dir); err != nil {
				return err
			}
		}
		return nil
	}
	for dir := range dirs {
		d, err := os.Open(dir)
		if err != nil {
			return fmt.Errorf("open dir %s: %w", dir, err)
		}
		defer d.Close()
		if err := unix.Syncfs(int(d.Fd())); err != nil {
			return fmt.Errorf("syncfs: %w", err)
		}
		return nil
	}
	return nil
}

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

//go:build !linux

package atomicfile

import (
	"fmt"
	"os"
)

// syncFiles makes the files' content durable, one fsync each.
func syncFiles(fs []*os.File) error {
	for _, f := range fs {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", f.Name(), err)
		}
	}
	return nil
}

// syncDirs makes renames in dirs durable, one fsync each.
func syncDirs(dirs map[string]bool) error {
	for dir := range dirs {
		if err := SyncDir(dir); err != nil {
			return err
		}
	}
	return nil
}

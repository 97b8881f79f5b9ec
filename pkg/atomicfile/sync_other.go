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

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"syscall"
)

// CheckDir makes sure the store directory is the user's own before anything
// in it is trusted: owned by this user and writable by nobody else. A store
// another user could write to may hold memories this user never saved, so
// the daemon refuses it and says how to fix it; one that others can merely
// read is tightened to 0700, since the memories are this user's to protect.
// A missing directory is created 0700.
func CheckDir(dir string, log *slog.Logger) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create store %s: %w", dir, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("store %s is not a directory: move it aside or set IHMT_HOME to another path", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("store %s belongs to uid %d, not to you (uid %d): use your own store (IHMT_HOME) or, if it is yours, `chown -R %d %s`",
			dir, sys.Uid, os.Getuid(), os.Getuid(), dir)
	}
	mode := st.Mode().Perm()
	if mode&0o022 != 0 {
		return fmt.Errorf("store %s is writable by other users (mode %04o), so its memories cannot be trusted: check its contents, then `chmod 700 %s`", dir, mode, dir)
	}
	if mode&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("store %s is readable by other users (mode %04o) and could not be made private: %w: run `chmod 700 %s`", dir, mode, err, dir)
		}
		log.Warn("the store was readable by other users; made it private", "dir", dir, "was", fmt.Sprintf("%04o", mode))
	}
	return nil
}

// Package atomicfile writes files so that a reader — or a crash — only ever
// sees the old content or the new, never a mixture: write a temporary file
// beside the target, sync it, rename it over the target, sync the directory.
//
// WriteBatch does the same for many files at once with a fixed number of
// syncs instead of two per file, which is what lets the store's leaf writer
// keep up with many concurrent saves: on Linux one syncfs(2) of the
// filesystem stands for the fsyncs of a large batch, at the price of also
// flushing unrelated dirty data.
//
// What it cannot promise: a batch is not a transaction (after a crash some
// of its files may be new and others old), and a crash can leave a
// temporary file behind (".<name>.tmp…" beside the target), which the
// owner of the directory must recognise and remove.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is one file to write.
type File struct {
	Path string
	Data []byte
}

// Write writes one file atomically with mode perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteBatch([]File{{Path: path, Data: data}}, perm)
}

// chunk bounds the temp files open at once, well under any descriptor limit.
const chunk = 256

// WriteBatch writes every file atomically with mode perm, creating parent
// directories (0700) as needed. Each file is all-or-nothing; the batch is
// not: after a crash some files may be new and some old.
func WriteBatch(files []File, perm os.FileMode) error {
	for len(files) > 0 {
		n := min(chunk, len(files))
		if err := writeChunk(files[:n], perm); err != nil {
			return err
		}
		files = files[n:]
	}
	return nil
}

func writeChunk(files []File, perm os.FileMode) error {
	temps := make([]*os.File, len(files))
	defer func() {
		for _, t := range temps {
			if t != nil {
				t.Close()
				os.Remove(t.Name())
			}
		}
	}()
	dirs := map[string]bool{}
	for i, f := range files {
		dir := filepath.Dir(f.Path)
		if !dirs[dir] {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("create %s: %w", dir, err)
			}
			dirs[dir] = true
		}
		t, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".tmp*")
		if err != nil {
			return fmt.Errorf("create temp for %s: %w", f.Path, err)
		}
		temps[i] = t
		if err := t.Chmod(perm); err != nil {
			return fmt.Errorf("chmod %s: %w", t.Name(), err)
		}
		if _, err := t.Write(f.Data); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	// The content must be durable before any rename makes it visible.
	if err := syncFiles(temps); err != nil {
		return err
	}
	for i, f := range files {
		if err := temps[i].Close(); err != nil {
			return fmt.Errorf("close %s: %w", temps[i].Name(), err)
		}
		if err := os.Rename(temps[i].Name(), f.Path); err != nil {
			os.Remove(temps[i].Name())
			temps[i] = nil
			return fmt.Errorf("rename into %s: %w", f.Path, err)
		}
		temps[i] = nil
	}
	return syncDirs(dirs)
}

// SyncDir fsyncs a directory so that renames and creations in it are
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}

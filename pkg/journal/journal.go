// Package journal is the store's append-only log: one JSON object a line,
// and the point of durability for every mutation.
//
// A batch of lines is written with one write and made durable with one
// fsync, which is what lets concurrent saves share the cost of a sync (group
// commit): the store's writer hands over everything that queued up while
// the previous sync was running. Nothing is ever rewritten, so a crash can
// only damage the last batch: its last line may be cut short, which Open
// cuts off, and since the kernel may write the batch's pages in any order
// before the fsync, a line inside it may hold garbage, which readers must
// skip. Nothing in that batch was acknowledged: acknowledgement waits for
// the fsync.
package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
)

// Journal is an open log, positioned for appending. It is not safe for
// concurrent use: the store's single writer owns it.
type Journal struct {
	f       *os.File
	path    string
	size    int64
	entries int64
}

// Open opens (creating, mode 0600) the log at path, drops a torn last line
// left by a crash, and counts its entries.
func Open(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	j := &Journal{f: f, path: path}
	var good int64
	err = scan(f, 0, func(off int64, line []byte) error {
		good = off + int64(len(line)) + 1
		j.entries++
		return nil
	})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read log %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat log: %w", err)
	}
	if st.Size() != good {
		// A torn tail: bytes after the last newline were never acknowledged.
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, fmt.Errorf("truncate torn log tail: %w", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("sync log: %w", err)
		}
	}
	j.size = good
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("seek log: %w", err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// Append writes lines (each without a newline) and fsyncs once. On any
// error the log is cut back to where it was, so a failed append — a full
// disk, say — leaves no partial entry behind, and the caller must report
// every line of the batch as not written.
func (j *Journal) Append(lines [][]byte) error {
	var buf bytes.Buffer
	for _, l := range lines {
		if bytes.IndexByte(l, '\n') >= 0 {
			return errors.New("journal: line contains a newline")
		}
		buf.Write(l)
		buf.WriteByte('\n')
	}
	n, err := j.f.Write(buf.Bytes())
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		if n > 0 {
			// Best effort: if this fails too, Open drops the torn tail.
			_ = j.f.Truncate(j.size)
			_, _ = j.f.Seek(j.size, io.SeekStart)
		}
		return fmt.Errorf("append to log: %w", err)
	}
	j.size += int64(n)
	j.entries += int64(len(lines))
	return nil
}

// Entries returns the number of lines in the log.
func (j *Journal) Entries() int64 { return j.entries }

// Size returns the log's length in bytes.
func (j *Journal) Size() int64 { return j.size }

// Close syncs and closes the log.
func (j *Journal) Close() error {
	if err := j.f.Sync(); err != nil {
		j.f.Close()
		return fmt.Errorf("sync log: %w", err)
	}
	return j.f.Close()
}

// Read calls fn for every complete line of the log at path, in order. A
// missing log reads as empty.
func Read(path string, fn func(line []byte) error) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	defer f.Close()
	return scan(f, 0, func(_ int64, line []byte) error { return fn(line) })
}

// scan calls fn with the offset and content of each newline-terminated line.
func scan(r io.ReaderAt, from int64, fn func(off int64, line []byte) error) error {
	br := bufio.NewReaderSize(io.NewSectionReader(r, from, 1<<62), 1<<16)
	off := from
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it whole.
			full := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if err == io.EOF {
			return nil // an unterminated tail is not an entry
		}
		if err != nil {
			return err
		}
		if cbErr := fn(off, line[:len(line)-1]); cbErr != nil {
			return cbErr
		}
		off += int64(len(line))
	}
}

//go:build unix

package codeindex

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// A file the code tools read is opened once, beneath the project root,
// refusing a symlink at every step, and read from that descriptor. A check
// of the path followed by a second open by name leaves a window in which
// the file can be swapped for a symlink out of the project (and one that
// was swapped 12 to 280 times was read); an open that resolves no symlink
// has no window. On Linux 5.6 and later the kernel does it in one call
// (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS); elsewhere, and where
// a sandbox refuses openat2, the path is walked one name at a time from the
// root's descriptor, each step opened with O_NOFOLLOW.

// errSymlink is a step of a path that is a symlink; errOutsideStep a step
// that leaves the root.
var (
	errSymlink     = errors.New("a symlink")
	errOutsideStep = errors.New("a step out of the project root")
)

// useOpenat2 is false in tests of the walk, which must hold on its own.
var useOpenat2 = true

// openBeneath opens rel (slash-separated, relative to root, no "..") for
// reading, beneath root and through no symlink.
func openBeneath(root, rel string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	if rel == "" || rel == "." {
		fd, err := unix.Dup(dir)
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), root), nil
	}
	fd, err := -1, errors.ErrUnsupported
	if useOpenat2 {
		fd, err = openat2Beneath(dir, rel)
	}
	if errors.Is(err, errors.ErrUnsupported) {
		fd, err = walkBeneath(dir, rel)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), root+"/"+rel), nil
}

// walkBeneath opens rel from dir one name at a time, each with O_NOFOLLOW,
// so that no step is a symlink: an open with O_NOFOLLOW of a symlink fails
// (ELOOP; on some systems EMLINK or ENOTDIR for a directory step).
func walkBeneath(dir int, rel string) (int, error) {
	names := strings.Split(rel, "/")
	cur := dir
	for i, name := range names {
		if name == "" || name == "." || name == ".." {
			if cur != dir {
				unix.Close(cur)
			}
			return -1, fmt.Errorf("the step %q: %w", name, fs.ErrInvalid)
		}
		flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
		if i < len(names)-1 {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(cur, name, flags, 0)
		if cur != dir {
			unix.Close(cur)
		}
		if err != nil {
			if symlinkErr(err) && isSymlinkAt(dir, names[:i+1]) {
				return -1, errSymlink
			}
			return -1, err
		}
		cur = next
	}
	return cur, nil
}

// isSymlinkAt tells a refused symlink from another error of the same
// number, by looking at the step again from the root (its result only
// chooses the message: the open was refused either way).
func isSymlinkAt(dir int, steps []string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dir, strings.Join(steps, "/"), &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

func symlinkErr(err error) bool {
	return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) || errors.Is(err, unix.ENOTDIR)
}

// errNotRegular is a path that is not a regular file (a FIFO, a device);
// errIsDir a directory.
var (
	errNotRegular = errors.New("not a regular file")
	errIsDir      = errors.New("a directory")
)

// errTooBig is a file over the bound it is read with.
var errTooBig = errors.New("too big")

// readBeneath reads the regular file rel beneath root (see openBeneath),
// at most limit bytes: what it reads is what the descriptor it opened
// holds, whatever the name points at by then.
func readBeneath(root, rel string, limit int64) ([]byte, os.FileInfo, error) {
	f, err := openBeneath(root, rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.IsDir() {
		return nil, fi, errIsDir
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, errNotRegular
	}
	if fi.Size() > limit {
		return nil, fi, errTooBig
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fi, err
	}
	if int64(len(data)) > limit {
		return nil, fi, errTooBig
	}
	return data, fi, nil
}

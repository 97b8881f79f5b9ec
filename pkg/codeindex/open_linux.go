package codeindex

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openat2Beneath opens rel beneath dir in one call: the kernel refuses
// any symlink (ELOOP) and any step out of dir (EXDEV). It returns
// errors.ErrUnsupported where the kernel (before 5.6) or a sandbox does
// not offer openat2.
func openat2Beneath(dir int, rel string) (int, error) {
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		// No openat2 (before 5.6), or a sandbox's refusal of it: the
		// walk gives the real answer.
		return -1, errors.ErrUnsupported
	case errors.Is(err, unix.ELOOP):
		return -1, errSymlink
	case errors.Is(err, unix.EXDEV):
		return -1, errOutsideStep
	}
	return -1, err
}

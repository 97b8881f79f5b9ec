//go:build unix && !linux

package codeindex

import "errors"

// openat2Beneath: only Linux has openat2; the walk does the same.
func openat2Beneath(dir int, rel string) (int, error) { return -1, errors.ErrUnsupported }

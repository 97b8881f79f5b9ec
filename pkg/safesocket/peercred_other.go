//go:build !linux && !darwin

package safesocket

import (
	"fmt"
	"runtime"
)

// peerUID is not implemented here, so PeerUID always fails and Listen's
// Accept rejects every connection. That is deliberate: without peer
// credentials we cannot tell the user's processes from anyone else's, and a
// daemon that accepts nobody is safer than one that accepts everybody. Add a
// peercred_<goos>.go (FreeBSD has LOCAL_PEERCRED too) to support a system.
func peerUID(fd int) (int, error) {
	return -1, fmt.Errorf("not supported on %s", runtime.GOOS)
}

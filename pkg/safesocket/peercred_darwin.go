package safesocket

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION from <sys/ucred.h>; x/sys/unix does not
// export it for darwin.
const xucredVersion = 0

// peerUID reads LOCAL_PEERCRED: the effective credentials the peer had when
// it called connect(2).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	// A struct layout we do not know could put anything where Uid is; refuse
	// rather than guess.
	if cred.Version != xucredVersion {
		return -1, fmt.Errorf("unexpected xucred version %d", cred.Version)
	}
	return int(cred.Uid), nil
}

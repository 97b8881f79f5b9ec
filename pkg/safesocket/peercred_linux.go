package safesocket

import "golang.org/x/sys/unix"

// peerUID reads SO_PEERCRED: the credentials the peer had when it called
// connect(2).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

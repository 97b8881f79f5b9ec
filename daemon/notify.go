package daemon

import (
	"net"
	"os"
)

// sdNotify tells a supervising systemd about the daemon's state ("READY=1",
// "STOPPING=1") over the datagram socket named by NOTIFY_SOCKET, which
// systemd sets for a Type=notify unit. Without the variable — started on
// demand, by hand, or by launchd — it does nothing. That is the whole
// protocol; libsystemd is not needed for it. A name starting with "@" is an
// abstract socket, which Go's net package maps itself.
func sdNotify(state string) error {
	name := os.Getenv("NOTIFY_SOCKET")
	if name == "" {
		return nil
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(state))
	return err
}

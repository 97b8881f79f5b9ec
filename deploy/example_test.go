package deploy_test

import (
	"fmt"
	"strings"

	"github.com/ihmt-dev/ihmt/deploy"
)

// Unit renders the systemd user unit with this machine's paths, quoted and
// escaped for systemd; a relative path is refused.
func ExampleUnit() {
	unit, err := deploy.Unit(deploy.Config{
		Daemon: "/home/u/.local/bin/ihmtd",
		Data:   "/home/u/.local/share/ihmt",
		Socket: "/run/user/1000/ihmt/ihmtd.sock",
	})
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(unit), "\n") {
		if strings.HasPrefix(line, "ExecStart=") {
			fmt.Println(line)
		}
	}
	_, err = deploy.Unit(deploy.Config{Daemon: "ihmtd", Data: "/d", Socket: "/s"})
	fmt.Println(err)
	// Output:
	// ExecStart=/home/u/.local/bin/ihmtd -data /home/u/.local/share/ihmt -socket /run/user/1000/ihmt/ihmtd.sock
	// the ihmtd path "ihmtd" is not absolute: a service manager has no working directory or shell to resolve it
}

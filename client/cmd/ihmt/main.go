// Command ihmt is the IHMT command line: save, search and inspect the memory,
// run the daemon, and take the one-command tour (ihmt demo).
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/ihmt-dev/ihmt/client/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

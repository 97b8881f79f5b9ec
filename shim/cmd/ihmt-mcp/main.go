// Command ihmt-mcp is the MCP server an agent launches over stdio to reach
// the user's IHMT memory. Register it with its absolute path, e.g.
//
//	claude mcp add --scope user ihmt -- /abs/path/ihmt-mcp
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/version"
	"github.com/ihmt-dev/ihmt/shim"
)

func main() {
	showVersion := flag.Bool("version", false, "print the version and exit")
	level := flag.String("log-level", "warn", "log level on stderr: debug, info, warn or error")
	tools := flag.String("tools", cmp.Or(os.Getenv(client.ToolsEnv), client.AllFamilies), "tool families to serve, comma-separated: memory, session, project (default $"+client.ToolsEnv+", else all three)")
	flag.Parse()
	families, err := client.ParseFamilies(*tools)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ihmt-mcp:", err)
		os.Exit(2)
	}
	if *showVersion {
		fmt.Println("ihmt-mcp", version.Describe())
		return
	}
	if err := shim.Main(context.Background(), *level, families...); err != nil {
		fmt.Fprintln(os.Stderr, "ihmt-mcp:", err)
		os.Exit(1)
	}
}

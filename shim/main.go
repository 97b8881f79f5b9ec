package shim

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/ihmt-dev/ihmt/client"
)

// Main serves MCP on stdin/stdout until the client closes the stream. It is
// all of ihmt-mcp's main, kept here so tests can run it in-process.
func Main(ctx context.Context, logLevel string, tools ...string) error {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("bad log level %q: use debug, info, warn or error", logLevel)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))
	c, err := client.New(client.Options{AutoStart: true})
	if err != nil {
		return err
	}
	defer c.Close()
	dir, _ := os.Getwd()
	srv := NewServer(Config{
		Client:          c,
		ProjectOverride: os.Getenv("IHMT_PROJECT"),
		Dir:             dir,
		SessionID:       client.NewSessionID(),
		Logger:          log,
		Tools:           tools,
	})
	return srv.Run(ctx, checkedStdio(os.Stdin, os.Stdout, log))
}

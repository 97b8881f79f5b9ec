package shim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
)

// Main serves MCP on stdin/stdout until the client closes the stream. It is
// all of ihmt-mcp's main, kept here so tests can run it in-process.
func Main(ctx context.Context, logLevel string) error {
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
		SessionID:       NewSessionID(),
		Logger:          log,
	})
	return srv.Run(ctx, &mcp.StdioTransport{})
}

// NewSessionID returns a fresh session id: the start time, readable in logs
// and leaf headers, plus randomness so parallel sessions never collide.
func NewSessionID() string {
	var b [4]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

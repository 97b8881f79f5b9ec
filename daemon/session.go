package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/grpc"

	"github.com/ihmt-dev/ihmt/daemon/rpc"
	"github.com/ihmt-dev/ihmt/pkg/codeindex"
	"github.com/ihmt-dev/ihmt/pkg/scratch"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The session and project families live beside the memory: the sessions'
// scratch notes in the daemon's memory, the projects' code indexes in
// their own directory under the store (code/), derived and apart from the
// memories. Neither needs the store open, so they serve from the start.

// sessionGraceEnv overrides how long a session's notes outlive its shim
// (a duration, e.g. 30s): for tests, and for a user whose agent restarts
// its MCP servers slowly.
const sessionGraceEnv = "IHMT_SESSION_GRACE"

// newSessions returns the scratch sessions with their limits.
func newSessions(log *slog.Logger) *scratch.Sessions {
	var lim scratch.Limits
	if v := os.Getenv(sessionGraceEnv); v != "" {
		g, err := time.ParseDuration(v)
		if err != nil || g <= 0 {
			log.Warn("ignoring a bad session grace; using the default", "env", sessionGraceEnv, "value", v, "default", scratch.DefaultGrace)
		} else {
			lim.Grace = g
		}
	}
	return scratch.New(lim)
}

// registerToolbox registers the SessionService and the CodeService.
func (d *daemon) registerToolbox(srv *grpc.Server) {
	ihmtv1.RegisterSessionServiceServer(srv, rpc.NewSessionServer(d.sessions, d.log))
	idx := codeindex.New(filepath.Join(d.cfg.Paths.Data, "code"), d.log)
	ihmtv1.RegisterCodeServiceServer(srv, rpc.NewCodeServer(idx, d.sessions, d.log))
}

package daemon

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/safesocket"
)

// serveProfiles serves Go's runtime profiles (net/http/pprof) on a Unix
// socket of their own at path, for a person finding where a running
// daemon's time goes:
//
//	curl -s --unix-socket $SOCK 'http://ihmtd/debug/pprof/profile?seconds=20' > cpu.prof
//	go tool pprof cpu.prof
//
// It is off unless asked for (ihmtd -pprof-socket): a profile shows the
// texts being worked on, so it is served like the API, on a socket only its
// user can reach (safesocket: a 0700 directory, mode 0600, peer uid
// checked), never on a TCP port. It returns a stop function.
func (d *daemon) serveProfiles(path string) (stop func(), err error) {
	lis, err := safesocket.ListenFor(path, "ihmtd's -pprof-socket", func(uid int, err error) {
		d.log.Warn("refused a profile connection from another user", "uid", uid, "err", err)
	})
	if err != nil {
		return nil, fmt.Errorf("the profile socket %s: %w", path, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Warn("profile socket stopped", "err", err)
		}
	}()
	d.log.Info("serving runtime profiles", "socket", path)
	return func() { srv.Close() }, nil
}

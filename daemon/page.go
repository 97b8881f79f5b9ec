package daemon

import (
	"context"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/daemon/ui"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// page is the person's web page (`ihmt ui`) and its way in: a connection to
// this daemon's own gRPC server over an in-memory listener, so that every
// request of the page is a call like any other — the same handlers, the
// same interceptor (which counts it as activity for the idle exit), the
// same scope rules — and nothing of the store is reachable any other way.
type page struct {
	*ui.Page
	conn *grpc.ClientConn
}

// registerPage registers the UIService on server and serves the page's
// in-memory connection; it goes after every other registration (serving
// begins here) and before the socket is served.
func (d *daemon) registerPage(server *grpc.Server) {
	lis := bufconn.Listen(1 << 20)
	conn, err := grpc.NewClient("passthrough:///ihmtd-page",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRequest)),
	)
	if err != nil {
		// NewClient fails only on a malformed target or options: ours are fixed.
		panic("the page's connection: " + err.Error())
	}
	d.page = &page{Page: ui.New(ui.Config{Conn: conn, Log: d.log, IdleExit: d.cfg.IdleExit, StartedAt: time.Now()}), conn: conn}
	ihmtv1.RegisterUIServiceServer(server, d.page)
	go server.Serve(lis) // ends with the server's stop
}

// closePage stops serving the page (its requests would find the daemon
// stopping) and drops its connection.
func (d *daemon) closePage() {
	if d.page == nil {
		return
	}
	if err := d.page.Close(); err != nil {
		d.log.Warn("closing the page", "err", err)
	}
	d.page.conn.Close()
}

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// cmdUI asks the daemon to serve the page, prints its address and opens it.
func cmdUI(e *env, args []string) error {
	fs, asJSON := e.flags("ui", "")
	port := fs.Int("port", 0, "TCP port on 127.0.0.1 (default: a free one)")
	noBrowser := fs.Bool("no-browser", false, "print the address without opening a browser")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	if *port < 0 || *port > 65535 {
		return usageError{fmt.Sprintf("--port %d: use 1 to 65535, or leave it out for a free one", *port)}
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.ServeResponse, error) {
		return c.ServePage(e.ctx, &ihmtv1.ServeRequest{Port: int32(*port)})
	}, func(resp *ihmtv1.ServeResponse) error {
		state := "The page is served at"
		if !resp.GetStarted() {
			state = "The page was already served at"
		}
		fmt.Fprintf(e.stdout, "%s\n\n  %s\n\n", state, resp.GetUrl())
		where := "global memories only (no project here)"
		if p := resp.GetProject(); p != "" {
			where = "global memories and project " + p
		}
		fmt.Fprintf(e.stdout, "It shows %s by default, acts as you, and answers only on this machine.\n", where)
		fmt.Fprintln(e.stdout, "The address holds a token that changes each time the daemon starts: keep it to yourself.")
		fmt.Fprintln(e.stdout, "While the page is open the daemon stays up; it stops serving it when the daemon stops (`ihmt daemon stop`).")
		if !*noBrowser {
			if err := openBrowser(resp.GetUrl()); err != nil {
				fmt.Fprintf(e.stderr, "could not open a browser (%v): open the address above yourself\n", err)
			}
		}
		return nil
	})
}

// openBrowser opens url in the person's browser ($BROWSER, else the
// system's opener) without waiting for it.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch b := os.Getenv("BROWSER"); {
	case b != "":
		cmd = exec.Command(b, url)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", url)
	case runtime.GOOS == "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it; its exit status says nothing about the page
	return nil
}

package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/ihmt-dev/ihmt/client"
)

// page says whether the daemon serves the person's web page (`ihmt ui`).
// It asks only a daemon that answered: it never starts one.
func (d *doctor) page() {
	const name = "page"
	if d.stats == nil {
		return
	}
	c, err := client.New(client.Options{Socket: d.paths.Socket})
	if err != nil {
		d.add(name, checkFail, err.Error(), "")
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(d.ctx, 3*time.Second)
	defer cancel()
	st, err := c.PageStatus(ctx)
	if err != nil {
		d.add(name, checkWarn, "the daemon does not say whether it serves the page: "+err.Error(), "ihmt daemon stop (the next call starts the installed version)")
		return
	}
	if !st.GetServing() {
		d.add(name, checkOK, "not served; `ihmt ui` serves it on 127.0.0.1", "")
		return
	}
	last := "no request yet"
	if lr := st.GetLastRequest(); lr != nil {
		last = "last request " + time.Since(lr.AsTime()).Round(time.Second).String() + " ago"
	}
	d.add(name, checkOK, fmt.Sprintf("served at %s (since %s, %s); `ihmt ui` prints its address with the token", st.GetAddress(), st.GetServingSince().AsTime().Local().Format("15:04"), last), "")
}

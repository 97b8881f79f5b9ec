package ui_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestOpenPageKeepsTheDaemon: a daemon that exits when idle stays up while
// its page asks it things (each request is a call, which the page's
// heartbeat makes at least every third of the idle exit), and exits once
// the page is quiet, taking the page with it.
func TestOpenPageKeepsTheDaemon(t *testing.T) {
	const idle = time.Second
	w := startDaemon(t, idle)
	p := servePage(t, testenv.Context(t), w)
	for end := time.Now().Add(4 * idle); time.Now().Before(end); {
		if code := p.call(t, "Status", map[string]any{}, nil); code != http.StatusOK {
			t.Fatalf("the page's heartbeat: %d", code)
		}
		select {
		case err := <-w.done:
			t.Fatalf("the daemon exited under an open page (%v)\n%s", err, w.logs)
		case <-time.After(idle / 3):
		}
	}
	// The page goes quiet: the daemon exits by itself, and the page with it.
	select {
	case err := <-w.done:
		w.done <- err // for the cleanup
		if err != nil {
			t.Fatalf("the idle exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the daemon did not exit once the page was quiet\n%s", w.logs)
	}
	if _, err := http.Get(p.origin + "/"); err == nil {
		t.Error("the page still answers after the daemon stopped")
	}
}

package cli

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRunAliveSaysItIsAlive: a long build prints a line every so often, so
// the demo's first run never sits silent; a quick one prints none.
func TestRunAliveSaysItIsAlive(t *testing.T) {
	for _, tt := range []struct {
		sleep     string
		wantLines bool
	}{{"0.35", true}, {"0", false}} {
		var say bytes.Buffer
		if err := runAlive(exec.Command("sleep", tt.sleep), &say, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		n := strings.Count(say.String(), "still compiling (")
		if (n >= 2) != tt.wantLines || (!tt.wantLines && n != 0) {
			t.Errorf("sleep %s: %d heartbeat lines: %q", tt.sleep, n, say.String())
		}
	}
	if err := runAlive(exec.Command("false"), &bytes.Buffer{}, time.Second); err == nil {
		t.Error("a failing command reported success")
	}
}

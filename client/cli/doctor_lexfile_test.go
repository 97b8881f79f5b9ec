package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestBadLexiconKeepsServing: a lexicon.json the daemon cannot use (a
// symlink to /dev/zero, not JSON) does not keep ihmtd from serving; `ihmt
// status` and `ihmt doctor` name the problem. A good file raises neither
// (the control).
func TestBadLexiconKeepsServing(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(path string) error
		bad   bool
	}{
		{"a symlink to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, true},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("{\"concepts\": [tru"), 0o600) }, true},
		{"a good file", func(p string) error {
			return os.WriteFile(p, []byte(`{"concepts":[{"name":"boat","words":["sailboat"]}]}`), 0o600)
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := binDirWith(t, nil)
			h := testHost(t, bin, map[string]string{"IHMT_HOME": "$HOME/data", "IHMT_SOCKET": "$HOME/run/ihmtd.sock"}, &recorder{})
			home, _ := h.home()
			data, sock := filepath.Join(home, "data"), filepath.Join(home, "run", "ihmtd.sock")
			if err := os.MkdirAll(data, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := tt.plant(filepath.Join(data, "lexicon.json")); err != nil {
				t.Fatal(err)
			}
			daemon := exec.Command(filepath.Join(bin, "ihmtd"), "-data", data, "-socket", sock)
			if err := daemon.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- daemon.Wait() }()
			t.Cleanup(func() { daemon.Process.Kill(); <-exited })
			c, err := client.New(client.Options{Socket: sock})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := testenv.Context(t)
			for c.Ping(ctx) != nil {
				select {
				case err := <-exited:
					t.Fatalf("ihmtd exited over the lexicon file: %v", err)
				case <-ctx.Done():
					t.Fatal("the daemon did not come up")
				case <-time.After(20 * time.Millisecond):
				}
			}
			_, status, _ := runCLI(t, "--socket", sock, "status")
			if got := strings.Contains(status, "lexicon additions are not used"); got != tt.bad {
				t.Errorf("status names a lexicon problem = %v, want %v:\n%s", got, tt.bad, status)
			}
			_, r, text := runDoctor(t)
			want := checkOK
			if tt.bad {
				want = checkWarn
			}
			if c := r.find("lexicon"); c.Status != want || tt.bad && !strings.Contains(c.Fix, "lexicon.json") {
				t.Errorf("doctor's lexicon check = %+v, want %s:\n%s", c, want, text)
			}
		})
	}
}

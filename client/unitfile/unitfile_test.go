package unitfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/paths"
)

func testConfig(t *testing.T, goos string, answers map[string]string) (Config, *[]string) {
	var ran []string
	home := t.TempDir()
	return Config{
		GOOS:   goos,
		Home:   home,
		UID:    501,
		Daemon: "/opt/ihmt/bin/ihmtd",
		Paths:  paths.Paths{Data: filepath.Join(home, "data"), Socket: filepath.Join(home, "run", "ihmtd.sock")},
		Run: func(_ context.Context, _ string, argv []string) ([]byte, error) {
			cmd := strings.Join(argv, " ")
			ran = append(ran, cmd)
			for prefix, out := range answers {
				if strings.HasPrefix(cmd, prefix) {
					return []byte(out), nil
				}
			}
			return []byte("Could not find service"), errors.New("exit status 113")
		},
		LookPath: func(name string) (string, error) { return "/bin/" + name, nil },
	}, &ran
}

// TestLaunchdLifecycle: install bootstraps and kickstarts the agent,
// status reads launchctl print, uninstall boots it out and removes the
// plist.
func TestLaunchdLifecycle(t *testing.T) {
	c, ran := testConfig(t, "darwin", map[string]string{
		"launchctl bootstrap": "", "launchctl kickstart": "",
		"launchctl print": "gui/501/dev.ihmt.ihmtd = {\n\tstate = running\n\tpid = 42\n}\n",
	})
	p, err := c.InstallPlan()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	plist := filepath.Join(c.Home, "Library", "LaunchAgents", "dev.ihmt.ihmtd.plist")
	if _, err := os.Stat(plist); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.Home, "Library", "Logs", "ihmt")); err != nil {
		t.Errorf("log directory not created: %v", err)
	}
	want := []string{"launchctl bootout gui/501/dev.ihmt.ihmtd", "launchctl bootstrap gui/501 " + plist, "launchctl kickstart -k gui/501/dev.ihmt.ihmtd"}
	if strings.Join(*ran, "\n") != strings.Join(want, "\n") {
		t.Errorf("ran\n%s\nwant\n%s", strings.Join(*ran, "\n"), strings.Join(want, "\n"))
	}
	st, err := c.Status(context.Background())
	if err != nil || !st.Installed || !st.Current || !st.Running() || st.Enabled != "loaded" {
		t.Errorf("status %+v, %v", st, err)
	}
	u, err := c.UninstallPlan()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(plist); !errors.Is(err, os.ErrNotExist) {
		t.Error("plist not removed")
	}
	if st, _ := c.Status(context.Background()); st.Installed {
		t.Error("still installed")
	}
}

// TestStatusWithoutSystemd: an unreachable service manager is reported,
// not an error, and a stale unit is noticed.
func TestStatusWithoutSystemd(t *testing.T) {
	c, _ := testConfig(t, "linux", nil)
	unit, _ := c.File()
	os.MkdirAll(filepath.Dir(unit), 0o700)
	os.WriteFile(unit, []byte("[Service]\nExecStart=/old/ihmtd\n"), 0o644)
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Installed || st.Current || !strings.Contains(st.Problem, "cannot reach your user service manager") {
		t.Errorf("status %+v", st)
	}
	if _, err := (Config{GOOS: "plan9"}).Manager(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("plan9: %v", err)
	}
}

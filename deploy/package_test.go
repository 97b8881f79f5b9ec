package deploy

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The release's package files (deploy/package), used by scripts/release.sh
// and nfpm: the scripts a .deb or .rpm runs, run here against a fake
// systemctl and a user manager's runtime directory of this test's own.

// runPackageScript runs script with args as dpkg or rpm would, for one
// user (this uid) whose user manager runs; active says whether that
// manager reports ihmtd.service active. It returns the systemctl calls and
// the script's output.
func runPackageScript(t *testing.T, script string, active bool, args ...string) (calls []string, out string) {
	t.Helper()
	dir := t.TempDir()
	runRoot := filepath.Join(dir, "run")
	uid := strconv.Itoa(os.Getuid())
	priv := filepath.Join(runRoot, uid, "systemd")
	if err := os.MkdirAll(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	// A user manager is known by its private socket.
	l, err := net.Listen("unix", filepath.Join(priv, "private"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o700)
	log := filepath.Join(dir, "systemctl.log")
	isActive := "1"
	if active {
		isActive = "0"
	}
	fake := "#!/bin/sh\necho \"$*\" >>" + log + "\ncase \"$*\" in *is-active*) exit " + isActive + " ;; esac\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte(fake), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", append([]string{filepath.Join("package", script)}, args...)...)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "IHMT_USER_RUNTIME_ROOT=" + runRoot}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, b)
	}
	data, _ := os.ReadFile(log)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l != "" {
			calls = append(calls, l)
		}
	}
	return calls, string(b)
}

// TestPackageScripts: an upgrade restarts a running user service and only
// a running one; a removal stops it, the removal half of an upgrade does
// not. Each case's twin (inactive, or upgrade) is its control.
func TestPackageScripts(t *testing.T) {
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatalf("id -un: %v", err)
	}
	user := strings.TrimSpace(string(out))
	for _, tc := range []struct {
		name, script string
		active       bool
		args         []string
		want, not    []string // systemctl calls made, and not made
		says         string
	}{
		{"upgrade, service running", "postinstall.sh", true, []string{"configure", "0.1.0"},
			[]string{"--user -M " + user + "@ daemon-reload", "--user -M " + user + "@ try-restart ihmtd.service"}, nil, "restarted " + user + "'s ihmtd service"},
		{"upgrade, service not running", "postinstall.sh", false, []string{"configure", "0.1.0"},
			[]string{"--user -M " + user + "@ is-active --quiet ihmtd.service"}, []string{"try-restart"}, ""},
		{"dpkg remove", "preremove.sh", true, []string{"remove"}, []string{"--user -M " + user + "@ stop ihmtd.service"}, nil, ""},
		{"dpkg upgrade", "preremove.sh", true, []string{"upgrade", "0.2.0"}, nil, []string{"stop"}, ""},
		{"rpm erase", "preremove.sh", true, []string{"0"}, []string{"--user -M " + user + "@ stop ihmtd.service"}, nil, ""},
		{"rpm upgrade", "preremove.sh", true, []string{"1"}, nil, []string{"stop"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, out := runPackageScript(t, tc.script, tc.active, tc.args...)
			joined := strings.Join(calls, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("no systemctl %q; calls:\n%s", w, joined)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(joined, n) {
					t.Errorf("systemctl %q was called:\n%s", n, joined)
				}
			}
			if tc.says != "" && !strings.Contains(out, tc.says) {
				t.Errorf("output %q does not say %q", out, tc.says)
			}
		})
	}
}

// TestPackageFilesAgree: the packaged unit starts the ihmtd the package
// installs, nfpm's configuration names files that exist, and the archive's
// launchd agent is a well-formed plist for the README's /usr/local/bin.
func TestPackageFilesAgree(t *testing.T) {
	nfpm, err := os.ReadFile("package/nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile("package/ihmtd.service")
	if err != nil {
		t.Fatal(err)
	}
	exec := regexp.MustCompile(`(?m)^ExecStart=(\S+)$`).FindSubmatch(unit)
	if exec == nil || !strings.Contains(string(nfpm), "dst: "+string(exec[1])+"\n") {
		t.Errorf("the unit runs %q, which nfpm.yaml does not install", exec)
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:- src|postinstall|preremove): (deploy/\S+|README.md|LICENSE)$`).FindAllStringSubmatch(string(nfpm), -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("nfpm.yaml names %s: %v", m[1], err)
		}
	}
	if !strings.Contains(string(nfpm), "dst: /usr/lib/systemd/user/ihmtd.service") {
		t.Error("nfpm.yaml does not install the user unit where systemd looks for packaged user units")
	}
	plist, err := os.ReadFile("package/dev.ihmt.ihmtd.plist")
	if err != nil {
		t.Fatal(err)
	}
	d := parsePlist(t, plist)
	if d["Label"].text != Label {
		t.Errorf("Label %q, want %s", d["Label"].text, Label)
	}
	if !strings.Contains(string(plist), "<string>/usr/local/bin/ihmtd</string>") || !strings.Contains(string(plist), "<string>"+Label+"</string>") {
		t.Errorf("the archive's plist does not run /usr/local/bin/ihmtd as %s", Label)
	}
}

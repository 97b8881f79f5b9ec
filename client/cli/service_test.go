package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// recorder is a command runner that records instead of running, and
// answers from a table keyed by the command's first words.
type recorder struct {
	mu      sync.Mutex
	ran     [][]string
	answers map[string]answer
}

type answer struct {
	out string
	err error
}

func (r *recorder) run(_ context.Context, dir string, argv []string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ran = append(r.ran, argv)
	for n := len(argv); n > 0; n-- {
		if a, ok := r.answers[strings.Join(argv[:n], " ")]; ok {
			return []byte(a.out), a.err
		}
	}
	return nil, nil
}

func (r *recorder) commands() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, argv := range r.ran {
		out = append(out, strings.Join(argv, " "))
	}
	return out
}

// testHost is a machine with a temporary HOME, the given environment on top
// of it, binaries in binDir and commands going to rec.
func testHost(t *testing.T, binDir string, vars map[string]string, rec *recorder, onPath ...string) *host {
	t.Helper()
	home := testenv.SocketDir(t) // short: sockets go under it
	envm := map[string]string{"HOME": home, "PATH": os.Getenv("PATH"), "USER": "tester", "LANG": "C.UTF-8"}
	for k, v := range vars {
		envm[k] = strings.ReplaceAll(v, "$HOME", home)
	}
	h := &host{
		getenv: func(k string) string { return envm[k] },
		exe:    filepath.Join(binDir, "ihmt"),
		goos:   "linux",
		uid:    os.Getuid(),
		cwd:    home,
		run:    rec.run,
		lookPath: func(name string) (string, error) {
			if slices.Contains(onPath, name) {
				return "/usr/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		},
		now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
	}
	old := newHost
	newHost = func() *host { return h }
	t.Cleanup(func() { newHost = old })
	return h
}

// fakeBinDir holds executable stubs named like IHMT's programs.
func fakeBinDir(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestServiceInstallDryRun: --dry-run prints the whole unit and every
// command, runs nothing and writes nothing.
func TestServiceInstallDryRun(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmtd": "exit 0"})
	rec := &recorder{}
	h := testHost(t, bin, map[string]string{"IHMT_SOCKET": "$HOME/run/ihmtd.sock"}, rec, "systemctl")
	home, _ := h.home()
	code, out, errb := runCLI(t, "service", "install", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "ihmtd.service")
	for _, want := range []string{
		"would write:  " + unit,
		"| ExecStart=" + filepath.Join(bin, "ihmtd") + " -data " + filepath.Join(home, ".local", "share", "ihmt") + " -socket " + filepath.Join(home, "run", "ihmtd.sock"),
		"| Type=notify",
		"| RestartPreventExitStatus=3",
		"would run:    systemctl --user daemon-reload",
		"would run:    systemctl --user enable --now ihmtd.service",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "%h") || strings.Contains(out, "~/") || strings.Contains(out, "idle-exit ") {
		t.Errorf("unit is not absolute, or idles out:\n%s", out)
	}
	if !strings.Contains(out, "here:         the real run would work (asked `systemctl --user show-environment`") || errb != "" {
		t.Errorf("the dry run does not say the real run would work:\n%s%s", out, errb)
	}
	// Only the read-only question whether the real run would work.
	if cmds := rec.commands(); !slices.Equal(cmds, []string{"systemctl --user show-environment"}) {
		t.Errorf("a dry run ran %q", cmds)
	}
	if _, err := os.Stat(unit); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote %s", unit)
	}

	// The same plan as JSON, for scripts.
	code, out, _ = runCLI(t, "service", "install", "--dry-run", "--json")
	var plan struct {
		DryRun bool `json:"dry_run"`
		Plan   struct {
			Files []struct{ Path, Content string }
			After []struct{ Args []string }
		}
		Here readiness
	}
	if err := json.Unmarshal([]byte(out), &plan); code != 0 || err != nil || !plan.DryRun || plan.Plan.Files[0].Path != unit || len(plan.Plan.After) != 2 || !plan.Here.WouldWork {
		t.Errorf("--json: exit %d, %v, %+v", code, err, plan)
	}
}

// TestServiceInstallRunsSystemctl: with a recording runner, install writes
// the unit, then runs daemon-reload and enable --now; a second install
// only re-enables; uninstall disables and removes.
func TestServiceInstallRunsSystemctl(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmtd": "exit 0"})
	rec := &recorder{answers: map[string]answer{
		"systemctl --user is-enabled": {out: "enabled\n"},
		"systemctl --user is-active":  {out: "active\n"},
	}}
	h := testHost(t, bin, map[string]string{"IHMT_SOCKET": "$HOME/run/ihmtd.sock"}, rec, "systemctl")
	home, _ := h.home()
	unit := filepath.Join(home, ".config", "systemd", "user", "ihmtd.service")

	code, out, errb := runCLI(t, "service", "install")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errb)
	}
	if _, err := os.Stat(unit); err != nil {
		t.Fatalf("unit not written: %v", err)
	}
	cmds := rec.commands()
	reload := slices.Index(cmds, "systemctl --user daemon-reload")
	enable := slices.Index(cmds, "systemctl --user enable --now ihmtd.service")
	if reload < 0 || enable < reload {
		t.Errorf("want daemon-reload then enable --now; ran %q", cmds)
	}
	if !strings.Contains(out, "wrote "+unit) || !strings.Contains(out, "enabled, active") {
		t.Errorf("output:\n%s", out)
	}

	rec.ran = nil
	if code, out, errb := runCLI(t, "service", "install"); code != 0 {
		t.Fatalf("second install: exit %d: %s%s", code, out, errb)
	}
	if cmds := rec.commands(); slices.Contains(cmds, "systemctl --user daemon-reload") || !slices.Contains(cmds, "systemctl --user enable --now ihmtd.service") {
		t.Errorf("second install ran %q", cmds)
	}

	if code, out, _ := runCLI(t, "service", "status"); code != 0 || !strings.Contains(out, "installed") {
		t.Errorf("status: exit %d: %s", code, out)
	}

	rec.ran = nil
	if code, out, errb := runCLI(t, "service", "uninstall"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s%s", code, out, errb)
	}
	cmds = rec.commands()
	if i, j := slices.Index(cmds, "systemctl --user disable --now ihmtd.service"), slices.Index(cmds, "systemctl --user daemon-reload"); i < 0 || j < i {
		t.Errorf("uninstall ran %q", cmds)
	}
	if _, err := os.Stat(unit); !errors.Is(err, os.ErrNotExist) {
		t.Error("uninstall left the unit")
	}
}

// TestServiceWithoutUserBus: no systemd user instance (a container) is
// said plainly, with what to do, and nothing is written.
func TestServiceWithoutUserBus(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmtd": "exit 0"})
	rec := &recorder{answers: map[string]answer{
		"systemctl --user show-environment": {out: "Failed to connect to bus: No medium found\n", err: errors.New("exit status 1")},
	}}
	h := testHost(t, bin, nil, rec, "systemctl")
	home, _ := h.home()
	code, _, errb := runCLI(t, "service", "install")
	if code == 0 {
		t.Fatal("install succeeded without a user bus")
	}
	for _, want := range []string{"No medium found", "loginctl enable-linger", "on demand"} {
		if !strings.Contains(errb, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errb)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "systemd", "user", "ihmtd.service")); err == nil {
		t.Error("the unit was written anyway")
	}
	if slices.ContainsFunc(rec.commands(), func(c string) bool { return strings.Contains(c, "enable") }) {
		t.Errorf("ran %q", rec.commands())
	}
}

// TestServiceDryRunWithoutUserBus: the dry run asks what the real run
// asks first, and without a systemd user instance says the real run would
// fail, why, and what to do — after the whole plan, exiting 1. The
// positive control, on the same machine once the bus answers: it would
// work, exit 0.
func TestServiceDryRunWithoutUserBus(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmtd": "exit 0"})
	noBus := map[string]answer{
		"systemctl --user show-environment": {out: "Failed to connect to bus: No medium found\n", err: errors.New("exit status 1")},
	}
	rec := &recorder{answers: noBus}
	h := testHost(t, bin, map[string]string{"XDG_RUNTIME_DIR": "$HOME/xdg"}, rec, "systemctl")
	home, _ := h.home()
	rt := filepath.Join(home, "xdg")
	os.Mkdir(rt, 0o700)

	code, out, errb := runCLI(t, "service", "install", "--dry-run")
	if code != 1 {
		t.Errorf("exit %d, want 1 (the real run would fail): %s", code, errb)
	}
	for _, want := range []string{
		"would run:    systemctl --user enable --now ihmtd.service", // the plan, all of it
		"here:         the real run would fail:",
		"No medium found",
		"there is no user bus at " + filepath.Join(rt, "bus"),
		"fix: run `loginctl enable-linger $USER`",
		"on demand",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run does not say %q:\n%s", want, out)
		}
	}
	var plan struct{ Here readiness }
	code, out, _ = runCLI(t, "service", "install", "--dry-run", "--json")
	if err := json.Unmarshal([]byte(out), &plan); code != 1 || err != nil || plan.Here.WouldWork || len(plan.Here.Problems) != 2 || len(plan.Here.Fix) != 2 {
		t.Errorf("--json: exit %d, %v, %+v", code, err, plan.Here)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "systemd", "user", "ihmtd.service")); err == nil {
		t.Error("a dry run wrote the unit")
	}
	for _, c := range rec.commands() {
		if c != "systemctl --user show-environment" {
			t.Errorf("a dry run ran %q", c)
		}
	}

	// Positive control: the user instance answers.
	rec.answers = nil
	code, out, errb = runCLI(t, "service", "install", "--dry-run")
	if code != 0 || !strings.Contains(out, "the real run would work") || strings.Contains(out, "loginctl") {
		t.Errorf("with a user bus: exit %d: %s%s", code, out, errb)
	}
	code, out, _ = runCLI(t, "service", "install", "--dry-run", "--json")
	plan.Here = readiness{}
	if err := json.Unmarshal([]byte(out), &plan); code != 0 || err != nil || !plan.Here.WouldWork || len(plan.Here.Problems) != 0 {
		t.Errorf("with a user bus, --json: exit %d, %v, %+v", code, err, plan.Here)
	}

	// Without XDG_RUNTIME_DIR at all (su, sudo -u), that is what it says.
	rec.answers = noBus
	h.getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	if _, out, _ := runCLI(t, "service", "install", "--dry-run"); !strings.Contains(out, "XDG_RUNTIME_DIR is not set") {
		t.Errorf("without XDG_RUNTIME_DIR:\n%s", out)
	}
}

// TestServiceWithoutDaemon: with no ihmtd anywhere ihmt looks, the dry run
// shows the unit anyway, with the ihmtd `go install` would put in GOBIN,
// warns on stderr and exits 1; the real install refuses with the same
// hint and runs nothing. With ihmtd beside ihmt (the positive control):
// no warning.
func TestServiceWithoutDaemon(t *testing.T) {
	bin := t.TempDir()
	rec := &recorder{}
	h := testHost(t, bin, map[string]string{"GOBIN": "$HOME/gobin", "GOPATH": "$HOME/gopath"}, rec, "systemctl")
	home, _ := h.home()
	expected := filepath.Join(home, "gobin", "ihmtd")
	hint := "go install ./daemon/cmd/ihmtd ./shim/cmd/ihmt-mcp ./client/cmd/ihmt"

	code, out, errb := runCLI(t, "service", "install", "--dry-run")
	if code != 1 {
		t.Errorf("dry run: exit %d, want 1", code)
	}
	if !strings.Contains(out, "| ExecStart="+expected+" -data ") || !strings.Contains(out, "ihmtd is not installed") || !strings.Contains(out, "fix: install all three") {
		t.Errorf("dry run:\n%s", out)
	}
	for _, want := range []string{"warning: ihmtd was not found", "The unit uses " + expected, "the real run refuses until ihmtd is installed", hint, "$(go env GOPATH)/bin"} {
		if !strings.Contains(errb, want) {
			t.Errorf("dry run: stderr does not say %q:\n%s", want, errb)
		}
	}

	rec.ran = nil
	code, out, errb = runCLI(t, "service", "install")
	if code != 1 || !strings.Contains(errb, "ihmtd is not installed") || !strings.Contains(errb, hint) || !strings.Contains(errb, "must be on PATH") {
		t.Errorf("install: exit %d: %s%s", code, out, errb)
	}
	if len(rec.ran) != 0 {
		t.Errorf("a refused install ran %q", rec.commands())
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "systemd", "user", "ihmtd.service")); err == nil {
		t.Error("a refused install wrote the unit")
	}

	os.WriteFile(filepath.Join(bin, "ihmtd"), []byte("#!/bin/sh\n"), 0o755)
	code, out, errb = runCLI(t, "service", "install", "--dry-run")
	if code != 0 || errb != "" || !strings.Contains(out, "| ExecStart="+filepath.Join(bin, "ihmtd")+" -data ") {
		t.Errorf("with ihmtd beside ihmt: exit %d: %s%s", code, out, errb)
	}
}

// TestServiceLaunchdDryRun: on macOS the plan is a LaunchAgent and
// launchctl bootstrap / kickstart.
func TestServiceLaunchdDryRun(t *testing.T) {
	bin := fakeBinDir(t, map[string]string{"ihmtd": "exit 0"})
	rec := &recorder{}
	h := testHost(t, bin, nil, rec, "launchctl")
	h.goos = "darwin"
	home, _ := h.home()
	code, out, errb := runCLI(t, "service", "install", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	plist := filepath.Join(home, "Library", "LaunchAgents", "dev.ihmt.ihmtd.plist")
	for _, want := range []string{
		"would write:  " + plist,
		"<string>" + filepath.Join(bin, "ihmtd") + "</string>",
		"<string>" + filepath.Join(home, "Library", "Application Support", "ihmt", "ihmtd.sock") + "</string>",
		"launchctl bootstrap gui/",
		"launchctl kickstart -k gui/",
		"here:         the real run would work (asked whether launchctl is installed)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run does not show %q:\n%s", want, out)
		}
	}
	if len(rec.ran) != 0 {
		t.Errorf("a dry run ran %q", rec.commands())
	}

	// Without launchctl, the dry run says the real run would fail.
	h.lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	code, out, _ = runCLI(t, "service", "install", "--dry-run")
	if code != 1 || !strings.Contains(out, "the real run would fail") || !strings.Contains(out, "launchctl is not installed") || !strings.Contains(out, "on demand") {
		t.Errorf("without launchctl: exit %d:\n%s", code, out)
	}
}

package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// binDirWith links the built binaries into a fresh directory, with some
// replaced by stub scripts.
func binDirWith(t *testing.T, stubs map[string]string) string {
	t.Helper()
	built := testenv.Built(t)
	dir := fakeBinDir(t, stubs)
	for _, name := range []string{"ihmt", "ihmtd", "ihmt-mcp"} {
		if _, stubbed := stubs[name]; !stubbed {
			if err := os.Symlink(filepath.Join(built.Dir, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

type doctorReport struct {
	OK     bool
	Checks []check
}

func runDoctor(t *testing.T) (int, doctorReport, string) {
	t.Helper()
	code, out, errb := runCLI(t, "doctor", "--json")
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: exit %d, %v\n%s%s", code, err, out, errb)
	}
	_, text, _ := runCLI(t, "doctor")
	return code, r, text
}

func (r doctorReport) find(name string) check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return check{}
}

// TestDoctorBrokenSetup: every planted problem is named, with a fix, and
// doctor exits non-zero.
func TestDoctorBrokenSetup(t *testing.T) {
	// ihmtd claims another version.
	bin := binDirWith(t, map[string]string{"ihmtd": "echo ihmtd 9.9.9"})
	h := testHost(t, bin, map[string]string{"IHMT_HOME": "$HOME/data", "IHMT_SOCKET": "$HOME/run/ihmtd.sock"}, &recorder{})
	home, _ := h.home()
	// The socket directory is open to everyone, and holds a stale socket.
	run := filepath.Join(home, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(run, 0o755)
	testenv.StaleSocket(t, filepath.Join(run, "ihmtd.sock"))
	// Codex is set up here, but IHMT is not registered with it.
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte("model = \"o3\"\n"), 0o600)

	code, r, text := runDoctor(t)
	if code == 0 || r.OK {
		t.Errorf("doctor passed a broken setup:\n%s", text)
	}
	for _, want := range []struct{ name, status, finding, fix string }{
		{"ihmtd", checkFail, "version 9.9.9", "go install"},
		{"socket directory", checkFail, "mode 0755", "chmod 700 " + run},
		{"daemon", checkWarn, "stale socket", "ihmt daemon start"},
		{"codex", checkWarn, "not registered", "ihmt mcp install --client codex"},
		{"agents", checkFail, "no agent has IHMT registered", "ihmt mcp install"},
	} {
		c := r.find(want.name)
		if c.Status != want.status || !strings.Contains(c.Finding, want.finding) || !strings.Contains(c.Fix, want.fix) {
			t.Errorf("check %q = %+v; want %s mentioning %q, fix %q", want.name, c, want.status, want.finding, want.fix)
		}
	}
	// Readable output names them too.
	for _, want := range []string{"FAIL  ihmtd", "stale socket", "fix: chmod 700"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

// TestDoctorHealthySetup: the positive control — real binaries, a real
// daemon, every agent registered — passes.
func TestDoctorHealthySetup(t *testing.T) {
	bin := binDirWith(t, nil)
	h := testHost(t, bin, map[string]string{"IHMT_HOME": "$HOME/data", "IHMT_SOCKET": "$HOME/run/ihmtd.sock"}, &recorder{})
	home, _ := h.home()
	sock := filepath.Join(home, "run", "ihmtd.sock")
	daemon := exec.Command(filepath.Join(bin, "ihmtd"), "-data", filepath.Join(home, "data"), "-socket", sock)
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		daemon.Process.Kill()
		daemon.Wait()
	})
	c, err := client.New(client.Options{Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testenv.Context(t)
	for c.Ping(ctx) != nil {
		if ctx.Err() != nil {
			t.Fatal("the daemon did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, cl := range []string{"claude", "codex", "opencode"} {
		if code, out, errb := runCLI(t, "mcp", "install", "--client", cl); code != 0 {
			t.Fatalf("mcp install %s: %s%s", cl, out, errb)
		}
	}

	code, r, text := runDoctor(t)
	if code != 0 || !r.OK {
		t.Errorf("doctor failed a healthy setup (exit %d):\n%s", code, text)
	}
	for _, name := range []string{"ihmt", "ihmtd", "ihmt-mcp", "agent environment", "daemon", "socket directory", "store", "lock", "service", "claude", "codex", "opencode"} {
		if c := r.find(name); c.Status != checkOK {
			t.Errorf("check %q = %+v, want ok", name, c)
		}
	}
	if c := r.find("lock"); !strings.Contains(c.Finding, "held by the serving ihmtd") {
		t.Errorf("lock: %+v", c)
	}

	// A registration that does not pass the IHMT_SOCKET in effect is the
	// kind of difference that splits agents across daemons.
	cfg := filepath.Join(home, ".codex", "config.toml")
	data, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(data), "IHMT_SOCKET", "IHMT_SOCKET_OLD", 1)), 0o600)
	if code, r, text := runDoctor(t); code == 0 || !strings.Contains(r.find("codex").Finding, "IHMT_SOCKET="+sock) {
		t.Errorf("a registration without IHMT_SOCKET passed:\n%s", text)
	}
}

// TestDoctorAgentInUse: after an install and an uninstall on a machine
// without the client, only IHMT's backups remain in its directory, and
// doctor does not call the client installed; its CLI on PATH, or a file of
// its own, does (the positive controls, on the same home).
func TestDoctorAgentInUse(t *testing.T) {
	own := map[string]string{
		"claude":   ".claude/settings.json",
		"codex":    ".codex/auth.json",
		"opencode": ".local/share/opencode/auth.json",
	}
	for _, cl := range []string{"claude", "codex", "opencode"} {
		t.Run(cl, func(t *testing.T) {
			bin := fakeBinDir(t, map[string]string{"ihmt-mcp": "exit 0"})
			h := testHost(t, bin, nil, &recorder{})
			home, _ := h.home()
			for _, args := range [][]string{{"install"}, {"uninstall"}, {"install"}, {"uninstall"}} {
				if code, out, errb := runCLI(t, "mcp", args[0], "--client", cl); code != 0 {
					t.Fatalf("mcp %s: exit %d: %s%s", args[0], code, out, errb)
				}
			}
			agentCheck := func() check {
				d := &doctor{e: &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}, h: h, ctx: context.Background()}
				d.agents()
				for _, c := range d.checks {
					if c.Name == cl {
						return c
					}
				}
				t.Fatalf("no %s check in %+v", cl, d.checks)
				return check{}
			}
			if c := agentCheck(); c.Status != checkOK || !strings.Contains(c.Finding, "not in use here") {
				t.Errorf("only IHMT's backups: %+v", c)
			}

			h.lookPath = func(name string) (string, error) {
				if name == cl {
					return "/usr/local/bin/" + cl, nil
				}
				return "", exec.ErrNotFound
			}
			if c := agentCheck(); c.Status != checkWarn || !strings.Contains(c.Finding, "installed here (/usr/local/bin/"+cl+")") || c.Fix != "ihmt mcp install --client "+cl {
				t.Errorf("its CLI on PATH: %+v", c)
			}

			h.lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
			path := filepath.Join(home, own[cl])
			os.MkdirAll(filepath.Dir(path), 0o700)
			os.WriteFile(path, []byte("{}"), 0o600)
			if c := agentCheck(); c.Status != checkWarn || !strings.Contains(c.Finding, "in use here ("+path+" exists)") {
				t.Errorf("with %s: %+v", path, c)
			}
		})
	}
}

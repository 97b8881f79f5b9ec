package paths

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// env turns a map into a getenv; a missing key reads as "", like os.Getenv.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// testUID is the uid the table tests resolve for: /run/user/1000 is its
// login runtime directory.
const testUID = 1000

func runUser(ok bool) func(string, int) bool {
	return func(string, int) bool { return ok }
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		goos      string
		runUserOK bool
		want      Paths
	}{
		{
			name:      "linux systemd session",
			env:       map[string]string{"HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1000"},
			goos:      "linux",
			runUserOK: true,
			want:      Paths{Data: "/home/u/.local/share/ihmt", Socket: "/run/user/1000/ihmt/ihmtd.sock"},
		},
		{
			// Codex strips XDG_RUNTIME_DIR; /run/user/<uid> must give the same socket.
			name:      "linux codex environment",
			env:       map[string]string{"HOME": "/home/u", "PATH": "/usr/bin", "USER": "u"},
			goos:      "linux",
			runUserOK: true,
			want:      Paths{Data: "/home/u/.local/share/ihmt", Socket: "/run/user/1000/ihmt/ihmtd.sock"},
		},
		{
			name: "linux no login runtime dir",
			env:  map[string]string{"HOME": "/home/u"},
			goos: "linux",
			want: Paths{Data: "/home/u/.local/share/ihmt", Socket: "/home/u/.local/state/ihmt/ihmtd.sock"},
		},
		{
			// Ignored so that an agent that strips it (Codex) and one that
			// does not start daemons on the same store.
			name: "linux XDG_DATA_HOME is ignored",
			env:  map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/data/u/"},
			goos: "linux",
			want: Paths{Data: "/home/u/.local/share/ihmt", Socket: "/home/u/.local/state/ihmt/ihmtd.sock"},
		},
		{
			name:      "linux relative XDG variables are ignored",
			env:       map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "data", "XDG_RUNTIME_DIR": "run"},
			goos:      "linux",
			runUserOK: true,
			want:      Paths{Data: "/home/u/.local/share/ihmt", Socket: "/run/user/1000/ihmt/ihmtd.sock"},
		},
		{
			name: "linux XDG_STATE_HOME is ignored",
			env:  map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/state"},
			goos: "linux",
			want: Paths{Data: "/home/u/.local/share/ihmt", Socket: "/home/u/.local/state/ihmt/ihmtd.sock"},
		},
		{
			name:      "overrides win and need no HOME",
			env:       map[string]string{"IHMT_HOME": "/srv/ihmt/", "IHMT_SOCKET": "/tmp/ihmt-1000/s.sock", "XDG_RUNTIME_DIR": "/run/user/1000"},
			goos:      "linux",
			runUserOK: true,
			want:      Paths{Data: "/srv/ihmt", Socket: "/tmp/ihmt-1000/s.sock"},
		},
		{
			name: "IHMT_HOME and XDG_RUNTIME_DIR need no HOME",
			env:  map[string]string{"IHMT_HOME": "/d/ihmt", "XDG_RUNTIME_DIR": "/r"},
			goos: "linux",
			want: Paths{Data: "/d/ihmt", Socket: "/r/ihmt/ihmtd.sock"},
		},
		{
			name: "freebsd follows the linux rules",
			env:  map[string]string{"HOME": "/home/u", "XDG_RUNTIME_DIR": "/var/run/user/1000"},
			goos: "freebsd",
			want: Paths{Data: "/home/u/.local/share/ihmt", Socket: "/var/run/user/1000/ihmt/ihmtd.sock"},
		},
		{
			name:      "darwin ignores XDG and /run/user",
			env:       map[string]string{"HOME": "/Users/u", "XDG_DATA_HOME": "/d", "XDG_RUNTIME_DIR": "/r"},
			goos:      "darwin",
			runUserOK: true,
			want: Paths{
				Data:   "/Users/u/Library/Application Support/ihmt",
				Socket: "/Users/u/Library/Application Support/ihmt/ihmtd.sock",
			},
		},
		{
			name: "darwin overrides",
			env:  map[string]string{"IHMT_HOME": "/v/ihmt", "IHMT_SOCKET": "/tmp/i.sock"},
			goos: "darwin",
			want: Paths{Data: "/v/ihmt", Socket: "/tmp/i.sock"},
		},
		// The longest sockets that fit; a byte more is refused (see
		// TestResolveRefuses).
		{
			name: "linux socket at the limit",
			env:  map[string]string{"HOME": "/h", "IHMT_SOCKET": "/" + strings.Repeat("s", MaxSocketPathLinux-1)},
			goos: "linux",
			want: Paths{Data: "/h/.local/share/ihmt", Socket: "/" + strings.Repeat("s", MaxSocketPathLinux-1)},
		},
		{
			name: "darwin socket at the limit",
			env:  map[string]string{"HOME": "/Users/" + strings.Repeat("x", 52)},
			goos: "darwin",
			want: Paths{
				Data:   "/Users/" + strings.Repeat("x", 52) + "/Library/Application Support/ihmt",
				Socket: "/Users/" + strings.Repeat("x", 52) + "/Library/Application Support/ihmt/ihmtd.sock",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := resolve(env(tt.env), tt.goos, testUID, runUser(tt.runUserOK))
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if got != tt.want {
				t.Errorf("resolve =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

// TestResolveRefuses: an environment resolve cannot place the data or the
// socket in gives an error that names the variable at fault and the way out.
func TestResolveRefuses(t *testing.T) {
	long := "/home/" + strings.Repeat("x", 120)
	tests := []struct {
		name    string
		env     map[string]string
		goos    string
		wantErr []string // substrings the error must contain
	}{
		{
			name:    "relative IHMT_HOME",
			env:     map[string]string{"HOME": "/home/u", "IHMT_HOME": "ihmt"},
			goos:    "linux",
			wantErr: []string{"IHMT_HOME", `"ihmt"`, "absolute path"},
		},
		{
			name:    "relative IHMT_SOCKET",
			env:     map[string]string{"HOME": "/home/u", "IHMT_SOCKET": "./s.sock"},
			goos:    "darwin",
			wantErr: []string{"IHMT_SOCKET", `"./s.sock"`, "absolute path"},
		},
		{
			name:    "no HOME for data",
			env:     map[string]string{"XDG_RUNTIME_DIR": "/r"},
			goos:    "linux",
			wantErr: []string{"HOME is not set", "IHMT_HOME"},
		},
		{
			name:    "no HOME for socket",
			env:     map[string]string{"IHMT_HOME": "/d"},
			goos:    "linux",
			wantErr: []string{"HOME is not set", "IHMT_SOCKET"},
		},
		{
			name:    "no HOME on darwin",
			env:     map[string]string{},
			goos:    "darwin",
			wantErr: []string{"HOME is not set"},
		},
		{
			name:    "relative HOME",
			env:     map[string]string{"HOME": "home"},
			goos:    "linux",
			wantErr: []string{"HOME", `"home"`, "not an absolute path"},
		},
		{
			name:    "linux socket too long",
			env:     map[string]string{"HOME": long},
			goos:    "linux",
			wantErr: []string{long + "/.local/state/ihmt/ihmtd.sock", "155 bytes", "107 bytes", "set IHMT_SOCKET"},
		},
		{
			name:    "darwin socket too long",
			env:     map[string]string{"HOME": "/Users/" + strings.Repeat("x", 53)},
			goos:    "darwin",
			wantErr: []string{"104 bytes", "103 bytes", "set IHMT_SOCKET"},
		},
		{
			name:    "too long override is still too long",
			env:     map[string]string{"HOME": "/h", "IHMT_SOCKET": "/" + strings.Repeat("s", MaxSocketPathLinux)},
			goos:    "linux",
			wantErr: []string{"108 bytes", "107 bytes", "set IHMT_SOCKET"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := resolve(env(tt.env), tt.goos, testUID, runUser(false))
			if err == nil {
				t.Fatalf("resolve = %+v, want an error", got)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

// TestResolveChecksRunUserForUID pins which directory the injected check is
// asked about, since the tests above stub its answer.
func TestResolveChecksRunUserForUID(t *testing.T) {
	var gotDir string
	var gotUID int
	_, err := resolve(env(map[string]string{"HOME": "/h"}), "linux", 1234, func(dir string, uid int) bool {
		gotDir, gotUID = dir, uid
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	if gotDir != "/run/user/1234" || gotUID != 1234 {
		t.Errorf("checked (%q, %d), want (\"/run/user/1234\", 1234)", gotDir, gotUID)
	}
}

func TestPrivateDirOwnedBy(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix ownership on windows")
	}
	uid := os.Getuid()
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		uid   int
		want  bool
	}{
		{"private dir", mkdir(0o700), uid, true},
		{"other uid", mkdir(0o700), uid + 1, false},
		{"group readable", mkdir(0o750), uid, false},
		{"missing", func(*testing.T, string) {}, uid, false},
		{"regular file", func(t *testing.T, p string) {
			if err := os.WriteFile(p, nil, 0o700); err != nil {
				t.Fatal(err)
			}
		}, uid, false},
		{"symlink to private dir", func(t *testing.T, p string) {
			target := p + "-target"
			mkdir(0o700)(t, target)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}, uid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "run")
			tt.setup(t, p)
			if got := privateDirOwnedBy(p, tt.uid); got != tt.want {
				t.Errorf("privateDirOwnedBy = %v, want %v", got, tt.want)
			}
		})
	}
}

func mkdir(perm os.FileMode) func(*testing.T, string) {
	return func(t *testing.T, p string) {
		if err := os.Mkdir(p, perm); err != nil {
			t.Fatal(err)
		}
		// Mkdir is subject to the umask; set the mode we mean to test.
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPathsMethods(t *testing.T) {
	p := Paths{Data: "/d/ihmt", Socket: "/r/ihmt/ihmtd.sock"}
	if got := p.RuntimeDir(); got != "/r/ihmt" {
		t.Errorf("RuntimeDir = %q", got)
	}
	if got := p.LockFile(); got != "/d/ihmt/ihmtd.lock" {
		t.Errorf("LockFile = %q", got)
	}
}

func TestDefaultMatchesResolve(t *testing.T) {
	want, wantErr := Resolve(os.Getenv, runtime.GOOS, os.Getuid())
	got, err := Default()
	if got != want || (err == nil) != (wantErr == nil) {
		t.Errorf("Default = %+v, %v; Resolve = %+v, %v", got, err, want, wantErr)
	}
}

// Package paths is the one place that knows where IHMT keeps its store and
// where the daemon's socket lives — and, for a client before it dials,
// whose that socket is and whether anyone listens on it (socket.go).
//
// The daemon (ihmtd), the MCP shim (ihmt-mcp) and the CLI (ihmt) all call
// [Default], and they must get the same socket path even though they inherit
// different environments: Codex, for example, passes only HOME, PATH, USER,
// SHELL, LANG, TERM, TMPDIR and TZ to MCP servers, so a Codex-launched shim
// never sees XDG_RUNTIME_DIR while a systemd-started daemon does. The rules
// below are chosen so that both still arrive at the same answer.
//
// Data directory, first match wins:
//
//  1. $IHMT_HOME (must be absolute)
//  2. Linux and other Unix: $HOME/.local/share/ihmt
//  3. macOS: $HOME/Library/Application Support/ihmt
//
// XDG_DATA_HOME is deliberately ignored, like XDG_STATE_HOME below: a daemon
// started on demand inherits the environment of whichever agent started it,
// and Codex strips XDG variables, so honouring it would give a user who sets
// it two stores depending on which agent happened to start the daemon.
// IHMT_HOME is the one override; set it in every agent's MCP environment.
//
// Socket, first match wins:
//
//  1. $IHMT_SOCKET (must be absolute)
//  2. Linux and other Unix:
//     a. $XDG_RUNTIME_DIR/ihmt/ihmtd.sock if XDG_RUNTIME_DIR is absolute
//     b. /run/user/<uid>/ihmt/ihmtd.sock if /run/user/<uid> is a directory
//     owned by uid with mode 0700 — this is what systemd sets
//     XDG_RUNTIME_DIR to, so a process without the variable still agrees
//     with one that has it
//     c. $HOME/.local/state/ihmt/ihmtd.sock
//  3. macOS: $HOME/Library/Application Support/ihmt/ihmtd.sock, which
//     depends on HOME alone (macOS has no XDG_RUNTIME_DIR). The path
//     contains a space: quote it in shell commands.
//
// Fallback c deliberately ignores XDG_STATE_HOME: it is as easily stripped
// as XDG_RUNTIME_DIR, and honouring it would bring back the disagreement the
// rules exist to prevent.
//
// Resolving costs a few environment reads and, off macOS, one stat of
// /run/user/<uid>. What the rules cannot do is reconcile overrides: a
// process that sees IHMT_HOME or IHMT_SOCKET and one that does not get
// different answers, so an override must be set for the daemon, the CLI
// and every agent's MCP server alike. A socket path longer than a Unix
// socket allows (MaxSocketPathLinux, MaxSocketPathDarwin) is an error
// rather than a path that fails later.
package paths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// Usable lengths of a Unix socket path, in bytes. sun_path is 108 bytes on
// Linux and 104 on macOS and the BSDs; one byte goes to the terminating NUL
// that C clients (grpcurl, socat) add, so a longer path either fails to bind
// or is silently truncated by some client.
const (
	MaxSocketPathLinux  = 107
	MaxSocketPathDarwin = 103
)

// Paths holds the resolved locations. The zero value is not useful; get one
// from [Default] or [Resolve].
type Paths struct {
	Data   string // the store directory
	Socket string // the daemon's Unix socket
}

// RuntimeDir is the directory holding the socket; the daemon creates it with
// mode 0700 before listening.
func (p Paths) RuntimeDir() string { return filepath.Dir(p.Socket) }

// LockFile is the daemon's flock. It lives with the data, not the socket,
// because the lock protects the store: two daemons that disagreed about the
// socket must still not open the same store.
func (p Paths) LockFile() string { return filepath.Join(p.Data, "ihmtd.lock") }

// Default resolves the paths for the current process.
func Default() (Paths, error) {
	return Resolve(os.Getenv, runtime.GOOS, os.Getuid())
}

// Resolve applies the rules in the package comment to an environment, an
// operating system (a GOOS value) and a uid. It touches the file system only
// to check /run/user/<uid> on non-macOS systems.
func Resolve(getenv func(string) string, goos string, uid int) (Paths, error) {
	return resolve(getenv, goos, uid, privateDirOwnedBy)
}

// resolve is Resolve with the /run/user/<uid> check injected, so tests can
// exercise every branch without a systemd login session and without mutating
// package state (which would rule out parallel tests).
func resolve(getenv func(string) string, goos string, uid int, runUserOK func(dir string, uid int) bool) (Paths, error) {
	r := resolver{getenv: getenv}
	var p Paths
	var err error
	if p.Data, err = r.data(goos); err != nil {
		return Paths{}, err
	}
	if p.Socket, err = r.socket(goos, uid, runUserOK); err != nil {
		return Paths{}, err
	}
	if limit := maxSocketPath(goos); len(p.Socket) > limit {
		return Paths{}, fmt.Errorf("socket path %q is %d bytes, longer than the %d bytes a Unix socket path may have on %s; set IHMT_SOCKET to a shorter absolute path (in the environment of the daemon, the CLI and the MCP shim alike)",
			p.Socket, len(p.Socket), limit, goos)
	}
	return p, nil
}

type resolver struct {
	getenv func(string) string
}

func (r resolver) data(goos string) (string, error) {
	if dir, ok, err := r.override("IHMT_HOME"); ok || err != nil {
		return dir, err
	}
	if goos == "darwin" {
		return r.underHome("IHMT_HOME", "Library", "Application Support", "ihmt")
	}
	return r.underHome("IHMT_HOME", ".local", "share", "ihmt")
}

func (r resolver) socket(goos string, uid int, runUserOK func(string, int) bool) (string, error) {
	if sock, ok, err := r.override("IHMT_SOCKET"); ok || err != nil {
		return sock, err
	}
	if goos == "darwin" {
		return r.underHome("IHMT_SOCKET", "Library", "Application Support", "ihmt", "ihmtd.sock")
	}
	if dir, ok := r.absolute("XDG_RUNTIME_DIR"); ok {
		return filepath.Join(dir, "ihmt", "ihmtd.sock"), nil
	}
	if run := "/run/user/" + strconv.Itoa(uid); runUserOK(run, uid) {
		return filepath.Join(run, "ihmt", "ihmtd.sock"), nil
	}
	return r.underHome("IHMT_SOCKET", ".local", "state", "ihmt", "ihmtd.sock")
}

// override reads one of our own variables. Unlike the XDG variables, which
// the XDG spec says to ignore when relative, a relative override is an error:
// the user asked for something specific, and the daemon, shim and CLI run in
// different working directories, so silently ignoring it or resolving it
// against the current directory would each give them different answers.
func (r resolver) override(name string) (string, bool, error) {
	v := r.getenv(name)
	if v == "" {
		return "", false, nil
	}
	if !filepath.IsAbs(v) {
		return "", false, fmt.Errorf("%s is %q, a relative path; set it to an absolute path, since the daemon, the CLI and the MCP shim run in different working directories", name, v)
	}
	return filepath.Clean(v), true, nil
}

// absolute reads an XDG variable, treating a relative value as unset, as the
// XDG Base Directory spec requires.
func (r resolver) absolute(name string) (string, bool) {
	v := r.getenv(name)
	if v == "" || !filepath.IsAbs(v) {
		return "", false
	}
	return filepath.Clean(v), true
}

// underHome joins elem onto $HOME. HOME is required only when a default
// needs it, so a fully overridden environment works without it; override
// names the variable that would make HOME unnecessary.
func (r resolver) underHome(override string, elem ...string) (string, error) {
	home := r.getenv("HOME")
	if home == "" {
		return "", errors.New("HOME is not set; set HOME, or set " + override + " to an absolute path")
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("HOME is %q, not an absolute path; set HOME to your home directory, or set %s to an absolute path", home, override)
	}
	return filepath.Join(append([]string{home}, elem...)...), nil
}

// maxSocketPath is the usable sun_path length for goos. Anything that is not
// Linux gets the smaller BSD limit, which is safe everywhere.
func maxSocketPath(goos string) int {
	switch goos {
	case "linux", "android":
		return MaxSocketPathLinux
	default:
		return MaxSocketPathDarwin
	}
}

// Package unitfile installs ihmtd as the user's service — a systemd user
// unit on Linux, a launchd LaunchAgent on macOS — from the templates in
// package deploy, and asks the service manager about it. (It is named for
// the file it writes, not "service", which is the daemon's gRPC service.)
//
// Everything is planned before anything is done: a [Plan] lists every file
// with its full content and every command, so `ihmt service install
// --dry-run` can print exactly what [Config.Apply] would do. Commands run
// through a [Runner], so tests record them instead of touching the real
// service manager.
package unitfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ihmt-dev/ihmt/deploy"
	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// The service managers.
const (
	Systemd = "systemd"
	Launchd = "launchd"
)

// ErrUnavailable means the service manager cannot be used here: not
// installed, or (systemd) no user instance to talk to.
var ErrUnavailable = errors.New("service manager unavailable")

// Runner runs argv in dir ("" for the current directory) and returns its
// combined output.
type Runner func(ctx context.Context, dir string, argv []string) ([]byte, error)

// Config is what the service needs to know about this machine. Nothing in
// this package reads the environment: every path derives from these fields.
type Config struct {
	GOOS     string
	Home     string // the user's home directory, absolute
	UID      int
	Daemon   string      // the ihmtd executable, absolute
	Paths    paths.Paths // the store and socket the daemon is given explicitly
	Run      Runner
	LookPath func(string) (string, error)
}

// File is one file a plan writes or removes.
type File struct {
	Path    string `json:"path"`
	Action  string `json:"action"` // create, update, unchanged, remove, absent
	Content string `json:"content,omitempty"`
}

// Command is one command a plan runs.
type Command struct {
	Args []string `json:"args"`
	// MayFail marks a command whose failure is expected in some states and
	// harmless (booting out a job that is not loaded).
	MayFail bool `json:"may_fail,omitempty"`
}

func (c Command) String() string {
	q := make([]string, len(c.Args))
	for i, a := range c.Args {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// Plan is everything an install or uninstall does, in order: Before, then
// Dirs and Files, then After.
type Plan struct {
	Manager string    `json:"manager"`
	Before  []Command `json:"before,omitempty"`
	Dirs    []string  `json:"dirs,omitempty"` // created with mode 0700 if missing
	Files   []File    `json:"files"`
	After   []Command `json:"after,omitempty"`
}

// Commands returns every command of the plan in the order it runs them.
func (p *Plan) Commands() []Command {
	return append(append([]Command(nil), p.Before...), p.After...)
}

// Manager names the service manager for c.GOOS.
func (c Config) Manager() (string, error) {
	switch c.GOOS {
	case "darwin":
		return Launchd, nil
	case "linux":
		return Systemd, nil
	}
	return "", fmt.Errorf("%w: ihmt knows no service manager for %s", ErrUnavailable, c.GOOS)
}

// File is where the service definition lives.
func (c Config) File() (string, error) {
	m, err := c.Manager()
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(c.Home) {
		return "", fmt.Errorf("the home directory %q is not absolute", c.Home)
	}
	if m == Launchd {
		return filepath.Join(c.Home, "Library", "LaunchAgents", deploy.Label+".plist"), nil
	}
	return filepath.Join(c.Home, ".config", "systemd", "user", deploy.UnitName), nil
}

// where is the service manager and the file the definition lives in.
func (c Config) where() (manager, path string, err error) {
	if manager, err = c.Manager(); err != nil {
		return "", "", err
	}
	path, err = c.File()
	return manager, path, err
}

// logFile is where launchd sends the daemon's output (journald takes it
// under systemd).
func (c Config) logFile() string {
	return filepath.Join(c.Home, "Library", "Logs", "ihmt", "ihmtd.log")
}

func (c Config) target() string { return "gui/" + strconv.Itoa(c.UID) + "/" + deploy.Label }

// Render returns the service definition install would write.
func (c Config) Render() ([]byte, error) {
	m, err := c.Manager()
	if err != nil {
		return nil, err
	}
	dc := deploy.Config{Daemon: c.Daemon, Data: c.Paths.Data, Socket: c.Paths.Socket}
	if m == Launchd {
		dc.Log = c.logFile()
		return deploy.Plist(dc)
	}
	return deploy.Unit(dc)
}

// Available reports whether the service manager can be used, and if not,
// why (wrapping ErrUnavailable). It only asks, so a dry run asks it too:
// its answer is the real run's first step.
func (c Config) Available(ctx context.Context) error {
	m, err := c.Manager()
	if err != nil {
		return err
	}
	tool := map[string]string{Systemd: "systemctl", Launchd: "launchctl"}[m]
	if _, err := c.LookPath(tool); err != nil {
		return fmt.Errorf("%w: %s is not installed here", ErrUnavailable, tool)
	}
	if m == Systemd {
		// The cheapest call that needs the user's systemd instance: without
		// a login session (containers, ssh without lingering) there is no
		// user bus, and every `systemctl --user` fails.
		if out, err := c.Run(ctx, "", []string{"systemctl", "--user", "show-environment"}); err != nil {
			return fmt.Errorf("%w: `systemctl --user` cannot reach your user service manager: %s", ErrUnavailable, firstLine(out, err))
		}
	}
	return nil
}

// InstallPlan plans writing the service definition and starting it.
func (c Config) InstallPlan() (*Plan, error) {
	m, path, err := c.where()
	if err != nil {
		return nil, err
	}
	content, err := c.Render()
	if err != nil {
		return nil, err
	}
	f := File{Path: path, Content: string(content), Action: "create"}
	if old, err := os.ReadFile(path); err == nil {
		f.Action = "update"
		if bytes.Equal(old, content) {
			f.Action = "unchanged"
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	p := &Plan{Manager: m, Files: []File{f}}
	if m == Systemd {
		if f.Action != "unchanged" {
			p.After = append(p.After, systemctl("daemon-reload"))
		}
		p.After = append(p.After, systemctl("enable", "--now", deploy.UnitName))
		if f.Action == "update" {
			// enable --now leaves a running daemon on the old definition.
			p.After = append(p.After, systemctl("restart", deploy.UnitName))
		}
		return p, nil
	}
	// launchd reads a plist only when it is bootstrapped, so a changed
	// one is booted out first (which fails, harmlessly, if not loaded).
	p.Dirs = []string{filepath.Dir(c.logFile())}
	domain := "gui/" + strconv.Itoa(c.UID)
	if f.Action == "unchanged" {
		p.After = []Command{
			{Args: []string{"launchctl", "bootstrap", domain, path}, MayFail: true}, // fails if already loaded
			{Args: []string{"launchctl", "kickstart", c.target()}},                  // starts it unless running
		}
		return p, nil
	}
	p.After = []Command{
		{Args: []string{"launchctl", "bootout", c.target()}, MayFail: true},
		{Args: []string{"launchctl", "bootstrap", domain, path}},
		{Args: []string{"launchctl", "kickstart", "-k", c.target()}},
	}
	return p, nil
}

// UninstallPlan plans stopping the service and removing its definition.
func (c Config) UninstallPlan() (*Plan, error) {
	m, path, err := c.where()
	if err != nil {
		return nil, err
	}
	f := File{Path: path, Action: "remove"}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		f.Action = "absent"
	}
	p := &Plan{Manager: m, Files: []File{f}}
	if f.Action == "absent" {
		return p, nil
	}
	if m == Systemd {
		p.Before = []Command{systemctl("disable", "--now", deploy.UnitName)}
		p.After = []Command{systemctl("daemon-reload")}
		return p, nil
	}
	p.Before = []Command{{Args: []string{"launchctl", "bootout", c.target()}, MayFail: true}}
	return p, nil
}

func systemctl(args ...string) Command {
	return Command{Args: append([]string{"systemctl", "--user"}, args...)}
}

// Apply carries out a plan. It stops at the first failure, which names the
// command and what it printed.
func (c Config) Apply(ctx context.Context, p *Plan) error {
	run := func(cmds []Command) error {
		for _, cmd := range cmds {
			out, err := c.Run(ctx, "", cmd.Args)
			if err != nil && !cmd.MayFail {
				return fmt.Errorf("%s: %s", cmd, firstLine(out, err))
			}
		}
		return nil
	}
	if err := run(p.Before); err != nil {
		return err
	}
	for _, d := range p.Dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	for _, f := range p.Files {
		switch f.Action {
		case "create", "update":
			// Readable by the service manager, writable only by the user:
			// launchd refuses a plist that others can write.
			if err := atomicfile.Write(f.Path, []byte(f.Content), 0o644); err != nil {
				return fmt.Errorf("write %s: %w", f.Path, err)
			}
		case "remove":
			if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", f.Path, err)
			}
		}
	}
	return run(p.After)
}

// Status is what the service manager says about the daemon's service.
type Status struct {
	Manager   string `json:"manager"`
	File      string `json:"file"`
	Installed bool   `json:"installed"`
	// Current: the installed file is what install would write now (same
	// binary, store and socket).
	Current bool `json:"current"`
	// Enabled: systemd's is-enabled answer; launchd: "loaded" or "not loaded".
	Enabled string `json:"enabled,omitempty"`
	// Active: systemd's is-active answer; launchd: the job's state.
	Active string `json:"active,omitempty"`
	// Problem says why the service manager could not be asked.
	Problem string `json:"problem,omitempty"`
}

// Running reports whether the service manager runs the daemon.
func (s Status) Running() bool { return s.Active == "active" || s.Active == "running" }

// Status asks about the service. An unreachable service manager is reported
// in Status.Problem, not as an error.
func (c Config) Status(ctx context.Context) (Status, error) {
	m, path, err := c.where()
	if err != nil {
		return Status{}, err
	}
	st := Status{Manager: m, File: path}
	if old, err := os.ReadFile(path); err == nil {
		st.Installed = true
		if want, err := c.Render(); err == nil && bytes.Equal(old, want) {
			st.Current = true
		}
	}
	if err := c.Available(ctx); err != nil {
		st.Problem = err.Error()
		return st, nil
	}
	if m == Systemd {
		// Both answer with one word, and exit non-zero for any answer but
		// the positive one: read the word.
		out, _ := c.Run(ctx, "", []string{"systemctl", "--user", "is-enabled", deploy.UnitName})
		st.Enabled = word(out, "not-found")
		out, _ = c.Run(ctx, "", []string{"systemctl", "--user", "is-active", deploy.UnitName})
		st.Active = word(out, "unknown")
		return st, nil
	}
	out, err := c.Run(ctx, "", []string{"launchctl", "print", c.target()})
	if err != nil {
		st.Enabled, st.Active = "not loaded", "not running"
		return st, nil
	}
	st.Enabled, st.Active = "loaded", "unknown"
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "state = "); ok {
			st.Active = strings.TrimSpace(v)
			break
		}
	}
	return st, nil
}

// word returns the first line of out if it is a single word, else def.
func word(out []byte, def string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line == "" || strings.ContainsAny(line, " \t:") {
		return def
	}
	return line
}

// firstLine is the first non-empty line a failed command printed, else its
// error.
func firstLine(out []byte, err error) string {
	for line := range strings.Lines(string(out)) {
		if s := strings.TrimSpace(line); s != "" {
			if err != nil {
				return s + " (" + err.Error() + ")"
			}
			return s
		}
	}
	if err != nil {
		return err.Error()
	}
	return "no output"
}

// ShellQuote quotes s for a POSIX shell when it needs it, so a printed
// command can be pasted.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

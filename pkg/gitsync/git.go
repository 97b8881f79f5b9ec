package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// ErrNoGit: the git command line is missing or too old.
var ErrNoGit = errors.New("git is not available")

// minGit is the oldest git sync uses: `git init -b` came in 2.28.
var minGit = [2]int{2, 28}

// Need checks that git is installed and recent enough, and returns its
// version ("2.39.5").
func Need(ctx context.Context) (string, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: sync runs the git command line, which is not on PATH: install git %d.%d or later (apt install git, brew install git) and try again", ErrNoGit, minGit[0], minGit[1])
	}
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s version: %v", ErrNoGit, path, err)
	}
	m := regexp.MustCompile(`(\d+)\.(\d+)(\.\d+)?`).FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("%w: cannot read the version of %s from %q", ErrNoGit, path, strings.TrimSpace(string(out)))
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < minGit[0] || (major == minGit[0] && minor < minGit[1]) {
		return m[0], fmt.Errorf("%w: %s is git %s; sync needs %d.%d or later", ErrNoGit, path, m[0], minGit[0], minGit[1])
	}
	return m[0], nil
}

// git runs git in dir and returns its standard output. Prompts are off:
// the daemon has no terminal, so a remote that wants a password fails with
// git's own message instead of hanging (set up an ssh key or a credential
// helper).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "LC_ALL=C",
		"GIT_SSH_COMMAND="+sshCommand())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), &gitError{args: args, msg: msg, err: err}
	}
	return out.String(), nil
}

// sshCommand keeps ssh from asking anything: the daemon cannot answer.
func sshCommand() string {
	if c := os.Getenv("GIT_SSH_COMMAND"); c != "" {
		return c
	}
	return "ssh -o BatchMode=yes"
}

type gitError struct {
	args []string
	msg  string
	err  error
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), firstLines(e.msg, 4))
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is the exit status of a failed git command, -1 for any other
// error.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " | ")
}

// Package version names the release every IHMT binary is built from.
//
// The daemon, the shim and the CLI compare their versions on every call so
// that a daemon left running across an upgrade is noticed and named, instead
// of failing in some stranger way later; [Skew] words what the person must
// restart, which depends on which side is the older.
package version

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
)

// Version is the release of this build. Release builds (scripts/release.sh)
// override it, and Commit and Date, with -ldflags:
//
//	-X github.com/ihmt-dev/ihmt/pkg/version.Version=1.2.3
//	-X github.com/ihmt-dev/ihmt/pkg/version.Commit=<git revision>
//	-X github.com/ihmt-dev/ihmt/pkg/version.Date=2026-12-07T19:00:00Z
var Version = "0.1.0-dev"

// Commit and Date are the source revision and the build's date, stamped by
// a release build; empty otherwise (see [Build] for the fallback).
var (
	Commit = ""
	Date   = ""
)

// Header is the gRPC metadata key under which each side sends its Version.
const Header = "ihmt-version"

// Build returns the commit and date of this build: the stamped ones, else
// what the Go toolchain recorded from the version control system (a `go
// install` from a checkout without -buildvcs=false), else "".
func Build() (commit, date string) {
	commit, date = Commit, Date
	if commit != "" && date != "" {
		return commit, date
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return commit, date
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && commit == "":
			commit = s.Value
		case s.Key == "vcs.time" && date == "":
			date = s.Value
		}
	}
	return commit, date
}

// Describe is the version with the commit and date when known, as the
// binaries' -version flags print it after their name:
// "1.2.3 (commit 0123456789ab, built 2026-12-07T19:00:00Z)". The version is
// always the first word, which `ihmt doctor` relies on.
func Describe() string {
	commit, date := Build()
	var extra []string
	if commit != "" {
		extra = append(extra, "commit "+short(commit))
	}
	if date != "" {
		extra = append(extra, "built "+date)
	}
	if len(extra) == 0 {
		return Version
	}
	return Version + " (" + strings.Join(extra, ", ") + ")"
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// Compare orders two versions of the form [v]MAJOR.MINOR.PATCH[-PRE][+META]
// as semantic versioning does (a pre-release sorts before its release; build
// metadata is ignored). ok is false when either does not parse, and then the
// order is unknown.
func Compare(a, b string) (order int, ok bool) {
	pa, ok1 := parse(a)
	pb, ok2 := parse(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	for i := range 3 {
		if pa.num[i] != pb.num[i] {
			return cmp.Compare(pa.num[i], pb.num[i]), true
		}
	}
	switch {
	case pa.pre == pb.pre:
		return 0, true
	case pa.pre == "":
		return 1, true
	case pb.pre == "":
		return -1, true
	}
	return comparePre(pa.pre, pb.pre), true
}

type parsed struct {
	num [3]int
	pre string
}

func parse(v string) (parsed, bool) {
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "+")
	core, pre, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return parsed{}, false
	}
	var p parsed
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return parsed{}, false
		}
		p.num[i] = n
	}
	p.pre = pre
	return p, true
}

// comparePre orders pre-release identifiers: numeric ones numerically and
// below alphanumeric ones, a longer list after its prefix.
func comparePre(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		na, errA := strconv.Atoi(as[i])
		nb, errB := strconv.Atoi(bs[i])
		switch {
		case errA == nil && errB == nil:
			if na != nb {
				return cmp.Compare(na, nb)
			}
		case errA == nil:
			return -1
		case errB == nil:
			return 1
		case as[i] != bs[i]:
			return strings.Compare(as[i], bs[i])
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// Skew says what to restart when program (this side, of version Version's
// value mine) talks to a daemon of version daemon; "" when they agree or the
// daemon's is unknown. Whoever is older is the one to restart: an older
// daemon is a service or an on-demand ihmtd left running across an upgrade;
// an older program is an agent session that started its ihmt-mcp before the
// upgrade replaced the file.
func Skew(program, mine, daemon string) string {
	if daemon == "" || daemon == mine {
		return ""
	}
	order, ok := Compare(daemon, mine)
	switch {
	case ok && order < 0:
		return fmt.Sprintf("the running ihmtd is version %s, older than this %s (%s): restart the daemon so the installed one runs — `systemctl --user restart ihmtd` (macOS: `launchctl kickstart -k gui/$(id -u)/dev.ihmt.ihmtd`) when it runs as a service, else `ihmt daemon stop` and the next call starts the installed version", daemon, program, mine)
	case ok && order > 0:
		return fmt.Sprintf("this %s is version %s, older than the running ihmtd (%s): restart it — for ihmt-mcp, start a new agent session (each session starts the installed ihmt-mcp); if %s itself was not upgraded, install all three binaries from the same release", program, mine, daemon, program)
	}
	return fmt.Sprintf("ihmtd is version %s but this %s is %s: restart the daemon (`ihmt daemon stop`; it starts again on demand) or reinstall both from one release", daemon, program, mine)
}

// Package deploy holds the service definitions that keep ihmtd running for
// a user: a systemd user unit (Linux) and a launchd LaunchAgent (macOS).
// Both are templates embedded in the ihmt binary; `ihmt service install`
// renders them with absolute paths for this machine and hands them to the
// service manager.
//
// Rendering is all this package does; installing, starting and stopping
// are the installer's. What it cannot do: other service managers (OpenRC,
// runit, Windows) get no file, and since a rendered file names absolute
// paths, moving the binaries or the store means rendering it again.
package deploy

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
)

// Names the service managers know the daemon by.
const (
	// UnitName is the systemd user unit, in ~/.config/systemd/user.
	UnitName = "ihmtd.service"
	// Label is the launchd job label; the plist is Label + ".plist" in
	// ~/Library/LaunchAgents.
	Label = "dev.ihmt.ihmtd"
)

// Config is what the service files need. Every path must be absolute: a
// service manager starts the daemon with neither the user's shell nor, for
// launchd, any expansion of ~ or $HOME.
type Config struct {
	Daemon string // the ihmtd executable
	Data   string // the store directory, passed as -data
	Socket string // the socket, passed as -socket
	Log    string // launchd only: the file ihmtd's stdout and stderr go to
}

var (
	//go:embed systemd/ihmtd.service
	unitText string
	//go:embed launchd/dev.ihmt.ihmtd.plist
	plistText string

	unitTmpl = template.Must(template.New("unit").Option("missingkey=error").Funcs(template.FuncMap{
		"exec": systemdExec,
	}).Parse(unitText))
	plistTmpl = template.Must(template.New("plist").Option("missingkey=error").Funcs(template.FuncMap{
		"xml": xmlText,
	}).Parse(plistText))
)

// Unit renders the systemd user unit.
func Unit(c Config) ([]byte, error) {
	if err := check(map[string]string{"ihmtd": c.Daemon, "store": c.Data, "socket": c.Socket}); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := unitTmpl.Execute(&b, c); err != nil {
		return nil, fmt.Errorf("render %s: %w", UnitName, err)
	}
	return b.Bytes(), nil
}

// Plist renders the launchd LaunchAgent.
func Plist(c Config) ([]byte, error) {
	if err := check(map[string]string{"ihmtd": c.Daemon, "store": c.Data, "socket": c.Socket, "log": c.Log}); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	data := struct {
		Config
		Label string
	}{c, Label}
	if err := plistTmpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("render %s.plist: %w", Label, err)
	}
	return b.Bytes(), nil
}

// check refuses paths the files could not carry faithfully.
func check(paths map[string]string) error {
	for what, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("the %s path %q is not absolute: a service manager has no working directory or shell to resolve it", what, p)
		}
		if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return fmt.Errorf("the %s path %q contains a control character", what, p)
		}
	}
	return nil
}

// systemdExec renders a command line for ExecStart. systemd expands
// specifiers (%h) and environment variables ($HOME) even inside quotes, so
// % and $ are doubled; a word with blanks, quotes or backslashes is
// double-quoted with C-style escapes.
func systemdExec(args ...string) string {
	words := make([]string, len(args))
	for i, a := range args {
		a = strings.NewReplacer("%", "%%", "$", "$$").Replace(a)
		if a == "" || strings.ContainsAny(a, " \t\"'\\;") {
			a = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(a) + `"`
		}
		words[i] = a
	}
	return strings.Join(words, " ")
}

// xmlText escapes s for an XML text node.
func xmlText(s string) (string, error) {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		return "", err
	}
	return b.String(), nil
}

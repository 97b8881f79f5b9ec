package deploy

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/daemon"
)

func testConfig(t *testing.T) Config {
	dir := t.TempDir()
	// A real executable: systemd-analyze verify checks ExecStart's binary.
	bin := filepath.Join(dir, "bin dir", "ihmtd")
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return Config{
		Daemon: bin,
		Data:   filepath.Join(dir, "share", "ihmt"),
		Socket: filepath.Join(dir, "run", "100%", "ihmtd.sock"),
		Log:    filepath.Join(dir, "Logs", "ihmt & co", "ihmtd.log"),
	}
}

func TestUnit(t *testing.T) {
	c := testConfig(t)
	unit, err := Unit(c)
	if err != nil {
		t.Fatal(err)
	}
	text := string(unit)
	var execStart string
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.Contains(line, "%h") || strings.Contains(line, "~") {
			t.Errorf("unit line %q is not absolute", line)
		}
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			execStart = strings.TrimSpace(v)
		}
	}
	// The space in the binary's directory is quoted; the % in the socket
	// path is doubled so systemd does not read it as a specifier.
	want := fmt.Sprintf(`"%s" -data %s -socket %s`, c.Daemon, c.Data, strings.ReplaceAll(c.Socket, "%", "%%"))
	if execStart != want {
		t.Errorf("ExecStart=%s\nwant       %s", execStart, want)
	}
	if strings.Contains(execStart, "idle-exit") {
		t.Error("a supervised daemon must not exit when idle")
	}
	for _, w := range []string{
		"Type=notify\n",
		"Restart=on-failure\n",
		fmt.Sprintf("RestartPreventExitStatus=%d\n", daemon.ExitLockHeld),
		"UMask=0077\n",
		"WantedBy=default.target\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("unit lacks %q", w)
		}
	}
	verifyUnit(t, unit)
}

// verifyUnit runs systemd's own checker on the rendered unit.
func verifyUnit(t *testing.T, unit []byte) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed here, so the unit is checked only by the assertions above")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, UnitName)
	if err := os.WriteFile(path, unit, 0o600); err != nil {
		t.Fatal(err)
	}
	// --user needs a runtime directory even to verify; give it a private
	// one so the check works without a login session (CI, containers).
	run := filepath.Join(dir, "xdg")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "--user", "verify", path)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+run, "SYSTEMD_LOG_COLOR=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze --user verify: %v\n%s", err, out)
	}
	// A bad value (Type=notifyx) is only a warning with exit status 0.
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, UnitName) {
			t.Errorf("systemd-analyze --user verify warns: %s", line)
		}
	}

	// Negative control: the same check refuses a unit whose binary is gone.
	var bad strings.Builder
	for line := range strings.Lines(string(unit)) {
		if strings.HasPrefix(line, "ExecStart=") {
			line = "ExecStart=/nonexistent/ihmtd\n"
		}
		bad.WriteString(line)
	}
	if err := os.WriteFile(path, []byte(bad.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(analyze, "--user", "verify", path)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+run)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("systemd-analyze accepted a unit with a missing binary:\n%s", out)
	}
}

func TestPlist(t *testing.T) {
	c := testConfig(t)
	plist, err := Plist(c)
	if err != nil {
		t.Fatal(err)
	}
	// launchd expands neither ~ nor $HOME (the comments may mention them).
	body := regexp.MustCompile(`(?s)<!--.*?-->`).ReplaceAll(plist, nil)
	if bytes.Contains(body, []byte("~")) || bytes.Contains(body, []byte("$HOME")) {
		t.Errorf("plist is not absolute:\n%s", plist)
	}
	dict := parsePlist(t, plist)
	if got := dict["Label"]; got.kind != "string" || got.text != Label {
		t.Errorf("Label = %+v", got)
	}
	args := dict["ProgramArguments"]
	want := []string{c.Daemon, "-data", c.Data, "-socket", c.Socket}
	var got []string
	for _, v := range args.items {
		got = append(got, v.text)
	}
	if args.kind != "array" || !slices.Equal(got, want) {
		t.Errorf("ProgramArguments = %q, want %q", got, want)
	}
	if dict["RunAtLoad"].kind != "true" {
		t.Errorf("RunAtLoad = %+v", dict["RunAtLoad"])
	}
	if ka := dict["KeepAlive"]; ka.kind != "dict" || ka.dict["SuccessfulExit"].kind != "false" {
		t.Errorf("KeepAlive = %+v, want {SuccessfulExit: false}", ka)
	}
	if got := dict["StandardErrorPath"].text; got != c.Log {
		t.Errorf("StandardErrorPath = %q, want %q", got, c.Log)
	}

	if plutil, err := exec.LookPath("plutil"); err == nil {
		path := filepath.Join(t.TempDir(), Label+".plist")
		if err := os.WriteFile(path, plist, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(plutil, "-lint", path).CombinedOutput(); err != nil {
			t.Errorf("plutil -lint: %v\n%s", err, out)
		}
	}
}

// TestParsePlistRejects: the structural check below is not a rubber stamp.
func TestParsePlistRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"value without key": `<plist version="1.0"><dict><string>x</string></dict></plist>`,
		"key without value": `<plist version="1.0"><dict><key>a</key></dict></plist>`,
		"unknown element":   `<plist version="1.0"><dict><key>a</key><str>x</str></dict></plist>`,
		"not a plist":       `<dict><key>a</key><string>x</string></dict>`,
		"bad integer":       `<plist version="1.0"><dict><key>a</key><integer>ten</integer></dict></plist>`,
		"unclosed":          `<plist version="1.0"><dict><key>a</key><string>x</string></dict>`,
		"key in array":      `<plist version="1.0"><array><key>a</key></array></plist>`,
	} {
		if _, err := walkPlist([]byte(doc)); err == nil {
			t.Errorf("%s: accepted %s", name, doc)
		}
	}
}

func TestRenderRefusesRelativePaths(t *testing.T) {
	c := testConfig(t)
	for _, bad := range []Config{
		{Daemon: "ihmtd", Data: c.Data, Socket: c.Socket, Log: c.Log},
		{Daemon: c.Daemon, Data: "~/.local/share/ihmt", Socket: c.Socket, Log: c.Log},
		{Daemon: c.Daemon, Data: c.Data, Socket: "/tmp/a\nExecStartPre=/bin/evil", Log: c.Log},
	} {
		if _, err := Unit(bad); err == nil {
			t.Errorf("Unit(%+v) rendered", bad)
		}
		if _, err := Plist(bad); err == nil {
			t.Errorf("Plist(%+v) rendered", bad)
		}
	}
	if _, err := Plist(Config{Daemon: c.Daemon, Data: c.Data, Socket: c.Socket}); err == nil {
		t.Error("Plist without a log path rendered")
	}
}

// pvalue is a parsed property-list value.
type pvalue struct {
	kind  string // string, integer, true, false, dict, array, ...
	text  string
	dict  map[string]pvalue
	items []pvalue
}

func parsePlist(t *testing.T, doc []byte) map[string]pvalue {
	t.Helper()
	v, err := walkPlist(doc)
	if err != nil {
		t.Fatalf("not a valid property list: %v\n%s", err, doc)
	}
	if v.kind != "dict" {
		t.Fatalf("top level is %s, want dict", v.kind)
	}
	return v.dict
}

// walkPlist checks the structure Apple's DTD gives a property list: a
// <plist> holding one value; dicts of alternating <key> and value; arrays
// of values; scalars with text only.
func walkPlist(doc []byte) (pvalue, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	start, err := nextStart(d)
	if err != nil {
		return pvalue{}, err
	}
	if start.Name.Local != "plist" {
		return pvalue{}, fmt.Errorf("root element <%s>, want <plist>", start.Name.Local)
	}
	v, end, err := readValue(d)
	if err != nil {
		return pvalue{}, err
	}
	if end || v.kind == "key" {
		return pvalue{}, fmt.Errorf("<plist> holds no value")
	}
	if _, end, err := readValue(d); err != nil || !end {
		return pvalue{}, fmt.Errorf("<plist> must hold exactly one value (err %v)", err)
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return v, nil
		}
		if err != nil {
			return pvalue{}, err
		}
		if _, ok := tok.(xml.StartElement); ok {
			return pvalue{}, fmt.Errorf("content after </plist>")
		}
	}
}

func nextStart(d *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return xml.StartElement{}, err
		}
		if s, ok := tok.(xml.StartElement); ok {
			return s, nil
		}
	}
}

// readValue reads the next value, or reports end=true at the parent's end
// element.
func readValue(d *xml.Decoder) (v pvalue, end bool, err error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return pvalue{}, false, err
		}
		switch tok := tok.(type) {
		case xml.EndElement:
			return pvalue{}, true, nil
		case xml.CharData:
			if len(bytes.TrimSpace(tok)) > 0 {
				return pvalue{}, false, fmt.Errorf("stray text %q", tok)
			}
		case xml.StartElement:
			return readElement(d, tok)
		}
	}
}

// readValues reads the values up to the parent's end element, passing each
// to fn, and stops at fn's first error.
func readValues(d *xml.Decoder, fn func(pvalue) error) error {
	for {
		item, end, err := readValue(d)
		if err != nil {
			return err
		}
		if end {
			return nil
		}
		if err := fn(item); err != nil {
			return err
		}
	}
}

func readElement(d *xml.Decoder, start xml.StartElement) (pvalue, bool, error) {
	name := start.Name.Local
	v := pvalue{kind: name}
	switch name {
	case "true", "false":
		if err := d.Skip(); err != nil {
			return v, false, err
		}
	case "string", "integer", "real", "date", "data":
		var text string
		if err := d.DecodeElement(&text, &start); err != nil {
			return v, false, err
		}
		if name == "integer" && strings.Trim(text, "-0123456789") != "" {
			return v, false, fmt.Errorf("<integer>%s</integer> is not an integer", text)
		}
		v.text = text
	case "array":
		err := readValues(d, func(item pvalue) error {
			if item.kind == "key" {
				return fmt.Errorf("<key> %q in an <array>", item.text)
			}
			v.items = append(v.items, item)
			return nil
		})
		if err != nil {
			return v, false, err
		}
	case "dict":
		v.dict = map[string]pvalue{}
		err := readValues(d, func(k pvalue) error {
			if k.kind != "key" {
				return fmt.Errorf("<dict> holds <%s> where a <key> belongs", k.kind)
			}
			val, end, err := readValue(d)
			if err != nil {
				return err
			}
			if end || val.kind == "key" {
				return fmt.Errorf("key %q has no value", k.text)
			}
			v.dict[k.text] = val
			return nil
		})
		if err != nil {
			return v, false, err
		}
	case "key":
		var text string
		if err := d.DecodeElement(&text, &start); err != nil {
			return v, false, err
		}
		v.text = text
	default:
		return v, false, fmt.Errorf("<%s> is not a property-list element", name)
	}
	return v, false, nil
}

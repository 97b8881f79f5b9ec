package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// TestProjectCommands runs the project tools from the terminal against a
// real daemon, in a directory of files that is no repository (so it is
// the project root): the map names each directory once, find-code finds
// the function by what it does, read-file prints the file whole, and each
// answers --json without enum names.
func TestProjectCommands(t *testing.T) {
	sock := startTestDaemon(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "api"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/shop\n")
	writeFile(t, filepath.Join(dir, "api", "refund.go"), "package api\n\n// Refund returns the money of an order to its buyer.\nfunc Refund(orderID string) error {\n\treturn nil\n}\n")
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n")
	t.Chdir(dir)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", "github.com/acme/shop"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("project-map", "--detail", "symbols")
	if code != 0 || strings.Count(out, "\n./\n") != 1 || !strings.Contains(out, "\napi/\n") || !strings.Contains(out, "func Refund 3-6") {
		t.Errorf("project-map: exit %d, %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, "go.mod") || !strings.Contains(out, "main.go") { // both root files, under the one "./"
		t.Errorf("project-map lacks a root file:\n%s", out)
	}
	code, out, errs = run("find-code", "return the money of an order")
	if code != 0 || !strings.HasPrefix(out, "found") || !strings.Contains(out, "api/refund.go:3-6  func Refund") {
		t.Errorf("find-code: exit %d, %s\n%s", code, errs, out)
	}
	code, out, errs = run("read-file", "main.go")
	if code != 0 || out != "package main\n\nfunc main() {}\n" || !strings.Contains(errs, "3 lines") {
		t.Errorf("read-file: exit %d, %q %q", code, out, errs)
	}
	if code, _, errs := run("read-file", "../etc/passwd"); code == 0 || errs == "" { // negative twin: outside the root
		t.Errorf("read-file outside the project: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"project-map"}, {"find-code", "refund"}, {"read-file", "main.go"}} {
		code, out, errs := run(append(args, "--json")...)
		var v any
		if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
			t.Errorf("%s --json: exit %d, %v: %q %s", args[0], code, err, out, errs)
			continue
		}
		if bad := enumNames(v, ""); len(bad) > 0 {
			t.Errorf("%s --json: enum names %v", args[0], bad)
		}
	}
}

// TestAboutWords: what a probable link is about reads as the memories
// wrote it; a word they did not write (a concept) stays as it is.
func TestAboutWords(t *testing.T) {
	p := &ihmtv1.ProbableLink{
		Old:   &ihmtv1.Memory{Content: "The session cache runs on Redis 7 on the app host."},
		New:   &ihmtv1.Memory{Content: "Redis is gone: Valkey 8 runs the session cache now."},
		About: []string{"redi", "cach", "database"},
	}
	if got := strings.Join(aboutWords(p), ", "); got != "Redis, cache, database" {
		t.Errorf("aboutWords = %q", got)
	}
}

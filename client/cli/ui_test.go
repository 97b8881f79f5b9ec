package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestUI: `ihmt ui` prints an address that answers, opens it in the
// person's browser unless told not to, says the same address again, and
// refuses a port that cannot be.
func TestUI(t *testing.T) {
	for _, args := range [][]string{{"ui", "--port", "-1"}, {"ui", "--port", "70000"}, {"ui", "extra"}} {
		var out, errb bytes.Buffer
		if code := Run(testenv.Context(t), append([]string{"--socket", "/nonexistent/ihmt-test.sock"}, args...), &out, &errb); code != exitUsage {
			t.Errorf("ihmt %q: exit %d %q, want usage", args, code, errb.String())
		}
	}
	sock := startTestDaemon(t)
	// A browser that writes down what it was asked to open.
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" > "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", "github.com/acme/shop"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errb := run("ui", "--json", "--no-browser")
	var served struct {
		URL     string `json:"url"`
		Port    any    `json:"port"`
		Started bool   `json:"started"`
		Project string `json:"project"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &served) != nil || !served.Started || served.Project != "github.com/acme/shop" {
		t.Fatalf("ihmt ui --json: exit %d %s %s", code, out, errb)
	}
	if _, isNumber := served.Port.(float64); !isNumber {
		t.Errorf("port %#v: want a JSON number", served.Port)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Error("--no-browser opened a browser")
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(served.URL)
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the printed address: %v %v", resp, err)
	}
	resp.Body.Close()

	code, out, _ = run("ui")
	if code != exitOK || !strings.Contains(out, served.URL) || !strings.Contains(out, "already served") {
		t.Errorf("ihmt ui again: exit %d %q: want the same address", code, out)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(opened); err == nil && strings.TrimSpace(string(b)) == served.URL {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the browser was not asked to open the address")
		}
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/ihmt-dev/ihmt/daemon"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// numberAsString matches a JSON string that holds only a number.
var numberAsString = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// stringNumbers lists the members of v, by path, whose value is a number
// written as a string. Ids are hex and may happen to be all digits, so
// members named for ids are not numbers and are skipped.
func stringNumbers(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "id" || strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "ids") {
				continue
			}
			out = append(out, stringNumbers(x, path+"."+k)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, stringNumbers(x, path+"[]")...)
		}
	case string:
		if numberAsString.MatchString(v) {
			out = append(out, path+" = "+`"`+v+`"`)
		}
	}
	return out
}

// TestJSONNumbersAreNumbers runs every command that answers --json against
// a real daemon and checks that no number in any answer is a string.
func TestJSONNumbersAreNumbers(t *testing.T) {
	// Positive control: protojson alone writes 64-bit counts as strings,
	// and the check sees it.
	raw, err := protojson.Marshal(&ihmtv1.StatsResponse{Memories: 126, Pid: 29859})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if got := stringNumbers(v, ""); len(got) != 2 {
		t.Fatalf("the check missed protojson's string numbers: %v in %s", got, raw)
	}

	sock := startTestDaemon(t)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", "github.com/acme/shop"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	var ids []string
	for _, text := range []string{"2024-03-11 I live in Madrid.", "2025-09-02 I live in Valencia now.", "We deploy staging with make deploy-staging."} {
		var saved struct{ ID string }
		code, out, errs := run("save", "--json", text)
		if err := json.Unmarshal([]byte(out), &saved); code != 0 || err != nil {
			t.Fatalf("save: exit %d, %v: %s %s", code, err, out, errs)
		}
		ids = append(ids, saved.ID)
	}
	doc := filepath.Join(t.TempDir(), "notes.md")
	writeFile(t, doc, "# Deploys\n\nStaging deploys run from CI on every merge to main.\n")
	commands := [][]string{
		{"status"}, {"daemon", "status"}, {"save", "I prefer table-driven tests."},
		{"search", "where do I live"}, {"get", ids[0]}, {"facts"}, {"timeline", "user::lives_in"},
		{"conflicts"}, {"log"}, {"audit", "verify"}, {"review"}, {"tree"}, {"consolidate"},
		{"ingest", doc}, {"mark-outdated", ids[2], ids[1]}, {"forget", ids[2], "--reason", "test"},
		{"restore", ids[2]},
	}
	for _, args := range commands {
		code, out, errs := run(append(args, "--json")...)
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("ihmt %s --json: exit %d, not JSON (%v): %q %s", strings.Join(args, " "), code, err, out, errs)
			continue
		}
		if bad := stringNumbers(v, ""); len(bad) > 0 {
			t.Errorf("ihmt %s --json: numbers as strings: %v", strings.Join(args, " "), bad)
		}
	}
}

// startTestDaemon runs a daemon in this process on a fresh store and
// returns its socket once it answers.
func startTestDaemon(t *testing.T) string {
	t.Helper()
	sock := testenv.Socket(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Config{Paths: paths.Paths{Data: filepath.Join(t.TempDir(), "store"), Socket: sock}, Logger: slog.New(slog.DiscardHandler)})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("daemon did not stop")
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var out, errb bytes.Buffer
		if Run(context.Background(), []string{"--socket", sock, "daemon", "status"}, &out, &errb) == exitOK {
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not serving: %s %s", out.String(), errb.String())
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

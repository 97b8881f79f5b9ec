package testenv_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestLive saves through one real shim and finds the memory through
// another of another agent; a second daemon on the same store (held by the
// first) is refused with the daemon's own words, and Stop twice is fine.
func TestLive(t *testing.T) {
	bins := testenv.Built(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := t.TempDir()
	home := filepath.Join(root, "store")
	live, err := testenv.StartLive(ctx, bins, home, filepath.Join(root, "work"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Stop()

	shims, err := live.Shims(ctx, []testenv.ShimKey{{Project: "kelpie", Agent: "codex"}, {Agent: "claude-code"}})
	if err != nil {
		t.Fatal(err)
	}
	var saved struct{ ID, Status, Project string }
	if err := shims[testenv.ShimKey{Project: "kelpie", Agent: "codex"}].Call(ctx, "save_memory", map[string]any{"content": "kelpie's metrics listen on port 9187."}, &saved); err != nil {
		t.Fatal(err)
	}
	if saved.Status != "saved" || saved.Project != "kelpie" {
		t.Fatalf("save: %+v", saved)
	}
	var found struct {
		Status  string
		Results []struct{ ID, Agent, Project string }
	}
	if err := shims[testenv.ShimKey{Agent: "claude-code"}].Call(ctx, "search_memory", map[string]any{"query": "kelpie metrics port", "scope": "all"}, &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Results) == 0 || found.Results[0].ID != saved.ID || !strings.HasPrefix(found.Results[0].Agent, "codex") {
		t.Fatalf("search: %+v, want %s by codex first", found, saved.ID)
	}
	// A tool error comes back as an error with the model's text.
	err = shims[testenv.ShimKey{Agent: "claude-code"}].Call(ctx, "search_memory", map[string]any{"query": "x", "scope": "everywhere"}, &found)
	if err == nil || !strings.Contains(err.Error(), "tool error") {
		t.Errorf("a bad scope: %v, want a tool error", err)
	}

	if second, err := testenv.StartLive(ctx, bins, home, filepath.Join(root, "work2")); err == nil {
		second.Stop()
		t.Fatal("a second daemon on a held store started")
	} else if !strings.Contains(err.Error(), "exited before serving") {
		t.Errorf("second daemon: %v", err)
	}
	if err := live.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := live.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

package main

import (
	"github.com/ihmt-dev/ihmt/pkg/testenv/shared"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args    []string
		sets    []string
		verbose bool
		disable []string
		ablate  bool
		wantErr string
	}{
		{args: nil},
		{args: []string{"x.jsonl", "-v"}, sets: []string{"x.jsonl"}, verbose: true},
		{args: []string{"-v", "x.jsonl"}, sets: []string{"x.jsonl"}, verbose: true},
		{args: []string{"a.jsonl", "-v", "b.jsonl"}, sets: []string{"a.jsonl", "b.jsonl"}, verbose: true},
		{args: []string{"-disable", "recency", "-disable", "a,b"}, disable: []string{"recency", "a", "b"}},
		{args: []string{"-ablate", "a.jsonl"}, sets: []string{"a.jsonl"}, ablate: true},
		{args: []string{"-ablate", "-disable", "x"}, wantErr: "takes no -disable"},
		{args: []string{"-ingest-repo", "a.jsonl"}, wantErr: "takes no set"},
		{args: []string{"-workers", "0"}, wantErr: "-workers 0"},
		{args: []string{"-jobs", "0"}, wantErr: "-jobs 0"},
		{args: []string{"-nope"}, wantErr: "not defined"},
	}
	for _, tt := range tests {
		cfg, err := parseFlags(tt.args)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseFlags(%q) error %v, want one containing %q", tt.args, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("parseFlags(%q): %v", tt.args, err)
		case !slices.Equal(cfg.sets, tt.sets) || cfg.verbose != tt.verbose || !slices.Equal(cfg.disable, tt.disable) || cfg.ablate != tt.ablate:
			t.Errorf("parseFlags(%q) = %+v", tt.args, cfg)
		}
	}
}

// TestDefaultSets checks the five default sets are where a bare run looks
// for them and load: CI's evaluation run depends on it. The dev set and
// the training sets live in ../shared beside the repository.
func TestDefaultSets(t *testing.T) {
	shared.Data(t) // skipped on a fresh clone alone, required under CI
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	paths := defaultSets(root)
	if got := setNames(paths); !slices.Equal(got, []string{"devset", "setA", "setB", "proxy", "blind2"}) {
		t.Errorf("default sets %q", got)
	}
	cfg := config{}
	if err := resolveSets(&cfg); err != nil {
		t.Fatal(err)
	}
	for _, p := range cfg.sets {
		s, err := loadSet(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Memories) < 100 || len(s.Questions) < 60 {
			t.Errorf("%s holds %d memories and %d questions", p, len(s.Memories), len(s.Questions))
		}
	}
	if !slices.Equal(cfg.sets, paths) {
		t.Errorf("a bare run resolved %q, want %q", cfg.sets, paths)
	}
	dev, err := loadSet(cfg.sets[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(dev.Memories) < 300 || len(dev.Questions) < 190 {
		t.Errorf("the dev set holds %d memories and %d questions", len(dev.Memories), len(dev.Questions))
	}
}

// TestResolveSetsMissing: a named set that is not there, or a default set
// whose ../shared is missing, stops the run with a message that names the
// file and, for a default set, where the sets come from. The named set
// that is there is the control.
func TestResolveSetsMissing(t *testing.T) {
	dir := t.TempDir()
	there := filepath.Join(dir, "there.jsonl")
	if err := os.WriteFile(there, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := resolveSets(&config{sets: []string{there}}); err != nil {
		t.Errorf("a set that is there: %v", err)
	}
	gone := filepath.Join(dir, "gone.jsonl")
	err := resolveSets(&config{sets: []string{there, gone}})
	if err == nil || !strings.Contains(err.Error(), "no such set file: "+gone) {
		t.Errorf("a named set that is missing: %v", err)
	}

	// A repository root with no ../shared beside it: a module of this name
	// in a temporary directory, run from there.
	root := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(root, "scripts", "eval", "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+module+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	err = resolveSets(&config{})
	for _, want := range []string{"a default set is missing", filepath.FromSlash("../shared/data/devset/devset.jsonl"), "scripts/eval/testdata/proxy.jsonl", "name the sets to run"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("default sets without ../shared: %v, want it to say %q", err, want)
		}
	}
}

func TestSetNames(t *testing.T) {
	got := setNames([]string{"a/devset.jsonl", "b/devset.jsonl", "x/setA.jsonl", "y"})
	if want := []string{"devset", "devset#2", "setA", "y"}; !slices.Equal(got, want) {
		t.Errorf("setNames = %q, want %q", got, want)
	}
}

func TestKeepDir(t *testing.T) {
	tests := []struct {
		keep string
		j    job
		want string
	}{
		{"", job{name: "setA"}, ""},
		{"/k", job{name: "setA"}, "/k/setA"},
		{"/k", job{name: "setA", off: []string{"a", "b"}}, "/k/setA.off-a+b"},
	}
	for _, tt := range tests {
		if got := tt.j.keepDir(tt.keep); got != tt.want {
			t.Errorf("keepDir(%q) of %+v = %q, want %q", tt.keep, tt.j, got, tt.want)
		}
	}
}

// TestReadSavedSignals: a kept store saved with other signals off is
// refused; the same configuration is reused (the control).
func TestReadSavedSignals(t *testing.T) {
	dir := t.TempDir()
	if err := writeSaved(dir, savedSet{SetSHA256: "s", SignalsOff: []string{"a"}, IDs: map[string]string{"x": "m1"}}); err != nil {
		t.Fatal(err)
	}
	if s, err := readSaved(dir, "s", []string{"a"}); err != nil || s.IDs["x"] != "m1" {
		t.Errorf("same configuration: %+v, %v", s, err)
	}
	if _, err := readSaved(dir, "s", nil); err == nil || !strings.Contains(err.Error(), "signals [a] off") {
		t.Errorf("other configuration: %v", err)
	}
	if _, err := readSaved(dir, "other", []string{"a"}); err == nil || !strings.Contains(err.Error(), "another set") {
		t.Errorf("other set: %v", err)
	}
}

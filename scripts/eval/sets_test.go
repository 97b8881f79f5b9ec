package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestAblateThroughRealProgramsWithAStandIn runs -ablate end to end on two
// small sets through the real shims and a real ihmtd, behind a stand-in
// that lists two signals and records the IHMT_SIGNALS_OFF each daemon
// start received. The real daemon switches nothing off, so every delta must
// be 0; what is checked is the plumbing: one fresh store per set and
// configuration, the variable unset with all on and naming the one signal
// otherwise, the per-set and pooled tables, and the JSON's numbers. The
// stand-in's signals are its own: the real daemon it runs never sees them
// (it refuses a name it does not know).
func TestAblateThroughRealProgramsWithAStandIn(t *testing.T) {
	bins := testenv.Built(t)
	dir := t.TempDir()
	record := filepath.Join(dir, "starts")
	standIn := filepath.Join(dir, "ihmtd")
	script := fmt.Sprintf(`#!/bin/sh
if [ "$1" = -signals ]; then printf 'alpha\tthe first\nbeta\tthe second\n'; exit 0; fi
echo "off=${%s-unset}" >> %q
unset %s
exec %q "$@"
`, signalsOffEnv, record, signalsOffEnv, bins.Daemon)
	if err := os.WriteFile(standIn, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	bins.Daemon = standIn

	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	personal := filepath.Join(testdataDir(root), "personal.jsonl")
	cfg := config{sets: []string{personal, personal}, workers: 4, jobs: 2, ablate: true, json: true}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, progress bytes.Buffer
	if err := runSets(ctx, cfg, bins, time.Now(), &out, &progress); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	var mr multiReport
	if err := json.Unmarshal(out.Bytes(), &mr); err != nil {
		t.Fatalf("the JSON does not parse: %v\n%s", err, out.String())
	}
	if len(mr.Sets) != 2 || mr.Sets[0].Name != "personal" || mr.Sets[1].Name != "personal#2" {
		t.Fatalf("sets %+v", mr.Sets)
	}
	// The control: every personal question passes with every signal on.
	for _, r := range mr.Sets {
		if r.Total.N != 10 || r.Total.Passed != 10 {
			t.Errorf("%s: %d of %d passed, want 10 of 10", r.Name, r.Total.Passed, r.Total.N)
		}
	}
	if mr.Pooled.Total.N != 20 || mr.Pooled.Total.Passed != 20 || mr.Pooled.Memories != 20 {
		t.Errorf("pooled %+v", mr.Pooled.Total)
	}
	if len(mr.Ablation) != 2 || mr.Ablation[0].Signal != "alpha" || mr.Ablation[1].Signal != "beta" {
		t.Fatalf("ablation %+v", mr.Ablation)
	}
	for _, row := range mr.Ablation {
		if row.Pooled.PassOn != 20 || row.Pooled.PassOff != 20 || len(row.Sets) != 2 {
			t.Errorf("%s off: %+v (the daemon switches nothing off: want no change)", row.Signal, row)
		}
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	starts := strings.Fields(string(data))
	slices.Sort(starts)
	if want := []string{"off=alpha", "off=alpha", "off=beta", "off=beta", "off=unset", "off=unset"}; !slices.Equal(starts, want) {
		t.Errorf("daemon starts %q, want %q", starts, want)
	}
	if n := strings.Count(progress.String(), "passed in"); n != 6 || !strings.Contains(progress.String(), "personal#2, with beta off: 10/10 passed") {
		t.Errorf("progress:\n%s", progress.String())
	}

	// The same run for people: the tables and the ablation's lines.
	cfg.json = false
	out.Reset()
	if err := runSets(ctx, cfg, bins, time.Now(), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"personal (", "pooled (personal, personal#2): 20 memories, 20 questions", "all on (passed)", "alpha off", "beta off"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("the output for people:\n%s", out.String())
}

// TestRunSetsDaemonFails: when a run's ihmtd does not start, the whole run
// stops with an error that names the set and the signals off and carries
// the daemon's words (the end-to-end test above is the control).
func TestRunSetsDaemonFails(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "ihmtd")
	script := `#!/bin/sh
if [ "$1" = -signals ]; then printf 'alpha\twhy\n'; exit 0; fi
echo "ihmtd: cannot open the store" >&2; exit 1
`
	if err := os.WriteFile(broken, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{sets: []string{filepath.Join(testdataDir(root), "personal.jsonl")}, workers: 1, jobs: 2, disable: []string{"alpha"}}
	var progress bytes.Buffer
	err = runSets(context.Background(), cfg, testenv.Binaries{Daemon: broken}, time.Now(), io.Discard, &progress)
	for _, want := range []string{"personal, with alpha off:", "ihmtd exited before serving", "cannot open the store"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
	if !strings.Contains(progress.String(), "[1/1] personal, with alpha off: failed") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// signalsOffEnv is the variable ihmtd reads at start: the retrieval
// signals (comma-separated names) it leaves off.
const signalsOffEnv = "IHMT_SIGNALS_OFF"

// signal is one row of the daemon's signal table as `ihmtd -signals`
// prints it.
type signal struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// listSignals asks the daemon program for its signals: `ihmtd -signals`
// prints one a line, the name, a tab, and its one line of why.
func listSignals(ctx context.Context, daemon string) ([]signal, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, daemon, "-signals")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Nothing of ours: an IHMT_ variable of the caller's must not steer it.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IHMT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(errb.String())
		if i := strings.IndexByte(why, '\n'); i >= 0 {
			why = why[:i]
		}
		return nil, fmt.Errorf("this ihmtd lists no signals (`ihmtd -signals`: %v: %s): -disable and -ablate need a daemon with the signal table", err, why)
	}
	sigs, err := parseSignals(out.String())
	if err != nil {
		return nil, fmt.Errorf("`ihmtd -signals`: %w", err)
	}
	if len(sigs) == 0 {
		return nil, fmt.Errorf("this ihmtd lists no signals (`ihmtd -signals` printed none): -disable and -ablate need a daemon with the signal table")
	}
	return sigs, nil
}

// parseSignals reads `ihmtd -signals`'s lines: "name\twhy", blank lines
// skipped. A name is one word without a comma (IHMT_SIGNALS_OFF separates
// names with commas), and no name twice.
func parseSignals(text string) ([]signal, error) {
	var out []signal
	for n, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, why, _ := strings.Cut(line, "\t")
		name, why = strings.TrimSpace(name), strings.TrimSpace(why)
		switch {
		case name == "" || strings.ContainsAny(name, ", \t"):
			return nil, fmt.Errorf("line %d %q: want a signal's name (one word, no comma), a tab, and why", n+1, line)
		case slices.ContainsFunc(out, func(s signal) bool { return s.Name == name }):
			return nil, fmt.Errorf("line %d: signal %s twice", n+1, name)
		}
		out = append(out, signal{Name: name, Why: why})
	}
	return out, nil
}

// checkDisabled refuses a name the daemon does not list (a typo would
// otherwise measure every signal on and call it off), and returns the
// names sorted, without repeats: the configuration's one spelling.
func checkDisabled(disable []string, sigs []signal) ([]string, error) {
	var known []string
	for _, s := range sigs {
		known = append(known, s.Name)
	}
	for _, d := range disable {
		if !slices.Contains(known, d) {
			return nil, fmt.Errorf("-disable %s: this ihmtd has no such signal; it has %s", d, strings.Join(known, ", "))
		}
	}
	out := slices.Clone(disable)
	slices.Sort(out)
	return slices.Compact(out), nil
}

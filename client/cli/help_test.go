package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestHelpEveryCommand walks every command and subcommand: each of the
// ways to ask for its help prints it on stdout (so `| less` shows it),
// exits 0, writes nothing on stderr, and says what the command does, how
// to call it and an example. No daemon is needed: help never connects.
func TestHelpEveryCommand(t *testing.T) {
	var names []string
	for name := range commands {
		names = append(names, name)
		if h, ok := helps[name]; !ok || h.what == "" || len(h.examples) == 0 {
			t.Errorf("command %q has no help (what it does and an example) in helps", name)
		}
		for _, sub := range helps[name].subs {
			names = append(names, name+" "+sub)
		}
	}
	slices.Sort(names)
	for name := range helps {
		if !slices.Contains(names, name) {
			t.Errorf("helps has %q, which is no command", name)
		}
	}
	if !slices.Contains(names, "daemon start") || !slices.Contains(names, "mcp install") || len(names) < 40 {
		t.Fatalf("the walk missed commands: %v", names) // positive control on the walk itself
	}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"--socket", "/nonexistent/ihmt-help.sock"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, name := range names {
		words := strings.Fields(name)
		for _, args := range [][]string{append(slices.Clone(words), "--help"), append(slices.Clone(words), "-h"), append([]string{"help"}, words...)} {
			code, out, errs := run(args...)
			h := helps[name]
			if code != exitOK || errs != "" {
				t.Errorf("ihmt %s: exit %d, stderr %q; want exit 0 and nothing on stderr", strings.Join(args, " "), code, errs)
				continue
			}
			for _, want := range []string{"ihmt " + name + " — " + h.what, "Usage: ihmt " + name, "Examples:\n  " + h.examples[0]} {
				if !strings.Contains(out, want) {
					t.Errorf("ihmt %s: help lacks %q:\n%s", strings.Join(args, " "), want, out)
				}
			}
			if len(h.subs) == 0 && name != "help" && !strings.Contains(out, "-json") {
				t.Errorf("ihmt %s: the flags listed lack --json:\n%s", strings.Join(args, " "), out)
			}
		}
	}
	// The general help, on stdout with exit 0, names every command.
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, errs := run(args...)
		if code != exitOK || errs != "" || !strings.HasPrefix(out, "ihmt — long-term memory") {
			t.Errorf("ihmt %s: exit %d, stderr %q, stdout %.60q", args[0], code, errs, out)
		}
		for name := range commands {
			if !strings.Contains(out, "\n  "+name) {
				t.Errorf("ihmt %s does not list %q", args[0], name)
			}
		}
	}
	// Negative twins: no command at all, an unknown one and an unknown
	// subcommand are usage errors on stderr, with exit 2.
	for _, args := range [][]string{nil, {"frobnicate"}, {"daemon", "restart"}, {"mcp", "frob"}, {"help", "frobnicate"}, {"save", "--frob"}} {
		code, out, errs := run(args...)
		if code != exitUsage || out != "" || errs == "" {
			t.Errorf("ihmt %q: exit %d, stdout %q, stderr %q; want exit 2 with the reason on stderr", args, code, out, errs)
		}
	}
}

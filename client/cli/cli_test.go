package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
)

func TestParseFlagsAnywhere(t *testing.T) {
	tests := []struct {
		args     []string
		wantPos  []string
		wantJSON bool
		wantDate string
	}{
		{[]string{"the", "staging", "db"}, []string{"the", "staging", "db"}, false, ""},
		{[]string{"--json", "a", "b"}, []string{"a", "b"}, true, ""},
		{[]string{"a", "b", "--json"}, []string{"a", "b"}, true, ""},
		{[]string{"a", "--date", "2024-03-11", "b"}, []string{"a", "b"}, false, "2024-03-11"},
		{[]string{"a", "--", "--json", "-5"}, []string{"a", "--json", "-5"}, false, ""},
		{[]string{"-"}, []string{"-"}, false, ""},
		{nil, nil, false, ""},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		asJSON := fs.Bool("json", false, "")
		date := fs.String("date", "", "")
		pos, err := parse(fs, tt.args)
		if err != nil {
			t.Errorf("parse(%q): %v", tt.args, err)
			continue
		}
		if fmt.Sprint(pos) != fmt.Sprint(tt.wantPos) || *asJSON != tt.wantJSON || *date != tt.wantDate {
			t.Errorf("parse(%q) = %q json=%v date=%q; want %q json=%v date=%q", tt.args, pos, *asJSON, *date, tt.wantPos, tt.wantJSON, tt.wantDate)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{nil, exitUsage, "Usage"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
		{[]string{"save"}, exitUsage, "nothing to save"},
		{[]string{"search", "--scope", "everywhere", "x"}, exitUsage, "use default, project, global or all"},
		{[]string{"save", "--scope", "nowhere", "x"}, exitUsage, "use global or project"},
		{[]string{"get"}, exitUsage, "give one memory id"},
		{[]string{"daemon", "restart"}, exitUsage, "unknown daemon command"},
		{[]string{"status", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"save", "--no-such-flag", "x"}, exitUsage, "flag provided but not defined"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"--socket", "/nonexistent/ihmt-test.sock"}, tt.args...), &out, &errb)
		if code != tt.wantCode || !strings.Contains(errb.String(), tt.wantErr) {
			t.Errorf("ihmt %q: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errb.String(), tt.wantCode, tt.wantErr)
		}
	}
	// Positive control: help succeeds and lists the commands.
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"help"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "daemon start") {
		t.Errorf("ihmt help: exit %d, %q", code, out.String())
	}
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseSignals(t *testing.T) {
	tests := []struct {
		name, text string
		want       []signal
		wantErr    string
	}{
		{"two", "recency\tnewer memories first\n\nexact_phrase\ta quoted phrase counts more\n", []signal{{"recency", "newer memories first"}, {"exact_phrase", "a quoted phrase counts more"}}, ""},
		{"no why", "recency\n", []signal{{"recency", ""}}, ""},
		{"none", "\n", nil, ""},
		{"comma in a name", "a,b\twhy\n", nil, "line 1"},
		{"space in a name", "a b\twhy\n", nil, "line 1"},
		{"twice", "a\tx\nb\ty\na\tz\n", nil, "signal a twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSignals(tt.text)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case !reflect.DeepEqual(got, tt.want):
				t.Errorf("parseSignals = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCheckDisabled(t *testing.T) {
	sigs := []signal{{Name: "recency"}, {Name: "exact_phrase"}, {Name: "home"}}
	got, err := checkDisabled([]string{"recency", "home", "recency"}, sigs)
	if err != nil || !slices.Equal(got, []string{"home", "recency"}) {
		t.Errorf("checkDisabled = %q, %v; want sorted, once each", got, err)
	}
	if _, err := checkDisabled([]string{"recncy"}, sigs); err == nil || !strings.Contains(err.Error(), "no such signal; it has recency, exact_phrase, home") {
		t.Errorf("a typo: %v", err)
	}
}

// TestListSignals runs stand-ins for ihmtd: one without -signals (a flag
// error, as today's ihmtd gives), one that lists none, one that lists two
// (the control).
func TestListSignals(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := script("old", `echo "flag provided but not defined: $1" >&2; exit 2`)
	empty := script("empty", `[ "$1" = -signals ] || exit 9`)
	two := script("two", `[ "$1" = -signals ] || exit 9; printf 'recency\tnewer first\nhome\tthe asking project first\n'`)
	for _, tt := range []struct {
		bin, wantErr string
		want         []signal
	}{
		{old, "this ihmtd lists no signals (`ihmtd -signals`: exit status 2: flag provided but not defined: -signals)", nil},
		{empty, "this ihmtd lists no signals (`ihmtd -signals` printed none)", nil},
		{two, "", []signal{{"recency", "newer first"}, {"home", "the asking project first"}}},
	} {
		got, err := listSignals(context.Background(), tt.bin)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", filepath.Base(tt.bin), err, tt.wantErr)
			}
		case err != nil || !reflect.DeepEqual(got, tt.want):
			t.Errorf("%s: %+v, %v", filepath.Base(tt.bin), got, err)
		}
	}
}

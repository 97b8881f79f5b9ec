package version

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		order int
		ok    bool
	}{
		{"1.2.3", "1.2.3", 0, true},
		{"v1.2.3", "1.2.3", 0, true},
		{"1.2.3", "1.2.4", -1, true},
		{"1.10.0", "1.9.9", 1, true},
		{"2.0.0", "10.0.0", -1, true},
		{"1.0.0-rc.1", "1.0.0", -1, true},
		{"1.0.0-rc.2", "1.0.0-rc.10", -1, true},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1, true},
		{"1.0.0-1", "1.0.0-alpha", -1, true},
		{"0.1.0-dev", "0.1.0", -1, true},
		{"1.0.0+abc", "1.0.0+def", 0, true},
		{"1.0", "1.0.0", 0, false},
		{"dev", "1.0.0", 0, false},
		{"1.x.0", "1.0.0", 0, false},
	} {
		order, ok := Compare(tc.a, tc.b)
		if order != tc.order || ok != tc.ok {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d, %v", tc.a, tc.b, order, ok, tc.order, tc.ok)
		}
		if back, _ := Compare(tc.b, tc.a); back != -tc.order {
			t.Errorf("Compare(%q, %q) = %d, want %d (the reverse)", tc.b, tc.a, back, -tc.order)
		}
	}
}

func TestSkew(t *testing.T) {
	for _, tc := range []struct {
		name, mine, daemon string
		want               []string // "" = no message
	}{
		{"same", "1.2.0", "1.2.0", nil},
		{"unknown daemon", "1.2.0", "", nil},
		{"daemon older", "1.2.0", "1.1.0", []string{"ihmtd is version 1.1.0, older than this ihmt-mcp (1.2.0)", "restart the daemon", "systemctl --user restart ihmtd", "ihmt daemon stop"}},
		{"daemon newer", "1.1.0", "1.2.0", []string{"this ihmt-mcp is version 1.1.0, older than the running ihmtd (1.2.0)", "new agent session"}},
		{"unordered", "0.1.0-dev", "main", []string{"ihmtd is version main but this ihmt-mcp is 0.1.0-dev", "ihmt daemon stop"}},
	} {
		got := Skew("ihmt-mcp", tc.mine, tc.daemon)
		if tc.want == nil {
			if got != "" {
				t.Errorf("%s: Skew = %q, want none", tc.name, got)
			}
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: Skew = %q, want it to say %q", tc.name, got, w)
			}
		}
		// Only the older side is told to restart: never both.
		if strings.Contains(got, "new agent session") && strings.Contains(got, "restart the daemon") {
			t.Errorf("%s: Skew = %q names both sides", tc.name, got)
		}
	}
}

func TestDescribe(t *testing.T) {
	defer func(c, d string) { Commit, Date = c, d }(Commit, Date)
	Commit, Date = "0123456789abcdef0123", "2026-12-07T19:00:00Z"
	if got, want := Describe(), Version+" (commit 0123456789ab, built 2026-12-07T19:00:00Z)"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if f := strings.Fields(Describe()); f[0] != Version {
		t.Errorf("Describe's first word = %q, want the version %q", f[0], Version)
	}
}

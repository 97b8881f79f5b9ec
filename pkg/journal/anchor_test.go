package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnchorCatchesACutEnd: Verify names entries cut from the end of the
// log and an emptied log, which the chain alone cannot see; a log cut and
// then reopened carries the cut in a logged entry; an anchor that lags the
// log (a crash before it was rewritten) is no problem; the untouched log
// passes.
func TestAnchorCatchesACutEnd(t *testing.T) {
	build := func(t *testing.T) (string, []byte) {
		path := filepath.Join(t.TempDir(), "log.jsonl")
		j, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 6; i++ {
			if err := j.Append([][]byte{fmt.Appendf(nil, `{"seq":%d,"op":"save"}`, i)}); err != nil {
				t.Fatal(err)
			}
		}
		j.Close()
		data, _ := os.ReadFile(path)
		return path, data
	}
	keep := func(data []byte, n int) []byte {
		return bytes.Join(bytes.SplitAfter(data, []byte("\n"))[:n], nil)
	}
	tests := []struct {
		name   string
		edit   func(path string, data []byte)
		reopen bool
		want   string // "" = no problem
	}{
		{"untouched", func(string, []byte) {}, false, ""},
		{"last two cut", func(p string, d []byte) { os.WriteFile(p, keep(d, 4), 0o600) }, false, "entries 5 to 6 were cut off"},
		{"emptied", func(p string, d []byte) { os.WriteFile(p, nil, 0o600) }, false, "the log is empty, but its anchor records 6 entries (the last, seq 6)"},
		{"cut and reopened", func(p string, d []byte) { os.WriteFile(p, keep(d, 2), 0o600) }, true, "found when the log was opened: the log ends at entry 2"},
		{"anchor lags", func(p string, d []byte) {
			os.WriteFile(AnchorPath(p), []byte(`{"entries":3,"last":"`+lastHash(d, 3)+`","seq":3}`), 0o600)
		}, false, ""},
		{"last one cut", func(p string, d []byte) { os.WriteFile(p, keep(d, 5), 0o600) }, false, "entry 6 was cut off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, data := build(t)
			tt.edit(path, data)
			if tt.reopen {
				j, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				j.Close()
			}
			rep, err := Verify(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var details []string
			for _, p := range rep.Problems {
				details = append(details, p.Detail)
			}
			switch {
			case tt.want == "" && len(rep.Problems) > 0:
				t.Errorf("problems %q, want none", details)
			case tt.want != "" && !strings.Contains(strings.Join(details, "\n"), tt.want):
				t.Errorf("problems %q, want one saying %q", details, tt.want)
			}
			if rep.Anchor != "ok" {
				t.Errorf("anchor state %q", rep.Anchor)
			}
		})
	}
}

// lastHash is the hash of line n (1-based) of data.
func lastHash(data []byte, n int) string {
	line := bytes.Split(data, []byte("\n"))[n-1]
	h, _ := Hash(line)
	return h
}

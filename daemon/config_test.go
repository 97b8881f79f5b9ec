package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/paths"
)

// TestStoreOptions: config.toml sets what it knows, and refuses an unknown
// key, a bad value or a line that is not TOML with a message that names
// the file and, where it can, the line.
func TestStoreOptions(t *testing.T) {
	tests := []struct {
		name, config string // config "": no file
		reviewAll    bool
		want         []string // substrings of the error; none: no error
	}{
		{name: "no file"},
		{name: "empty", config: "\n# nothing set\n"},
		{name: "review all", config: "review = \"all\"\n", reviewAll: true},
		{name: "review all, literal string and a comment", config: "# review every save\nreview = 'all' # for now\n", reviewAll: true},
		{name: "review flagged", config: "review = \"flagged\"\n"},
		{name: "bad review value", config: "\n\nreview = \"some\"\n", want: []string{"line 3", `review = "some"`, `use "all" or "flagged"`}},
		{name: "review as a number", config: "review = 1\n", want: []string{"line 1", `review = "1"`}},
		{name: "unknown key", config: "review = \"all\"\nreveiw = \"all\"\n", want: []string{`unknown setting "reveiw"`, "known: review"}},
		{name: "unknown table", config: "[server]\nport = 1\n", want: []string{`unknown setting "server"`}},
		{name: "not key = value", config: "review\n", want: []string{"line 1"}},
		{name: "unquoted value", config: "review = all\n", want: []string{"line 1"}},
		{name: "key set twice", config: "review = \"all\"\nreview = \"flagged\"\n", want: []string{"line 2", "review"}},
		{name: "review as a table", config: "[review]\nx = 1\n", want: []string{"review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ConfigName)
			if tt.config != "" {
				if err := os.WriteFile(path, []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opts, err := storeOptions(dir, slog.New(slog.DiscardHandler))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("storeOptions: %v", err)
				}
				if opts.ReviewAll != tt.reviewAll || opts.Facts == nil {
					t.Errorf("ReviewAll = %v, Facts %v; want %v and the built-in patterns", opts.ReviewAll, opts.Facts, tt.reviewAll)
				}
				return
			}
			if err == nil {
				t.Fatalf("storeOptions accepted %q", tt.config)
			}
			for _, w := range append([]string{path}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestSyncInterval(t *testing.T) {
	cases := []struct {
		config string
		want   time.Duration
		err    string
	}{
		{"", 0, ""},
		{"[sync]\ninterval = \"15m\"\n", 15 * time.Minute, ""},
		{"[sync]\ninterval = \"0\"\n", 0, ""},
		{"[sync]\ninterval = \"10s\"\n", 0, "at least 1m0s"},
		{"[sync]\ninterval = \"often\"\n", 0, "use a duration"},
		{"[sync]\nintervl = \"15m\"\n", 0, "unknown setting"},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		if tc.config != "" {
			if err := os.WriteFile(filepath.Join(dir, ConfigName), []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		d := &daemon{cfg: Config{Paths: paths.Paths{Data: dir}}}
		got, err := d.readSyncInterval()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.config, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.config, got, err, tc.want)
		}
	}
}

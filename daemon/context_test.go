package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/daemon/rpc"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

func TestContextSettings(t *testing.T) {
	defaults := rpc.ContextSettings{StartTokens: store.DefaultBriefTokens, PromptTokens: rpc.DefaultPromptTokens, Prompt: true}
	tests := []struct {
		name, config string
		want         rpc.ContextSettings
		err          string
	}{
		{"no file", "", defaults, ""},
		{"other settings only", `review = "all"` + "\n", defaults, ""},
		{"all three", "[context]\nstart_tokens = 1200\nprompt_tokens = 120\nprompt = false\n", rpc.ContextSettings{StartTokens: 1200, PromptTokens: 120, Prompt: false}, ""},
		{"start too small", "[context]\nstart_tokens = 20\n", rpc.ContextSettings{}, "context.start_tokens = 20: use 100 to 4000"},
		{"prompt too large", "[context]\nprompt_tokens = 9000\n", rpc.ContextSettings{}, "context.prompt_tokens = 9000: use 50 to 2000"},
		{"a misspelt key", "[context]\nprompts = false\n", rpc.ContextSettings{}, `unknown setting "context.prompts"`},
		{"a wrong type", "[context]\nprompt = \"no\"\n", rpc.ContextSettings{}, "prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(dir, ConfigName), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			d := &daemon{cfg: Config{Paths: paths.Paths{Data: dir}}}
			got, err := d.contextSettings()
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("err %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("err %v, want one saying %q", err, tt.err)
			case tt.err == "" && got != tt.want:
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	// The daemon still opens a store whose config holds the [context] table.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ConfigName), []byte("review = \"flagged\"\n[context]\nprompt = false\n"), 0o600)
	if _, err := storeOptions(dir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("storeOptions with a [context] table: %v", err)
	}
}

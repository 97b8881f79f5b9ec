package daemon

import (
	"fmt"
	"path/filepath"

	"github.com/ihmt-dev/ihmt/daemon/rpc"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// contextSettings is the [context] table of config.toml: what the agents'
// hooks inject. Unset keys keep their defaults.
type contextSettings struct {
	StartTokens  *int  `toml:"start_tokens"`
	PromptTokens *int  `toml:"prompt_tokens"`
	Prompt       *bool `toml:"prompt"`
}

// Bounds of the per-prompt budget: one memory's line at the least, a few
// at the most — a prompt's injection is paid at every prompt.
const (
	minPromptTokens = 50
	maxPromptTokens = 2000
)

// contextSettings reads the context settings from the store's config.toml
// at each call, so that a person's change applies to the next session
// without a restart. A value out of range is an error naming the file and
// the key, which the hook passes on.
func (d *daemon) contextSettings() (rpc.ContextSettings, error) {
	path := filepath.Join(d.cfg.Paths.Data, ConfigName)
	s, err := readSettings(path)
	if err != nil {
		return rpc.ContextSettings{}, err
	}
	out := rpc.ContextSettings{StartTokens: store.DefaultBriefTokens, PromptTokens: rpc.DefaultPromptTokens, Prompt: true}
	c := s.Context
	if c.StartTokens != nil {
		if n := *c.StartTokens; n < store.MinBriefTokens || n > store.MaxBriefTokens {
			return out, fmt.Errorf("%s: context.start_tokens = %d: use %d to %d", path, n, store.MinBriefTokens, store.MaxBriefTokens)
		}
		out.StartTokens = *c.StartTokens
	}
	if c.PromptTokens != nil {
		if n := *c.PromptTokens; n < minPromptTokens || n > maxPromptTokens {
			return out, fmt.Errorf("%s: context.prompt_tokens = %d: use %d to %d", path, n, minPromptTokens, maxPromptTokens)
		}
		out.PromptTokens = *c.PromptTokens
	}
	if c.Prompt != nil {
		out.Prompt = *c.Prompt
	}
	return out, nil
}

package cli

import (
	"fmt"
	"path/filepath"

	"github.com/ihmt-dev/ihmt/client/mcpconfig"
)

// The hooks half of `ihmt mcp install`: memory injected at each session
// start and with each prompt (see mcpconfig's hooks.go and `ihmt context`),
// installed by default beside the registration, left out with --no-hooks,
// and always removed by --uninstall.

// hookOf is what the hooks run: this ihmt by absolute path, with the same
// overrides as the server's registration (an agent passes its hooks its own
// environment, which need not hold them).
func hookOf(h *host, srv mcpconfig.Server) (mcpconfig.Hook, error) {
	exe := h.exe
	if !filepath.IsAbs(exe) {
		var err error
		if exe, err = h.binary("ihmt"); err != nil {
			return mcpconfig.Hook{}, err
		}
	}
	return mcpconfig.Hook{Command: exe, Env: srv.Env}, nil
}

// withHooks adds the hooks' change to an install's or an uninstall's plan.
func withHooks(p *mcpconfig.Plan, h *host, opts mcpconfig.Options, uninstall bool) error {
	var hk mcpconfig.Hook
	if !uninstall {
		var err error
		if hk, err = hookOf(h, opts.Server); err != nil {
			return err
		}
	}
	return mcpconfig.AddHooks(p, opts, hk, uninstall)
}

// printHookNotes says what a person must do for the hooks to run: Codex
// runs a new hook only once the person trusted it; Copilot CLI runs a
// repository's hooks only in a folder the person trusted, and Gemini CLI
// warns of a project's hooks (seen with Copilot CLI 1.0.102 and Gemini CLI
// 0.61.0).
func (e *env) printHookNotes(p *mcpconfig.Plan, dryRun bool) {
	if dryRun || p.Uninstall {
		return
	}
	var note string
	switch {
	case p.Client == mcpconfig.Codex:
		note = "codex: Codex runs a new or changed hook only once you trust it: start `codex`, type /hooks and trust IHMT's SessionStart and UserPromptSubmit hooks; until then `codex exec` skips them without a word (`ihmt doctor` says whether they are trusted)"
	case p.Client == mcpconfig.Copilot && p.Scope == mcpconfig.ScopeProject:
		note = "copilot: Copilot CLI runs a repository's .github/hooks only in a folder you trusted: it asks at its first start there (`copilot -p` skips them until then)"
	case p.Client == mcpconfig.Gemini && p.Scope == mcpconfig.ScopeProject:
		note = "gemini: Gemini CLI warns of a project's hooks at each start, and runs none in a folder you have not trusted"
	default:
		return
	}
	for _, c := range p.Changes {
		if c.What == "hooks" && c.Changed() {
			fmt.Fprintln(e.stdout, note)
			return
		}
	}
}

package cli

import (
	"fmt"
	"strings"

	"github.com/ihmt-dev/ihmt/client/mcpconfig"
)

// hooks checks, for each agent IHMT is registered with, the hooks that
// inject memory at each session start and prompt: there, runnable, as this
// ihmt would write them, and — for Codex, which runs a hook only once the
// person trusted it — trusted.
func (d *doctor) hooks() {
	home, err := d.h.home()
	if err != nil {
		return
	}
	menv := mcpconfig.Env{Home: home, Getenv: d.h.getenv, GOOS: d.h.goos}
	for _, cl := range mcpconfig.Clients {
		if !mcpconfig.HasHooks(cl) {
			continue
		}
		reg := mcpconfig.Inspect(menv, cl, mcpconfig.ScopeUser)
		var hk mcpconfig.Hook
		if reg.Registered {
			hk, _ = hookOf(d.h, mcpconfig.Server{Command: reg.Command, Env: reg.Env})
		}
		st := mcpconfig.InspectHooks(menv, cl, mcpconfig.ScopeUser, hk)
		name, fix := cl+" hooks", "ihmt mcp install --client "+cl
		switch {
		case st.Problem != "":
			d.add(name, checkFail, st.Problem, "")
		case !st.Installed && reg.Registered:
			d.add(name, checkWarn, "no memory hooks in "+st.Path+": sessions get memory only when the model thinks to search (ignore this if you installed with --no-hooks)", fix)
		case !st.Installed:
			// Not registered either: the registration check says so.
		case !st.Current:
			d.add(name, checkWarn, "the memory hooks in "+st.Path+" differ from what this ihmt installs (another ihmt, or other IHMT_HOME/IHMT_SOCKET)", fix)
		case cl == mcpconfig.Codex:
			d.codexTrust(name, st)
		case cl == mcpconfig.Gemini && mcpconfig.GeminiHooksOff(menv) != "":
			d.add(name, checkWarn, "hooks in "+st.Path+", but "+mcpconfig.GeminiHooksOff(menv), "remove that from ~/.gemini/settings.json, or type /hooks enable-all in gemini")
		default:
			d.add(name, checkOK, "session-start and per-prompt memory in "+st.Path, "")
		}
	}
}

// codexTrust asks Codex whether it would run IHMT's hooks.
func (d *doctor) codexTrust(name string, st mcpconfig.HookState) {
	codex, err := d.h.lookPath("codex")
	if err != nil {
		d.add(name, checkWarn, "hooks in "+st.Path+"; whether Codex trusts them is unknown (codex is not on PATH): Codex skips a hook nobody trusted", "in codex, type /hooks and trust IHMT's two hooks")
		return
	}
	hs, err := mcpconfig.CodexHooks(d.ctx, codex, d.h.cwd)
	if err != nil {
		d.add(name, checkWarn, "hooks in "+st.Path+"; could not ask Codex whether it trusts them: "+err.Error(), "")
		return
	}
	var untrusted []string
	for _, h := range hs {
		if h.TrustStatus != "trusted" || !h.Enabled {
			untrusted = append(untrusted, fmt.Sprintf("%s is %s", h.Event, map[bool]string{true: h.TrustStatus, false: "disabled"}[h.Enabled]))
		}
	}
	switch {
	case len(hs) == 0:
		d.add(name, checkWarn, "hooks in "+st.Path+", but Codex does not list them (hooks turned off in its [features]?)", "")
	case len(untrusted) > 0:
		d.add(name, checkWarn, "hooks in "+st.Path+", but Codex will skip them: "+strings.Join(untrusted, ", ")+" (codex exec skips an untrusted hook without a word)", "start `codex`, type /hooks and trust IHMT's SessionStart and UserPromptSubmit hooks")
	default:
		d.add(name, checkOK, fmt.Sprintf("session-start and per-prompt memory in %s, trusted by Codex (%d hooks)", st.Path, len(hs)), "")
	}
}

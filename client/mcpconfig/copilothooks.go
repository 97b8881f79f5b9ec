package mcpconfig

import (
	"encoding/json"
	"errors"
	"strings"
)

// Copilot CLI's hooks file: IHMT's own, in the directory Copilot CLI loads
// every *.json of (see hooks.go), in the format of GitHub's "Copilot CLI
// hooks reference": version 1, and under "hooks" a list of command hooks
// per event, each with the bash command and its timeout in seconds. The
// events are Copilot's own camelCase ones, whose input is camelCase JSON
// (sessionId, cwd, source or prompt) without the event's name, so each
// command says which event it answers with --event. A hook's stdout JSON
// "additionalContext" reaches the model: at a session start as a message
// of the conversation, with a prompt appended to it (seen with 1.0.102).

// copilotHookTimeout bounds, in seconds, how long Copilot CLI waits for a
// hook (its default is 30): ihmt answers within about three.
const copilotHookTimeout = 10

// copilotEvents are Copilot CLI's events IHMT hooks, with the --event each
// command passes.
var copilotEvents = []struct{ name, event string }{
	{"sessionStart", "start"},
	{"userPromptSubmitted", "prompt"},
}

// copilotHooksSource is the hooks file for h.
func copilotHooksSource(h Hook) string {
	hooks := object{}
	for _, ev := range copilotEvents {
		cmd := HookCommand(Copilot, h) + " --event " + ev.event
		hooks = append(hooks, field{ev.name, []object{{{"type", "command"}, {"bash", cmd}, {"timeoutSec", copilotHookTimeout}}}})
	}
	return render(object{{"version", 1}, {"hooks", hooks}}, "", "  ") + "\n"
}

// copilotHooks decodes a hooks file: each event's commands.
func copilotHooks(src []byte) (map[string][]string, bool) {
	var f struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Type string `json:"type"`
			Bash string `json:"bash"`
		} `json:"hooks"`
	}
	if json.Unmarshal(src, &f) != nil || f.Version != 1 {
		return nil, false
	}
	out := map[string][]string{}
	for ev, hs := range f.Hooks {
		for _, h := range hs {
			out[ev] = append(out[ev], h.Bash)
		}
	}
	return out, true
}

// isOurCopilotHooks reports whether src is a hooks file IHMT wrote: every
// hook in it, and at least one, runs ihmt's context command for Copilot.
func isOurCopilotHooks(src []byte) bool {
	hooks, ok := copilotHooks(src)
	if !ok || len(hooks) == 0 {
		return false
	}
	for _, cmds := range hooks {
		for _, c := range cmds {
			if !strings.Contains(c, hookMarker+Copilot) {
				return false
			}
		}
	}
	return true
}

// copilotStartCommand is what IHMT's session-start hook in src runs.
func copilotStartCommand(src []byte) string {
	hooks, _ := copilotHooks(src)
	if cmds := hooks[copilotEvents[0].name]; len(cmds) > 0 {
		return cmds[0]
	}
	return ""
}

// setCopilotHooks returns the hooks file for h; a file of the same name
// that IHMT did not write is left alone.
func setCopilotHooks(src []byte, h Hook) ([]byte, error) {
	if src != nil && !isOurCopilotHooks(src) {
		return nil, errors.New("a hooks file of this name that IHMT did not write is there: move it away (or pass --no-hooks)")
	}
	return []byte(copilotHooksSource(h)), nil
}

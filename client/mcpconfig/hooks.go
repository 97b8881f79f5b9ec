package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// The hooks: memory that arrives without being asked. Each client gets,
// through its own extension point, a session-start hook that injects IHMT's
// briefing and a per-prompt hook that injects a memory a search of the
// prompt found with confidence; both run `ihmt context --hook CLIENT`.
//
//   - Claude Code: SessionStart (matchers startup, resume, clear, compact)
//     and UserPromptSubmit command hooks in ~/.claude/settings.json, or the
//     project's .claude/settings.json.
//   - Codex: the same two events in ~/.codex/hooks.json, or the project's
//     .codex/hooks.json (Codex 0.169 reads hooks.json and [hooks] tables in
//     config.toml alike; hooks.json keeps them apart from the registration).
//     Codex runs a new hook only once the person trusted it (/hooks in the
//     TUI); `codex exec` skips an untrusted one without a word.
//   - opencode: a plugin file, ~/.config/opencode/plugins/ihmt.js or the
//     project's .opencode/plugins/ihmt.js, that adds the same text to the
//     system prompt (experimental.chat.system.transform) and to compaction
//     (experimental.session.compacting).
//   - Gemini CLI: SessionStart (every source: startup, resume, clear) and
//     BeforeAgent command hooks in the "hooks" of the settings.json that
//     holds the registration, ~/.gemini/settings.json or the project's
//     .gemini/settings.json (its docs/hooks/reference.md, 0.61.0). Both
//     answer hookSpecificOutput.additionalContext, which Gemini CLI adds
//     to the prompt; a lifecycle matcher is an exact string there, so the
//     session-start group has none.
//   - Copilot CLI: a hooks file of its own, $COPILOT_HOME/hooks/ihmt.json
//     (~/.copilot/hooks), or the repository's .github/hooks/ihmt.json,
//     with sessionStart and userPromptSubmitted command hooks (GitHub's
//     "Copilot CLI hooks reference"; 1.0.102 loads every *.json there).
//     Both answer additionalContext, which Copilot CLI 1.0.102 adds to the
//     conversation (at the start) and to the prompt (each prompt). The
//     file is wholly IHMT's, like the opencode plugin: the person's hooks
//     stay in their own files.
//
// The edits keep the package's rules: a hook is ours when it runs ihmt's
// context command, only ours change, everything else keeps its meaning (a
// decode of both versions proves it), a second install changes nothing,
// and uninstall restores the file's earlier bytes when nothing else
// changed since.

// Hook is what the hooks run.
type Hook struct {
	// Command is ihmt's absolute path.
	Command string
	// Env is set for it: IHMT_HOME and IHMT_SOCKET when the user set them,
	// as for the server's registration.
	Env map[string]string
}

// The hook events, as Claude Code and Codex name them, and Gemini CLI's
// for a prompt.
const (
	HookSessionStart     = "SessionStart"
	HookUserPromptSubmit = "UserPromptSubmit"
	HookBeforeAgent      = "BeforeAgent"
)

// hookEventsOf are the events IHMT hooks in client's settings file, in the
// order they are written; the first is the session start.
func hookEventsOf(client string) []string {
	if client == Gemini {
		return []string{HookSessionStart, HookBeforeAgent}
	}
	return []string{HookSessionStart, HookUserPromptSubmit}
}

// geminiHookNames name IHMT's two Gemini CLI hooks, as /hooks shows them
// and hooksConfig.disabled may list them.
var geminiHookNames = [2]string{"ihmt-briefing", "ihmt-prompt-memory"}

// geminiHookTimeout bounds, in milliseconds, how long Gemini CLI waits for
// a hook (its default is a minute): ihmt's answers within about three
// seconds, and one that hangs must not hold a session up for long.
const geminiHookTimeout = 10000

// sessionStartMatcher matches every way a session starts: new, resumed,
// cleared and compacted (Claude Code's sources; Codex's are a subset).
const sessionStartMatcher = "startup|resume|clear|compact"

// hookMarker is in every command IHMT's hooks run: how a hook is known as
// ours.
const hookMarker = " context --hook "

// HookFile returns the file that holds client's hooks for scope.
func (e Env) HookFile(client, scope string) (string, error) {
	if _, err := e.Locate(client, scope); err != nil {
		return "", err
	}
	if !HasHooks(client) {
		return "", errNoHooks
	}
	project := scope == ScopeProject
	switch client {
	case Claude:
		if project {
			return filepath.Join(e.Project, ".claude", "settings.json"), nil
		}
		if dir := e.absEnv("CLAUDE_CONFIG_DIR"); dir != "" {
			return filepath.Join(dir, "settings.json"), nil
		}
		return filepath.Join(e.Home, ".claude", "settings.json"), nil
	case Codex:
		if project {
			return filepath.Join(e.Project, ".codex", "hooks.json"), nil
		}
		if dir := e.absEnv("CODEX_HOME"); dir != "" {
			return filepath.Join(dir, "hooks.json"), nil
		}
		return filepath.Join(e.Home, ".codex", "hooks.json"), nil
	case Gemini:
		// The file that holds the registration.
		loc, err := e.Locate(client, scope)
		if err != nil {
			return "", err
		}
		return loc.Configs[0], nil
	case Copilot:
		if project {
			return filepath.Join(e.Project, ".github", "hooks", "ihmt.json"), nil
		}
		loc, err := e.Locate(client, scope)
		if err != nil {
			return "", err
		}
		return filepath.Join(filepath.Dir(loc.Configs[0]), "hooks", "ihmt.json"), nil
	}
	if project {
		return filepath.Join(e.Project, ".opencode", "plugins", "ihmt.js"), nil
	}
	dir := filepath.Join(e.Home, ".config", "opencode")
	if d := e.absEnv("XDG_CONFIG_HOME"); d != "" {
		dir = filepath.Join(d, "opencode")
	}
	return filepath.Join(dir, "plugins", "ihmt.js"), nil
}

// HookCommand is the shell command a Claude Code, Codex or Gemini CLI hook
// runs for h.
func HookCommand(client string, h Hook) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(h.Env)) {
		b.WriteString(k + "=" + shellQuote(h.Env[k]) + " ")
	}
	b.WriteString(shellQuote(h.Command) + hookMarker + client)
	return b.String()
}

// shellQuote quotes s for a POSIX shell, leaving plain words alone.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// InstallHooks plans installing client's hooks for h (the change is one
// file); it reads but writes nothing.
func InstallHooks(o Options, h Hook) (*Change, error) {
	if !filepath.IsAbs(h.Command) {
		return nil, fmt.Errorf("ihmt's path %q is not absolute", h.Command)
	}
	path, err := o.Env.HookFile(o.Client, o.scope())
	if err != nil {
		return nil, err
	}
	src, err := readFile(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, What: "hooks", Old: src, New: src, Action: "unchanged"}
	var out []byte
	switch o.Client {
	case OpenCode:
		out, err = setPlugin(src, h)
	case Copilot:
		out, err = setCopilotHooks(src, h)
	default:
		out, err = setHookGroups(src, o.Client, hookGroups(o.Client, HookCommand(o.Client, h)))
	}
	if err != nil {
		return nil, configError(path, err)
	}
	c.New, c.Action = out, action(src, out)
	return c, nil
}

// UninstallHooks plans removing what InstallHooks added.
func UninstallHooks(o Options) (*Change, error) {
	path, err := o.Env.HookFile(o.Client, o.scope())
	if err != nil {
		return nil, err
	}
	src, err := readFile(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, What: "hooks", Old: src, New: src, Action: "unchanged"}
	if src == nil {
		c.Action = "absent"
		return c, nil
	}
	out, restored, err := removeHooks(o.Client, path, src)
	if err != nil {
		return nil, err
	}
	c.New, c.Restored, c.Action = out, restored, action(src, out)
	return c, nil
}

// removeHooks returns client's hook file src (at path) without IHMT's
// hooks: the bytes from before the install when nothing else changed since
// (restored), nil when the file goes.
func removeHooks(client, path string, src []byte) (out []byte, restored bool, err error) {
	switch client {
	case OpenCode:
		if !isOurPlugin(src) {
			return nil, false, &ConfigError{Path: path, Msg: "this plugin file was not written by IHMT, so uninstall leaves it"}
		}
		return nil, false, nil
	case Copilot:
		if !isOurCopilotHooks(src) {
			return nil, false, &ConfigError{Path: path, Msg: "this hooks file was not written by IHMT, so uninstall leaves it"}
		}
		return nil, false, nil
	}
	cmd, ok, err := ourCommand(src, client)
	if err != nil {
		return nil, false, configError(path, err)
	}
	var reinstall func([]byte) ([]byte, error)
	if ok {
		reinstall = func(b []byte) ([]byte, error) { return setHookGroups(b, client, hookGroups(client, cmd)) }
	}
	has := func(b []byte) bool { _, ok, err := ourCommand(b, client); return ok || err != nil }
	remove := func(b []byte) ([]byte, error) { return removeHookGroups(b, client) }
	out, restored, err = undo(path, src, reinstall, remove, has)
	if err != nil {
		return nil, false, configError(path, err)
	}
	return out, restored, nil
}

func (o Options) scope() string {
	if o.Scope == "" {
		return ScopeUser
	}
	return o.Scope
}

// hookGroups are the matcher groups IHMT adds to client's settings, by
// event: the shape Claude Code, Codex and Gemini CLI read.
func hookGroups(client, cmd string) map[string]object {
	if client == Gemini {
		handler := func(name string) []object {
			return []object{{{"name", name}, {"type", "command"}, {"command", cmd}, {"timeout", geminiHookTimeout}}}
		}
		return map[string]object{
			HookSessionStart: {{"hooks", handler(geminiHookNames[0])}},
			HookBeforeAgent:  {{"hooks", handler(geminiHookNames[1])}},
		}
	}
	handler := []object{{{"type", "command"}, {"command", cmd}}}
	return map[string]object{
		HookSessionStart:     {{"matcher", sessionStartMatcher}, {"hooks", handler}},
		HookUserPromptSubmit: {{"hooks", handler}},
	}
}

// isOurGroup reports whether a decoded matcher group holds only IHMT's
// hooks.
func isOurGroup(g any) bool {
	m, ok := g.(map[string]any)
	if !ok {
		return false
	}
	hs, ok := m["hooks"].([]any)
	if !ok || len(hs) == 0 {
		return false
	}
	for _, h := range hs {
		hm, _ := h.(map[string]any)
		cmd, _ := hm["command"].(string)
		if !strings.Contains(cmd, hookMarker) {
			return false
		}
	}
	return true
}

// ourCommand returns the command of IHMT's session-start hook in client's
// settings src.
func ourCommand(src []byte, client string) (string, bool, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return "", false, err
	}
	n := d.lookup("hooks", HookSessionStart)
	if n == nil || n.kind != '[' {
		return "", false, nil
	}
	groups, _ := d.valueOf(n).([]any)
	for _, g := range groups {
		if isOurGroup(g) {
			h := g.(map[string]any)["hooks"].([]any)[0].(map[string]any)
			return h["command"].(string), true, nil
		}
	}
	return "", false, nil
}

// setHookGroups returns client's settings src with IHMT's group last in
// each event's list (replacing any IHMT group there), creating what is
// missing.
func setHookGroups(src []byte, client string, want map[string]object) ([]byte, error) {
	out := src
	for _, ev := range hookEventsOf(client) {
		var err error
		if out, err = editEvent(out, ev, &want); err != nil {
			return nil, err
		}
	}
	return out, checkHooks(src, out, client, want)
}

// removeHookGroups returns client's settings src without IHMT's groups; an
// event left with none, and a "hooks" left empty, go too.
func removeHookGroups(src []byte, client string) ([]byte, error) {
	out := src
	for _, ev := range hookEventsOf(client) {
		var err error
		if out, err = editEvent(out, ev, nil); err != nil {
			return nil, err
		}
	}
	if d, err := parseJSONC(out); err == nil {
		if n := d.lookup("hooks"); n != nil && n.kind == '{' && len(n.members) == 0 {
			out = d.remove([]string{"hooks"})
		}
	}
	return out, checkHooks(src, out, client, nil)
}

// editEvent rewrites one event's list: the other groups keep their bytes
// and order; IHMT's is dropped, and appended again from want when want is
// not nil.
func editEvent(src []byte, ev string, want *map[string]object) ([]byte, error) {
	d, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	if d.root != nil && d.root.kind != '{' {
		return nil, errors.New("the top level is not a JSON object")
	}
	if h := d.lookup("hooks"); h != nil && h.kind != '{' {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	n := d.lookup("hooks", ev)
	if n == nil {
		if want == nil {
			return src, nil
		}
		return d.set([]string{"hooks", ev}, []object{(*want)[ev]})
	}
	if n.kind != '[' {
		return nil, fmt.Errorf(`"hooks.%s" is not a list`, ev)
	}
	var keep []string
	changed, ours := false, 0
	var last any
	for _, sp := range arrayElements(d, n) {
		var v any
		json.Unmarshal(d.std[sp[0]:sp[1]], &v)
		last = v
		if isOurGroup(v) {
			changed = true
			ours++
			continue
		}
		keep = append(keep, string(src[sp[0]:sp[1]]))
	}
	if want != nil && ours == 1 && isOurGroup(last) && reflect.DeepEqual(last, decodeJSON(render((*want)[ev], "", "  "))) {
		return src, nil // already as wanted, last: however it is laid out
	}
	// The list's elements sit one level under the line that opens it.
	ind := indentOfLine(src, n.start)
	if want != nil {
		keep = append(keep, render((*want)[ev], ind+d.unit, d.unit))
		changed = true
	}
	if !changed {
		return src, nil
	}
	if len(keep) == 0 {
		return d.remove([]string{"hooks", ev}), nil
	}
	text := "[\n" + ind + d.unit + strings.Join(keep, ",\n"+ind+d.unit) + "\n" + ind + "]"
	out := splice(src, n.start, n.end, text)
	if want != nil && bytes.Equal(out, src) {
		return src, nil
	}
	return out, nil
}

// arrayElements returns the byte span of each element of the array n.
func arrayElements(d *jsonDoc, n *jnode) [][2]int {
	p := &jparser{b: d.std, i: n.start + 1}
	var out [][2]int
	for {
		p.ws()
		if p.i >= n.end-1 {
			return out
		}
		start := p.i
		if _, err := p.value(); err != nil {
			return out
		}
		out = append(out, [2]int{start, p.i})
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
		}
	}
}

// checkHooks proves an edit of a hooks file changed IHMT's groups and
// nothing else: both versions are equal once IHMT's groups (and what their
// removal leaves empty) are taken out, and the new one holds exactly the
// groups wanted (none for an uninstall).
func checkHooks(before, after []byte, client string, want map[string]object) error {
	a, err := parseJSONC(before)
	if err != nil {
		return err
	}
	b, err := parseJSONC(after)
	if err != nil {
		return fmt.Errorf("internal error: the edited file would not parse (%v); nothing was written", err)
	}
	av, _ := a.decode()
	bv, _ := b.decode()
	if !reflect.DeepEqual(withoutOurHooks(av, client), withoutOurHooks(bv, client)) {
		return errors.New("internal error: the edit would change more than IHMT's hooks; nothing was written")
	}
	for _, ev := range hookEventsOf(client) {
		var ours []any
		if n := b.lookup("hooks", ev); n != nil {
			list, _ := b.valueOf(n).([]any)
			for _, g := range list {
				if isOurGroup(g) {
					ours = append(ours, g)
				}
			}
		}
		switch {
		case want == nil && len(ours) > 0, want != nil && (len(ours) != 1 || !reflect.DeepEqual(ours[0], decodeJSON(render(want[ev], "", "  ")))):
			return errors.New("internal error: the edit did not leave IHMT's hooks as intended; nothing was written")
		}
	}
	return nil
}

// withoutOurHooks is a decoded hooks file without IHMT's groups, and
// without the lists and the "hooks" object that leaves empty.
func withoutOurHooks(v any, client string) any {
	m, ok := v.(map[string]any)
	if v == nil {
		return map[string]any{}
	}
	if !ok {
		return v
	}
	out := maps.Clone(m)
	hooks, ok := m["hooks"].(map[string]any)
	if !ok {
		return out
	}
	hs := maps.Clone(hooks)
	for _, ev := range hookEventsOf(client) {
		list, ok := hs[ev].([]any)
		if !ok {
			continue
		}
		var keep []any
		for _, g := range list {
			if !isOurGroup(g) {
				keep = append(keep, g)
			}
		}
		if len(keep) == 0 {
			delete(hs, ev)
		} else {
			hs[ev] = keep
		}
	}
	if len(hs) == 0 {
		delete(out, "hooks")
	} else {
		out["hooks"] = hs
	}
	return out
}

// HookState is what a client's hook file says about IHMT's hooks.
type HookState struct {
	Path string `json:"path"`
	// Installed: IHMT's hooks are there; Current: as this ihmt would write
	// them for the hook given to InspectHooks.
	Installed bool `json:"installed"`
	Current   bool `json:"current"`
	// Command is what the session-start hook runs ("" for opencode).
	Command string `json:"command,omitempty"`
	// Problem says why the file could not be read, if it could not.
	Problem string `json:"problem,omitempty"`
}

// InspectHooks reads client's hook file for scope, changing nothing.
func InspectHooks(env Env, client, scope string, h Hook) HookState {
	path, err := env.HookFile(client, scope)
	if err != nil {
		return HookState{Problem: err.Error()}
	}
	st := HookState{Path: path}
	src, err := readFile(path)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	if src == nil {
		return st
	}
	switch client {
	case OpenCode:
		st.Installed = isOurPlugin(src)
		if st.Installed && filepath.IsAbs(h.Command) {
			st.Current = string(src) == pluginSource(h)
		}
		return st
	case Copilot:
		st.Installed = isOurCopilotHooks(src)
		if st.Installed {
			st.Command = copilotStartCommand(src)
		}
		if st.Installed && filepath.IsAbs(h.Command) {
			st.Current = string(src) == copilotHooksSource(h)
		}
		return st
	}
	cmd, ok, err := ourCommand(src, client)
	if err != nil {
		st.Problem = configError(path, err).Error()
		return st
	}
	st.Installed, st.Command = ok, cmd
	if ok && filepath.IsAbs(h.Command) {
		out, err := setHookGroups(src, client, hookGroups(client, HookCommand(client, h)))
		st.Current = err == nil && bytes.Equal(out, src)
	}
	return st
}

// TidyHooks runs once a plan is applied. The opencode plugin and Copilot
// CLI's ihmt.json are wholly IHMT's, written anew from ihmt itself whenever
// needed, so a backup of one keeps nothing of the person's: they are
// removed, and so is the plugins (hooks) directory an uninstall leaves
// empty (an opencode directory holding nothing of the person's reads as
// not in use).
func TidyHooks(p *Plan) {
	if p.Client != OpenCode && p.Client != Copilot {
		return
	}
	for _, c := range p.Changes {
		if c.What != "hooks" {
			continue
		}
		for _, b := range backups(c.Path) {
			os.Remove(b)
		}
		c.Backup = ""
		if c.Action == "remove" {
			os.Remove(filepath.Dir(c.Path)) // fails, as it should, when not empty
		}
	}
}

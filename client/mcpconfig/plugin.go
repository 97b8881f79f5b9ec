package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
)

// The opencode plugin: opencode has no command hooks, so IHMT's hooks are a
// plugin file it loads from its plugins directory. The whole file is IHMT's,
// known by its first line; it runs `ihmt context --hook opencode` with the
// same JSON on stdin that Claude Code and Codex send their hooks, and:
//
//   - at the first request of a session, adds the briefing to the system
//     prompt (experimental.chat.system.transform), and keeps adding it to
//     each request of that session, since opencode builds the system prompt
//     anew each time;
//   - with each user message (chat.message), searches its text and adds a
//     confident answer to the system prompt of the request that follows;
//   - when opencode compacts a session (experimental.session.compacting),
//     gives the summary the briefing again as context.
//
// Whatever fails, the plugin adds nothing and lets the request go on; the
// command is bounded by a timeout.

// pluginFirstLine opens the plugin file: how it is known as IHMT's.
const pluginFirstLine = "// Written by `ihmt mcp install`: IHMT's memory for opencode. `ihmt mcp install --client opencode --uninstall` removes it.\n"

func isOurPlugin(src []byte) bool { return bytes.HasPrefix(src, []byte(pluginFirstLine)) }

// setPlugin returns the plugin file for h; a file of the same name that
// IHMT did not write is left alone.
func setPlugin(src []byte, h Hook) ([]byte, error) {
	if src != nil && !isOurPlugin(src) {
		return nil, errors.New("a plugin file of this name that IHMT did not write is there: move it away (or pass --no-hooks)")
	}
	return []byte(pluginSource(h)), nil
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// pluginSource is the plugin for h.
func pluginSource(h Hook) string {
	var env []string
	for _, k := range slices.Sorted(maps.Keys(h.Env)) {
		env = append(env, jsString(k)+": "+jsString(h.Env[k]))
	}
	return pluginFirstLine + strings.NewReplacer(
		"IHMT_COMMAND", jsString(h.Command),
		"IHMT_ENV", "{"+strings.Join(env, ", ")+"}",
	).Replace(pluginBody)
}

const pluginBody = `import { spawn } from "node:child_process";

const IHMT = IHMT_COMMAND;
const ENV = IHMT_ENV;
const TIMEOUT_MS = 3000;

// run gives ihmt the hook's input and resolves to what it printed ("" on any
// failure: a session never waits on, or breaks for, its memory).
function run(input) {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    const finish = (text) => { if (!done) { done = true; resolve(text); } };
    let p;
    try {
      p = spawn(IHMT, ["context", "--hook", "opencode"], { env: { ...process.env, ...ENV }, stdio: ["pipe", "pipe", "ignore"] });
    } catch { return finish(""); }
    const timer = setTimeout(() => { p.kill(); finish(""); }, TIMEOUT_MS);
    p.stdout.on("data", (d) => { out += d; });
    p.on("error", () => { clearTimeout(timer); finish(""); });
    p.on("close", (code) => { clearTimeout(timer); finish(code === 0 ? out.trim() : ""); });
    p.stdin.on("error", () => {});
    p.stdin.end(JSON.stringify(input));
  });
}

export const IhmtMemory = async ({ directory }) => {
  const briefs = new Map(); // sessionID → the briefing, fetched once
  const found = new Map(); // sessionID → what the last prompt found
  const brief = async (sessionID, source) => {
    if (source === "startup" && briefs.has(sessionID)) return briefs.get(sessionID);
    const text = await run({ session_id: sessionID, cwd: directory, hook_event_name: "SessionStart", source });
    briefs.set(sessionID, text);
    return text;
  };
  return {
    "chat.message": async (input, output) => {
      const prompt = (output.parts || []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n").trim();
      if (!input.sessionID || !prompt) return;
      await brief(input.sessionID, "startup");
      found.set(input.sessionID, await run({ session_id: input.sessionID, cwd: directory, hook_event_name: "UserPromptSubmit", prompt }));
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID) return; // a title or an agent being generated
      const text = await brief(input.sessionID, "startup");
      if (text) output.system.push(text);
      const hit = found.get(input.sessionID);
      if (hit) output.system.push(hit);
    },
    "experimental.session.compacting": async (input, output) => {
      const text = await brief(input.sessionID, "compact");
      if (text) output.context.push(text);
    },
  };
};
`

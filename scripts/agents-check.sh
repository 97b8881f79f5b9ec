#!/usr/bin/env bash
# Checks that ihmt-mcp works with five real coding agents as MCP clients — Claude Code 2.1.328,
# Codex 0.169.0, opencode 1.18.33, Gemini CLI 0.61.0 and GitHub Copilot CLI 1.0.102 — with no
# model and no network beyond the npm registry:
#   - `ihmt mcp install --client claude|codex|opencode|gemini|copilot` registers ihmt-mcp by absolute path, with
#     IHMT_HOME and IHMT_SOCKET, and writes the IHMT instructions (user-level config, throw-away
#     HOME; for Claude Code through `claude mcp add`); a second install changes nothing;
#   - `ihmt doctor --json` finds all five registered, with their instructions;
#   - each agent's health check really starts and initialises the server
#     (`claude mcp list`, `opencode mcp list`, `codex app-server` mcpServerStatus/list, which
#     lists save_memory, search_memory, mark_outdated and forget_memory);
#   - Codex lists all ten tools and calls note, recall, project_map, find_code and read_file
#     (twice: the second answers UNCHANGED) through a second `codex app-server` session;
#   - Codex calls save_memory and then search_memory through `codex app-server`
#     (mcpServer/tool/call), and `ihmt search --json` shows the memory stored under the client
#     name Codex sent;
#   - Claude Code, driven by a local fake Anthropic Messages API that asks for
#     mcp__ihmt__search_memory, calls the tool and gets that memory back; the requests it sends
#     hold the instructions install wrote into ~/.claude/CLAUDE.md;
#   - `gemini mcp list` connects (in a folder the person trusted, as Gemini CLI requires); Gemini
#     CLI (`gemini -p`, GOOGLE_GEMINI_BASE_URL at a local fake Gemini API) and Copilot CLI
#     (`copilot -p`, offline with COPILOT_PROVIDER_BASE_URL at a local fake OpenAI Chat
#     Completions API) each call search_memory when the model asks and get the memory back, and
#     send the model the instructions install wrote (~/.gemini/GEMINI.md,
#     ~/.copilot/copilot-instructions.md);
#   - the memory hooks install adds: `claude -p`, `codex exec`, `opencode run`, `gemini -p` and
#     `copilot -p`, each against a local fake model API, send the model the session-start briefing
#     and the memory a per-prompt search found; doctor reads Gemini's and Copilot's hooks back;
#     Codex skips the hooks until they are trusted (checked, with doctor's warning), then runs them;
#   - `ihmt mcp install --client X --uninstall` leaves no mention of IHMT in any agent's
#     configuration or instructions file, and no hook.
# The project is a git repository whose origin names it github.com/example/agents-check: the
# registrations carry no IHMT_PROJECT, so the shim must find the key as it would for a user.
# The first run downloads ~1.6 GB from the npm registry into ${IHMT_AGENTS_DIR:-~/.cache/ihmt-agents}
# (20-40 s); later runs reuse it. A run takes about 90 s once the agents are installed.
#
# Usage (from the repository root): scripts/agents-check.sh [--keep]
#   --keep   keep the temporary directory (store, configs, logs) and leave ihmtd running
# Prints one PASS/FAIL line per check; exits non-zero if any check fails.
set -euo pipefail

CLAUDE_VERSION=2.1.328
CODEX_VERSION=0.169.0
OPENCODE_VERSION=1.18.33
GEMINI_VERSION=0.61.0
COPILOT_VERSION=1.0.102
PROJECT_KEY=github.com/example/agents-check

keep=0
for arg in "$@"; do
	case "$arg" in
	--keep) keep=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "agents-check: unknown argument $arg (use --keep or --help)" >&2
		exit 2
		;;
	esac
done

cd "$(dirname "$0")/.."
ROOT=$PWD
for tool in go node npm timeout git; do
	command -v "$tool" >/dev/null || {
		echo "agents-check: $tool is required" >&2
		exit 2
	}
done

AGENTS_DIR=${IHMT_AGENTS_DIR:-$HOME/.cache/ihmt-agents}
# Short, private paths: the socket path must fit in sun_path, and ihmtd wants the
# socket's directory private (0700), so it gets one of its own that IHMT creates.
WORK=$(mktemp -d /tmp/ihmt-agents.XXXXXX)
BIN=$WORK/bin
MCP=$BIN/ihmt-mcp
STORE=$WORK/store
SOCK=$WORK/run/ihmtd.sock
PROJ=$WORK/proj
LOGS=$WORK/logs
mkdir -p "$BIN" "$WORK/home" "$PROJ" "$LOGS"

fake_pid=
cleanup() {
	local rc=$?
	if [[ -n $fake_pid ]]; then kill "$fake_pid" 2>/dev/null || true; fi
	if [[ $keep == 1 ]]; then
		echo "kept $WORK (ihmtd, if running, stops itself after 30 idle minutes; or: IHMT_SOCKET=$SOCK $BIN/ihmt daemon stop)"
		exit "$rc"
	fi
	if [[ -S $SOCK ]]; then
		IHMT_SOCKET=$SOCK timeout 15 "$BIN/ihmt" daemon stop >/dev/null 2>&1 || true
	fi
	# An ihmtd that did not stop cleanly: kill it by the pid it logged.
	local pid
	pid=$(sed -n 's/.*msg="ihmtd listening".* pid=\([0-9]*\).*/\1/p' "$WORK/run/ihmtd.log" 2>/dev/null | tail -n 1)
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && grep -q ihmtd "/proc/$pid/cmdline" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
	fi
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
now_ms() { date +%s%3N; }
t0=0
start() { t0=$(now_ms); }
elapsed() { awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { printf "%.1fs", (b - a) / 1000 }'; }
pass() {
	passed=$((passed + 1))
	printf 'PASS  %-34s %6s  %s\n' "$1" "$(elapsed)" "$2"
}
fail() {
	failed=$((failed + 1))
	printf 'FAIL  %-34s %6s  %s\n' "$1" "$(elapsed)" "$2"
	if [[ -n ${3:-} && -s $3 ]]; then sed 's/^/      | /' "$3" | tail -n 20; fi
}
# check NAME EVIDENCE-FILE COMMAND...: PASS with the evidence file's first line, or FAIL.
check() {
	local name=$1 evidence=$2
	shift 2
	if "$@" >"$evidence.check" 2>&1; then
		pass "$name" "$(head -n 1 "$evidence.check")"
	else
		fail "$name" "$(head -n 1 "$evidence.check")" "$evidence"
	fi
}

total_t0=$(now_ms)

# --- 1. the agents (npm, once) and the binaries -----------------------------------------------
pkg_version() { node -p "require('$AGENTS_DIR/node_modules/$1/package.json').version" 2>/dev/null || true; }
agents_present() {
	[[ $(pkg_version @anthropic-ai/claude-code) == "$CLAUDE_VERSION" &&
		$(pkg_version @openai/codex) == "$CODEX_VERSION" &&
		$(pkg_version opencode-ai) == "$OPENCODE_VERSION" &&
		$(pkg_version @google/gemini-cli) == "$GEMINI_VERSION" &&
		$(pkg_version @github/copilot) == "$COPILOT_VERSION" &&
		-x $AGENTS_DIR/node_modules/.bin/claude && -x $AGENTS_DIR/node_modules/.bin/codex &&
		-x $AGENTS_DIR/node_modules/.bin/opencode && -x $AGENTS_DIR/node_modules/.bin/gemini &&
		-x $AGENTS_DIR/node_modules/.bin/copilot ]]
}
start
if agents_present; then
	pass "agents installed" "cached in $AGENTS_DIR"
else
	echo "installing the agents into $AGENTS_DIR (~1.6 GB from the npm registry, ~60 s)..."
	mkdir -p "$AGENTS_DIR"
	if timeout 900 npm install --prefix "$AGENTS_DIR" --no-audit --no-fund \
		"@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION" \
		"opencode-ai@$OPENCODE_VERSION" "@google/gemini-cli@$GEMINI_VERSION" "@github/copilot@$COPILOT_VERSION" \
		>"$LOGS/npm-install.log" 2>&1 && agents_present; then
		pass "agents installed" "npm install into $AGENTS_DIR"
	else
		fail "agents installed" "npm install failed" "$LOGS/npm-install.log"
		exit 1
	fi
fi
CLAUDE=$AGENTS_DIR/node_modules/.bin/claude
CODEX=$AGENTS_DIR/node_modules/.bin/codex
OPENCODE=$AGENTS_DIR/node_modules/.bin/opencode
GEMINI=$AGENTS_DIR/node_modules/.bin/gemini
COPILOT=$AGENTS_DIR/node_modules/.bin/copilot

start
if timeout 300 go build -o "$BIN/" ./daemon/cmd/ihmtd ./shim/cmd/ihmt-mcp ./client/cmd/ihmt >"$LOGS/go-build.log" 2>&1; then
	pass "go build" "$BIN/{ihmtd,ihmt-mcp,ihmt}"
else
	fail "go build" "go build failed" "$LOGS/go-build.log"
	exit 1
fi

# --- 2. a throw-away environment ---------------------------------------------------------------
# Nothing of the user's real configuration or credentials may reach the agents.
unset CLAUDE_CONFIG_DIR CODEX_HOME OPENCODE_CONFIG OPENCODE_CONFIG_DIR OPENCODE_CONFIG_CONTENT \
	XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME XDG_RUNTIME_DIR \
	ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL \
	GEMINI_API_KEY GOOGLE_API_KEY GOOGLE_GEMINI_BASE_URL GOOGLE_GENAI_USE_VERTEXAI GOOGLE_CLOUD_PROJECT \
	COPILOT_HOME COPILOT_GITHUB_TOKEN GH_TOKEN GITHUB_TOKEN COPILOT_PROVIDER_BASE_URL COPILOT_PROVIDER_API_KEY \
	COPILOT_MODEL COPILOT_CUSTOM_INSTRUCTIONS_DIRS \
	IHMT_HOME IHMT_SOCKET IHMT_PROJECT
export HOME=$WORK/home
export NO_COLOR=1 CI=1
# Keep the agents off the network: no update checks, telemetry or model-list downloads.
export DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
export OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_SHARE=1
export COPILOT_AUTO_UPDATE=false
cd "$PROJ"
# A git repository whose origin names the project, as a user's clone would: the registrations
# carry no IHMT_PROJECT, so the shim finds the key from the working directory (or the MCP roots).
git -c init.defaultBranch=main init -q . && git remote add origin "https://$PROJECT_KEY.git"
NONCE="n$(date +%s)x$RANDOM"
CONTENT="Agents check $NONCE: the zebra-kumquat staging deploy key rotates every 17 days."
QUERY="zebra-kumquat deploy key $NONCE"
# Only ihmt gets the overrides, and writes them into every registration; the agents do not get
# them from this environment (Codex would not pass them to a server anyway). The agents' CLIs
# are on ihmt's PATH: it registers with Claude Code through `claude mcp add`, and doctor looks
# for all three.
IHMT_ENV=(IHMT_HOME="$STORE" IHMT_SOCKET="$SOCK")
ihmt_() { env "${IHMT_ENV[@]}" PATH="$AGENTS_DIR/node_modules/.bin:$PATH" timeout 180 "$BIN/ihmt" "$@"; }

# --- 3. registration with `ihmt mcp install` ----------------------------------------------------
# Where each agent keeps its user-level registration and instructions under this HOME. opencode
# reads opencode.json and opencode.jsonc; install creates the first when neither exists.
config_files() {
	case $1 in
	claude) echo "$HOME/.claude.json" ;;
	codex) echo "$HOME/.codex/config.toml" ;;
	opencode) printf '%s\n' "$HOME/.config/opencode/opencode.json" "$HOME/.config/opencode/opencode.jsonc" ;;
	gemini) echo "$HOME/.gemini/settings.json" ;;
	copilot) echo "$HOME/.copilot/mcp-config.json" ;;
	esac
}
instructions_file() {
	case $1 in
	claude) echo "$HOME/.claude/CLAUDE.md" ;;
	codex) echo "$HOME/.codex/AGENTS.md" ;;
	opencode) echo "$HOME/.config/opencode/AGENTS.md" ;;
	gemini) echo "$HOME/.gemini/GEMINI.md" ;;
	copilot) echo "$HOME/.copilot/copilot-instructions.md" ;;
	esac
}
# install_client CLIENT: the first install's --json report says it registered ihmt-mcp (for
# Claude Code by running `claude mcp add`) and created the instructions, and the files say so too.
install_client() {
	local c=$1 log=$LOGS/$1-install.json
	ihmt_ mcp install --client "$c" --json >"$log" 2>&1 || { echo "exit status $?: $(head -c 300 "$log")"; return 1; }
	node -e '
		const fs = require("fs");
		const [log, client, cfg, instr, mcp, sock, store, home] = process.argv.slice(1);
		const fail = (s) => { console.log(s); process.exit(1); };
		const short = (p) => String(p).split(home).join("~");
		let j; try { j = JSON.parse(fs.readFileSync(log, "utf8")); } catch (e) { fail("not JSON: " + e.message); }
		if (j.client !== client || j.scope !== "user" || j.uninstall || j.dry_run || !j.changed) fail("report: " + JSON.stringify(j).slice(0, 300));
		if (j.server_command !== mcp) fail(`server_command ${j.server_command}, want ${mcp}`);
		const files = j.files || [], reg = files.find((f) => f.what === "registration"), ins = files.find((f) => f.what === "instructions");
		if (!reg || reg.path !== cfg || !["create", "update"].includes(reg.action)) fail("registration change: " + JSON.stringify(reg));
		if (!ins || ins.path !== instr || ins.action !== "create") fail("instructions change: " + JSON.stringify(ins));
		const cmds = (j.commands || []).map((c) => c.args.join(" "));
		if (client === "claude") {
			if (reg.via !== "claude" || !cmds.some((c) => / mcp add --scope user ihmt .*-- /.test(c))) fail("not through `claude mcp add`: " + JSON.stringify(j).slice(0, 300));
		} else if (reg.via || cmds.length) fail("ran commands: " + cmds.join("; "));
		// The files, read here rather than taken on the report'"'"'s word.
		const text = fs.readFileSync(cfg, "utf8");
		let cmd, env;
		if (client === "codex") {
			const m = text.match(/^\[mcp_servers\.ihmt\]\n(?:[^\[\n].*\n|\n)*/m), e = text.match(/^\[mcp_servers\.ihmt\.env\]\n(?:[^\[\n].*\n|\n)*/m);
			if (!m) fail(short(cfg) + " has no [mcp_servers.ihmt]:\n" + text);
			cmd = (m[0].match(/^command = "(.*)"$/m) || [])[1];
			env = {};
			for (const [, k, v] of ((e || [""])[0]).matchAll(/^(\w+) = "(.*)"$/gm)) env[k] = v;
		} else {
			const s = JSON.parse(text), e = client === "opencode" ? (s.mcp || {}).ihmt : (s.mcpServers || {}).ihmt;
			if (!e) fail(short(cfg) + " has no ihmt entry: " + text.slice(0, 300));
			cmd = client === "opencode" ? (e.command || [])[0] : e.command;
			env = (client === "opencode" ? e.environment : e.env) || {};
		}
		if (cmd !== mcp || env.IHMT_SOCKET !== sock || env.IHMT_HOME !== store) fail(`${short(cfg)}: command ${cmd}, env ${JSON.stringify(env)}`);
		const md = fs.readFileSync(instr, "utf8");
		if (!md.includes("<!-- ihmt:begin -->") || !md.includes("<!-- ihmt:end -->")) fail(short(instr) + " lacks the ihmt block");
		console.log(`${short(cfg)} ${reg.action}d${reg.via ? " by `" + reg.via + " mcp add`" : ""} (command ${short(cmd)}, IHMT_HOME, IHMT_SOCKET); ${short(instr)} created`);' \
		"$log" "$c" "$(config_files "$c" | head -n 1)" "$(instructions_file "$c")" "$MCP" "$SOCK" "$STORE" "$HOME"
}
# snapshot CLIENT: the client's configuration directories, with every file's checksum.
snapshot() {
	local d
	for d in $(config_files "$1" | xargs -n 1 dirname | sort -u) "$(dirname "$(instructions_file "$1")")"; do
		(cd "$d" && find . -maxdepth 1 -type f -exec sha256sum {} + | sort) | sed "s#^#$d #"
	done
}
# reinstall_client CLIENT: a second install says it changed nothing, and changed nothing.
reinstall_client() {
	local c=$1 log=$LOGS/$1-reinstall.log before after
	before=$(snapshot "$c")
	ihmt_ mcp install --client "$c" >"$log" 2>&1 || { echo "exit status $?: $(head -c 300 "$log")"; return 1; }
	after=$(snapshot "$c")
	local want="$c: already registered ($MCP) with current instructions; nothing changed"
	[[ $(cat "$log") == "$want" ]] || { echo "want '$want', got: $(head -c 300 "$log")"; return 1; }
	[[ $before == "$after" ]] || { echo "it says nothing changed, but files did:"; diff <(echo "$before") <(echo "$after"); return 1; }
	echo "$want" | sed "s#$BIN#\$BIN#"
}
# Gemini CLI's own settings, as a user who signed in with an API key has them: install adds to
# them. Its usage statistics and update checks stay off here.
mkdir -p "$HOME/.gemini"
cat >"$HOME/.gemini/settings.json" <<'EOF'
{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"disableAutoUpdate": true}
}
EOF
for c in claude codex opencode gemini copilot; do
	start; check "ihmt mcp install --client $c" "$LOGS/$c-install.json" install_client "$c"
done
for c in claude codex opencode gemini copilot; do
	start; check "  again: no change ($c)" "$LOGS/$c-reinstall.log" reinstall_client "$c"
done

# doctor_check: `ihmt doctor --json` finds each agent registered with its instructions. Other
# checks (the service, say) may warn or fail on this machine: they are shown, not judged.
doctor_check() {
	ihmt_ doctor --json >"$LOGS/doctor.json" 2>"$LOGS/doctor.err" || true # non-zero when any check fails
	node -e '
		const fs = require("fs");
		const [file, summary, home, ...clients] = process.argv.slice(1);
		const fail = (s) => { console.log(s); process.exit(1); };
		const short = (p) => String(p).split(home).join("~");
		let j; try { j = JSON.parse(fs.readFileSync(file, "utf8")); } catch (e) { fail("doctor --json printed no JSON: " + e.message); }
		const checks = j.checks || [], count = (s) => checks.filter((c) => c.status === s).length;
		fs.writeFileSync(summary, checks.map((c) => `${c.status.toUpperCase().padEnd(4)}  ${c.name.padEnd(18)} ${short(c.finding)}` +
			(c.fix ? `\n      ${"".padEnd(18)} fix: ${c.fix}` : "")).join("\n") + "\n");
		const bad = [];
		for (const [cl, cfg, instr] of clients.map((s) => s.split("|"))) {
			const c = checks.find((c) => c.name === cl);
			if (!c) bad.push(cl + ": no check");
			else if (c.status !== "ok") bad.push(`${cl}: ${c.status}: ${short(c.finding)}`);
			else if (!c.finding.includes("registered in " + cfg) || !c.finding.includes("instructions in " + instr)) bad.push(`${cl}: ${short(c.finding)}`);
		}
		if (bad.length) fail(bad.join("; "));
		console.log(`${clients.map((s) => s.split("|")[0]).join(", ")}: ok, registered with instructions; overall ok=${j.ok} (${count("ok")} ok, ${count("warn")} warn, ${count("fail")} fail)`);' \
		"$LOGS/doctor.json" "$LOGS/doctor.txt" "$HOME" \
		"claude|$(config_files claude)|$(instructions_file claude)" \
		"codex|$(config_files codex)|$(instructions_file codex)" \
		"opencode|$(config_files opencode | head -n 1)|$(instructions_file opencode)" \
		"gemini|$(config_files gemini)|$(instructions_file gemini)" \
		"copilot|$(config_files copilot)|$(instructions_file copilot)"
}
start; check "ihmt doctor --json (agents)" "$LOGS/doctor.err" doctor_check
if [[ -s $LOGS/doctor.txt ]]; then sed 's/^/      | /' "$LOGS/doctor.txt"; fi

# --- 4. health checks that start and initialise the server -------------------------------------
health_claude() {
	# Exits 0 whether or not the server connected: read the line.
	MCP_TIMEOUT=30000 timeout 120 "$CLAUDE" mcp list </dev/null >"$LOGS/claude-list.log" 2>&1 || true
	local line
	line=$(grep -F "ihmt: " "$LOGS/claude-list.log" | sed 's/  */ /g' || true)
	[[ $line == *"$MCP"*"✔ Connected"* ]] || { echo "want 'ihmt: $MCP - ✔ Connected', got: ${line:-no ihmt line}"; return 1; }
	echo "$line"
}
health_opencode() {
	# Exits 0 whether or not the server connected: read the line.
	timeout 120 "$OPENCODE" mcp list </dev/null >"$LOGS/opencode-list.log" 2>&1 || true
	local line
	line=$(sed 's/\x1b\[[0-9;]*m//g' "$LOGS/opencode-list.log" | grep -oE '(✓|✗) ihmt .*' || true)
	[[ $line == "✓ ihmt connected"* ]] || { echo "want '✓ ihmt connected', got: ${line:-no ihmt line}"; return 1; }
	echo "$line"
}
health_gemini() {
	# Gemini CLI starts no MCP server in a folder the person has not trusted (`gemini` asks once;
	# trustedFolders.json is where it records the answer).
	printf '{"%s": "TRUST_FOLDER"}\n' "$PROJ" >"$HOME/.gemini/trustedFolders.json"
	timeout 120 "$GEMINI" mcp list </dev/null >"$LOGS/gemini-list.log" 2>&1 || true
	local line
	line=$(grep -F "ihmt: " "$LOGS/gemini-list.log" | sed 's/  */ /g' || true)
	[[ $line == *"$MCP"*"- Connected"* ]] || { echo "want 'ihmt: $MCP (stdio) - Connected', got: ${line:-no ihmt line}"; return 1; }
	echo "$line"
}
start; check "claude mcp list" "$LOGS/claude-list.log" health_claude
start; check "opencode mcp list" "$LOGS/opencode-list.log" health_opencode
start; check "gemini mcp list" "$LOGS/gemini-list.log" health_gemini

# --- 5. Codex: app-server status, then save_memory and search_memory with no model -------------
cat >"$WORK/codex-driver.js" <<'EOF'
// Drives `codex app-server` (JSON-RPC over stdio, one JSON object a line, no "jsonrpc" field)
// and writes every answer it needs to the JSON file argv[2].
const { spawn } = require('child_process');
const fs = require('fs');
const [, , out, content, query, ...cmd] = process.argv;
const p = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const result = {};
const save = () => fs.writeFileSync(out, JSON.stringify(result, null, 2));
let buf = '', id = 0;
const pending = new Map();
p.stdout.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\n')) >= 0;) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    let m; try { m = JSON.parse(line); } catch { continue; }
    if (m.method === undefined && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
  }
});
p.on('exit', (code) => { for (const r of pending.values()) r({ error: { message: `codex app-server exited (${code})` } }); pending.clear(); });
function request(method, params) {
  const i = ++id;
  p.stdin.write(JSON.stringify({ id: i, method, params }) + '\n');
  return new Promise((resolve) => {
    const t = setTimeout(() => { pending.delete(i); resolve({ error: { message: `${method}: no answer in 60 s` } }); }, 60000);
    pending.set(i, (m) => { clearTimeout(t); resolve(m); });
  });
}
(async () => {
  try {
    const init = await request('initialize', { clientInfo: { name: 'ihmt-agents-check', title: 'IHMT agents check', version: '1' } });
    result.initialize = init;
    if (init.error) throw new Error('initialize: ' + JSON.stringify(init.error));
    p.stdin.write(JSON.stringify({ method: 'initialized', params: {} }) + '\n');
    result.status = await request('mcpServerStatus/list', {});
    const t = await request('thread/start', { cwd: process.cwd(), ephemeral: true });
    result.thread = t;
    if (t.error) throw new Error('thread/start: ' + JSON.stringify(t.error));
    const threadId = t.result.thread.id;
    result.save = await request('mcpServer/tool/call', { threadId, server: 'ihmt', tool: 'save_memory', arguments: { content } });
    result.search = await request('mcpServer/tool/call', { threadId, server: 'ihmt', tool: 'search_memory', arguments: { query } });
  } catch (e) {
    result.driverError = String(e);
  }
  save();
  p.stdin.end();
  const kill = setTimeout(() => p.kill('SIGTERM'), 10000);
  p.on('exit', () => { clearTimeout(kill); process.exit(0); });
})();
EOF
# A model provider on a closed local port: the thread never reaches OpenAI.
CODEX_OFFLINE=(-c model_provider=ihmtcheck -c model_providers.ihmtcheck.name=ihmtcheck
	-c 'model_providers.ihmtcheck.base_url="http://127.0.0.1:9/v1"' -c model_providers.ihmtcheck.wire_api=responses
	-c model_providers.ihmtcheck.supports_websockets=false -c model=ihmtcheck-model -c check_for_update_on_startup=false)
start
timeout 180 node "$WORK/codex-driver.js" "$WORK/codex.json" "$CONTENT" "$QUERY" \
	"$CODEX" app-server "${CODEX_OFFLINE[@]}" >"$LOGS/codex-app-server.log" 2>&1 || true
[[ -s $WORK/codex.json ]] || echo '{"driverError":"no output (timed out?)"}' >"$WORK/codex.json"
# jcheck NAME JS-EXPRESSION: evaluates the expression with `r` = the driver's output; it returns
# the evidence string, or throws with the reason.
jcheck() {
	local name=$1 expr=$2
	if node -e '
		const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const env = { CONTENT: process.argv[2], NONCE: process.argv[3], PROJECT: process.argv[4], CODEX_VERSION: process.argv[5] };
		try { console.log(eval(process.argv[6])); } catch (e) { console.log(e.message); process.exit(1); }' \
		"$WORK/codex.json" "$CONTENT" "$NONCE" "$PROJECT_KEY" "$CODEX_VERSION" "$expr" >"$LOGS/$name.check" 2>&1; then
		pass "$3" "$(cat "$LOGS/$name.check")"
	else
		# Only the first Codex failure shows the app-server's log.
		fail "$3" "$(head -n 3 "$LOGS/$name.check")" "$([[ $name != codex-status ]] || echo "$LOGS/codex-app-server.log")"
	fi
}
# The three Codex checks share one app-server session: their time is the session's.
jcheck codex-status '
	if (r.driverError && !r.status) throw new Error(r.driverError);
	const s = (r.status.result || {}).data && r.status.result.data.find((x) => x.name === "ihmt");
	if (!s) throw new Error("mcpServerStatus/list has no ihmt: " + JSON.stringify(r.status).slice(0, 300));
	if (!s.serverInfo) throw new Error("no serverInfo; toolsError: " + JSON.stringify(s.toolsError || s).slice(0, 300));
	const names = Object.keys(s.tools || {}).sort();
	for (const t of ["save_memory", "search_memory", "mark_outdated", "forget_memory"]) if (!names.includes(t)) throw new Error("no " + t + "; tools are " + names.join(", "));
	`serverInfo ${s.serverInfo.name} ${s.serverInfo.version} (${s.serverInfo.title}); tools: ${names.join(", ")}`' \
	"codex app-server mcpServerStatus"
jcheck codex-save '
	if (!r.save) throw new Error(r.driverError || "no save");
	if (r.save.error) throw new Error("error: " + JSON.stringify(r.save.error));
	const res = r.save.result, sc = res.structuredContent || {};
	if (res.isError) throw new Error("tool error: " + JSON.stringify(res.content));
	if (sc.status !== "saved") throw new Error("status " + sc.status + ": " + JSON.stringify(res.content));
	if (sc.project !== env.PROJECT) throw new Error("project " + sc.project + ", want " + env.PROJECT);
	res.content[0].text' \
	"codex tool call save_memory"
jcheck codex-search '
	if (!r.search) throw new Error(r.driverError || "no search");
	if (r.search.error) throw new Error("error: " + JSON.stringify(r.search.error));
	const res = r.search.result, sc = res.structuredContent || {}, text = (res.content[0] || {}).text || "";
	if (res.isError) throw new Error("tool error: " + text);
	if (!text.startsWith("found")) throw new Error("reply text: " + text.slice(0, 200));
	const top = (sc.results || [])[0] || {};
	if (!(top.content || "").includes(env.NONCE)) throw new Error("results[0] is not the saved memory: " + JSON.stringify(top).slice(0, 300));
	const want = "codex-mcp-client " + env.CODEX_VERSION;
	if (top.agent !== want) throw new Error(`results[0].agent is "${top.agent}", want "${want}"`);
	`${text.split("\n")[0]} results[0].agent="${top.agent}"`' \
	"codex tool call search_memory"

start
cli_check() {
	IHMT_SOCKET=$SOCK IHMT_PROJECT=$PROJECT_KEY timeout 30 "$BIN/ihmt" search --json "$QUERY" >"$LOGS/ihmt-search.json" 2>&1 || {
		cat "$LOGS/ihmt-search.json"
		return 1
	}
	node -e '
		const [file, nonce, project, version] = process.argv.slice(1);
		const j = JSON.parse(require("fs").readFileSync(file, "utf8"));
		const m = ((j.results || [])[0] || {}).memory || {};
		const fail = (s) => { console.log(s); process.exit(1); };
		if (j.status !== "found") fail("status " + j.status + ": " + j.message);
		if (!(m.content || "").includes(nonce)) fail("top result is not the saved memory: " + m.content);
		if (m.project !== project || m.scope !== "project") fail(`stored in ${m.scope} ${m.project}, want project ${project}`);
		if (!m.agent || m.agent.name !== "codex-mcp-client" || m.agent.version !== version) fail("stored agent " + JSON.stringify(m.agent));
		console.log(`id ${m.id} agent.name="${m.agent.name}" agent.version="${m.agent.version}" project=${m.project} session=${m.session_id}`);' \
		"$LOGS/ihmt-search.json" "$NONCE" "$PROJECT_KEY" "$CODEX_VERSION"
}
check "ihmt search --json (stored agent)" "$LOGS/ihmt-search.json" cli_check

# --- 6. Claude Code: a tool call chosen by a (fake) model ---------------------------------------
cat >"$WORK/fake-anthropic.js" <<'EOF'
// A fake Anthropic Messages API. While the conversation has no tool result yet and the request
// offers the tool argv[4], it streams a tool_use for it with input argv[5]; otherwise it answers
// with text. Every request body is appended to argv[3]; the port is written to argv[2].
const http = require('http'); const fs = require('fs');
const [, , portFile, logFile, toolName, toolInput] = process.argv;
let n = 0;
function reply(res, j, content, stop) {
  const message = { id: 'msg_' + (++n), type: 'message', role: 'assistant', model: j.model || 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } };
  if (!j.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(Object.assign(message, { content, stop_reason: stop })));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const ev = (type, d) => res.write(`event: ${type}\ndata: ${JSON.stringify(Object.assign({ type }, d))}\n\n`);
  ev('message_start', { message });
  content.forEach((c, index) => {
    if (c.type === 'tool_use') {
      ev('content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
      ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
    } else {
      ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index, delta: { type: 'text_delta', text: c.text } });
    }
    ev('content_block_stop', { index });
  });
  ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  ev('message_stop', {});
  res.end();
}
const srv = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    let j = {}; try { j = JSON.parse(body); } catch {}
    fs.appendFileSync(logFile, JSON.stringify({ url: req.url, body: j }) + '\n');
    if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: 10 }));
    }
    const msgs = j.messages || [], last = msgs[msgs.length - 1] || {};
    const answered = Array.isArray(last.content) && last.content.some((c) => c.type === 'tool_result');
    const offered = (j.tools || []).some((t) => t.name === toolName);
    if (!answered && offered) reply(res, j, [{ type: 'tool_use', id: 'toolu_ihmtcheck_' + n, name: toolName, input: JSON.parse(toolInput) }], 'tool_use');
    else reply(res, j, [{ type: 'text', text: 'FAKE-MODEL-DONE' }], 'end_turn');
  });
});
srv.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(srv.address().port)));
EOF
claude_call() {
	node "$WORK/fake-anthropic.js" "$WORK/fake.port" "$LOGS/fake-anthropic.jsonl" mcp__ihmt__search_memory \
		"{\"query\":\"$QUERY\"}" >"$LOGS/fake-anthropic.log" 2>&1 &
	fake_pid=$!
	local i
	for i in $(seq 50); do [[ -s $WORK/fake.port ]] && break; sleep 0.1; done
	[[ -s $WORK/fake.port ]] || { echo "the fake Anthropic API did not start"; return 1; }
	ENABLE_TOOL_SEARCH=false ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$WORK/fake.port")" ANTHROPIC_API_KEY=dummy \
		MCP_TIMEOUT=30000 timeout 180 "$CLAUDE" -p "What do we know about the staging deploy key?" \
		--allowedTools mcp__ihmt__search_memory --output-format json </dev/null >"$LOGS/claude-p.json" 2>"$LOGS/claude-p.err" || {
		echo "claude -p failed: $(head -c 300 "$LOGS/claude-p.json" "$LOGS/claude-p.err")"
		return 1
	}
	node -e '
		const fs = require("fs");
		const [log, out, nonce, instr] = process.argv.slice(1);
		const fail = (s) => { console.log(s); process.exit(1); };
		const reqs = fs.readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l).body);
		if (!reqs.some((b) => (b.tools || []).some((t) => t.name === "mcp__ihmt__search_memory"))) fail("the model was never offered mcp__ihmt__search_memory");
		let result;
		for (const b of reqs) for (const m of b.messages || []) if (Array.isArray(m.content))
			for (const c of m.content) if (c.type === "tool_result" && String(c.tool_use_id).startsWith("toolu_ihmtcheck_")) result = c;
		if (!result) fail("claude never returned a tool_result for the tool_use");
		const text = typeof result.content === "string" ? result.content : (result.content || []).map((c) => c.text || "").join("\n");
		if (result.is_error) fail("tool_result is an error: " + text.slice(0, 300));
		if (!text.includes(nonce)) fail("tool_result lacks the saved memory: " + text.slice(0, 300));
		const o = JSON.parse(fs.readFileSync(out, "utf8"));
		if (o.is_error || o.result !== "FAKE-MODEL-DONE") fail("claude -p result: " + JSON.stringify(o.result));
		// The instructions `ihmt mcp install` wrote reach the model (Claude Code drops the markers).
		const md = fs.readFileSync(instr, "utf8").split("\n").find((l) => l.trim() && !l.startsWith("<!-- ihmt:"));
		if (!JSON.stringify(reqs).includes(JSON.stringify(md).slice(1, -1))) fail("no request holds ~/.claude/CLAUDE.md: " + md);
		const shown = text.startsWith("{") ? "structured JSON " + text.slice(0, 60) + "…" : text.split("\n")[0];
		console.log(`mcp__ihmt__search_memory called; tool_result (${shown}) holds the memory; the model got ~/.claude/CLAUDE.md; num_turns=${o.num_turns}`);' \
		"$LOGS/fake-anthropic.jsonl" "$LOGS/claude-p.json" "$NONCE" "$(instructions_file claude)"
}
start; check "claude -p tool call (fake model)" "$LOGS/claude-p.err" claude_call
if [[ -n $fake_pid ]]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fake_pid=; fi

# --- 6b. the session and project families through Codex ---------------------------------------
# toolbox_codex: a second `codex app-server` session lists all ten tools and calls note and recall
# (session family) and project_map, find_code and read_file twice (project family) in this
# project, which gets a small Go file to find.
cat >"$WORK/codex-toolbox.js" <<'EOF'
// Drives `codex app-server` as codex-driver.js does, for the session and project tools; writes
// every answer to the JSON file argv[2].
const { spawn } = require('child_process');
const fs = require('fs');
const [, , out, nonce, ...cmd] = process.argv;
const p = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const result = {};
let buf = '', id = 0;
const pending = new Map();
p.stdout.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\n')) >= 0;) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    let m; try { m = JSON.parse(line); } catch { continue; }
    if (m.method === undefined && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
  }
});
p.on('exit', (code) => { for (const r of pending.values()) r({ error: { message: `codex app-server exited (${code})` } }); pending.clear(); });
function request(method, params) {
  const i = ++id;
  p.stdin.write(JSON.stringify({ id: i, method, params }) + '\n');
  return new Promise((resolve) => {
    const t = setTimeout(() => { pending.delete(i); resolve({ error: { message: `${method}: no answer in 60 s` } }); }, 60000);
    pending.set(i, (m) => { clearTimeout(t); resolve(m); });
  });
}
(async () => {
  try {
    const init = await request('initialize', { clientInfo: { name: 'ihmt-agents-check', title: 'IHMT agents check', version: '1' } });
    if (init.error) throw new Error('initialize: ' + JSON.stringify(init.error));
    p.stdin.write(JSON.stringify({ method: 'initialized', params: {} }) + '\n');
    result.status = await request('mcpServerStatus/list', {});
    const t = await request('thread/start', { cwd: process.cwd(), ephemeral: true });
    if (t.error) throw new Error('thread/start: ' + JSON.stringify(t.error));
    const call = (tool, args) => request('mcpServer/tool/call', { threadId: t.result.thread.id, server: 'ihmt', tool, arguments: args });
    result.note = await call('note', { text: `The ${nonce} fixture needs TZ=UTC.` });
    result.recall = await call('recall', { query: `${nonce} fixture` });
    result.map = await call('project_map', { detail: 'symbols' });
    result.find = await call('find_code', { query: 'rotate the staging deploy key' });
    result.read1 = await call('read_file', { path: 'rotate.go' });
    result.read2 = await call('read_file', { path: 'rotate.go' });
  } catch (e) {
    result.driverError = String(e);
  }
  fs.writeFileSync(out, JSON.stringify(result, null, 2));
  p.stdin.end();
  const kill = setTimeout(() => p.kill('SIGTERM'), 10000);
  p.on('exit', () => { clearTimeout(kill); process.exit(0); });
})();
EOF
toolbox_codex() {
	printf 'package proj\n\n// RotateDeployKey rotates the staging deploy key every 17 days.\nfunc RotateDeployKey() int { return 17 }\n' >"$PROJ/rotate.go"
	timeout 180 node "$WORK/codex-toolbox.js" "$WORK/codex-toolbox.json" "$NONCE" \
		"$CODEX" app-server "${CODEX_OFFLINE[@]}" >"$LOGS/codex-toolbox.log" 2>&1 || true
	[[ -s $WORK/codex-toolbox.json ]] || { echo "no output from the driver (timed out?)"; return 1; }
	node -e '
		const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")), nonce = process.argv[2];
		const fail = (s) => { console.log(s); process.exit(1); };
		if (r.driverError) fail(r.driverError);
		const s = ((r.status.result || {}).data || []).find((x) => x.name === "ihmt");
		if (!s || !s.tools) fail("mcpServerStatus/list: " + JSON.stringify(r.status).slice(0, 300));
		const names = Object.keys(s.tools).sort();
		const want = ["digest_output", "find_code", "forget_memory", "mark_outdated", "note", "project_map", "read_file", "recall", "save_memory", "search_memory"];
		if (names.join() !== want.join()) fail("tools are " + names.join(", ") + "; want " + want.join(", "));
		const sc = (k) => {
			const x = r[k] || {};
			if (x.error || !x.result) fail(k + ": " + JSON.stringify(x.error || x));
			if (x.result.isError) fail(k + ": tool error: " + JSON.stringify(x.result.content));
			return x.result.structuredContent || {};
		};
		if (!sc("note").id) fail("note: no id");
		const rc = sc("recall");
		if (rc.status !== "found" || !(rc.hits[0].text || "").includes(nonce)) fail("recall: " + JSON.stringify(rc).slice(0, 300));
		const m = sc("map"), f = (m.files || []).find((x) => x.path === "rotate.go");
		if (!f || !(f.symbols || []).some((y) => y.name === "RotateDeployKey")) fail("project_map: " + JSON.stringify(m).slice(0, 300));
		const fc = sc("find");
		if (fc.status !== "found" || !(fc.hits[0].place || "").startsWith("rotate.go:3-4")) fail("find_code: " + JSON.stringify(fc).slice(0, 300));
		const r1 = sc("read1"), r2 = sc("read2");
		if (r1.mode !== "full" || r2.mode !== "unchanged") fail(`read_file twice: ${r1.mode}, then ${r2.mode}`);
		console.log(`ten tools; note+recall found; project_map lists RotateDeployKey; find_code ${fc.hits[0].place}; read_file full, then unchanged`);' \
		"$WORK/codex-toolbox.json" "$NONCE"
}
start; check "codex: session + project tools" "$LOGS/codex-toolbox.log" toolbox_codex

# --- 6c. memory hooks: injected at a session start and with a prompt, offline ---------------------
# `ihmt mcp install` (above) also installed each agent's hooks. A memory dated long ago, behind a
# small briefing budget, is left out of the briefing, so that only the per-prompt search can bring
# it: the requests the fake models receive must hold the briefing (startup) and that memory
# (per prompt). Codex runs only hooks the person trusted: an untrusted run must inject nothing
# (what install and doctor warn of), then trusting them as /hooks does (app-server hooks/list,
# then config/value/write of hooks.state) makes `codex exec` inject both.
HOOK_NONCE="h$(date +%s)y$RANDOM"
HOOK_MEMORY="Hooks check $HOOK_NONCE: the quince-walrus rehearsal needs two kazoos and a tuba."
HOOK_PROMPT="What does the quince-walrus rehearsal need? $HOOK_NONCE"
BRIEF_HEAD="IHMT memory for $PROJECT_KEY"
PROMPT_HEAD="IHMT memory found for this prompt"
hooks_setup() {
	mkdir -p "$STORE" && printf '[context]\nstart_tokens = 100\n' >"$STORE/config.toml"
	local i
	IHMT_SOCKET=$SOCK IHMT_PROJECT=$PROJECT_KEY timeout 30 "$BIN/ihmt" save --scope project --date 2020-01-01 "$HOOK_MEMORY" >/dev/null || return 1
	for i in 1 2 3 4 5 6; do
		IHMT_SOCKET=$SOCK IHMT_PROJECT=$PROJECT_KEY timeout 30 "$BIN/ihmt" save --scope project "Hooks check filler $i: the nightly job number $i copies the warehouse snapshots to cold storage." >/dev/null || return 1
	done
	local out
	out=$(echo '{"session_id":"setup","hook_event_name":"SessionStart","source":"startup","cwd":"'"$PROJ"'"}' | env "${IHMT_ENV[@]}" "$BIN/ihmt" context --hook claude)
	[[ $out == *"$BRIEF_HEAD"* ]] || { echo "the briefing is not what the hooks will print: $out"; return 1; }
	[[ $out != *"$HOOK_NONCE"* ]] || { echo "the briefing holds the per-prompt memory, so the per-prompt check would prove nothing: $out"; return 1; }
	echo "7 memories saved; the briefing (budget 100) leaves the old one out"
}
start; check "hooks: store for the checks" "$LOGS/hooks-setup" hooks_setup
# injected FILE AGENT: the request bodies logged in FILE hold the briefing and, with the per-prompt
# heading, the memory only the prompt's search finds.
injected() {
	node -e '
		const fs = require("fs");
		const [file, agent, brief, head, nonce] = process.argv.slice(1);
		const fail = (s) => { console.log(s); process.exit(1); };
		const all = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
		if (!all.trim()) fail(agent + ": the fake model received no request");
		const reqs = all.trim().split("\n").map((l) => JSON.stringify(JSON.parse(l).body));
		const b = reqs.filter((r) => r.includes(JSON.stringify(brief).slice(1, -1)));
		const p = reqs.filter((r) => r.includes(head) && r.includes(nonce));
		if (!b.length) fail(agent + ": no request holds the session-start briefing (" + brief + "): " + reqs[0].slice(0, 300));
		if (!p.length) fail(agent + ": no request holds the per-prompt memory (" + nonce + ")");
		console.log(`${agent}: ${b.length}/${reqs.length} requests hold the briefing, ${p.length} the per-prompt memory ${nonce}`);' \
		"$1" "$2" "$BRIEF_HEAD" "$PROMPT_HEAD" "$HOOK_NONCE"
}
start_fake() { # start_fake SCRIPT LOG ARGS...: starts a fake model API, sets fake_pid and fake_port
	local script=$1 log=$2
	shift 2
	rm -f "$WORK/fake.port"
	node "$script" "$WORK/fake.port" "$log" "$@" >"$log.out" 2>&1 &
	fake_pid=$!
	local i
	for i in $(seq 50); do [[ -s $WORK/fake.port ]] && break; sleep 0.1; done
	[[ -s $WORK/fake.port ]] || { echo "the fake model API did not start"; return 1; }
	fake_port=$(cat "$WORK/fake.port")
}
stop_fake() { if [[ -n $fake_pid ]]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fake_pid=; fi; }
hooks_claude() {
	start_fake "$WORK/fake-anthropic.js" "$LOGS/hooks-claude.jsonl" none '{}' || return 1
	ENABLE_TOOL_SEARCH=false ANTHROPIC_BASE_URL="http://127.0.0.1:$fake_port" ANTHROPIC_API_KEY=dummy \
		MCP_TIMEOUT=30000 timeout 180 "$CLAUDE" -p "$HOOK_PROMPT" --output-format json </dev/null >"$LOGS/hooks-claude.json" 2>"$LOGS/hooks-claude.err" || {
		echo "claude -p failed: $(head -c 300 "$LOGS/hooks-claude.json" "$LOGS/hooks-claude.err")"
		stop_fake
		return 1
	}
	stop_fake
	injected "$LOGS/hooks-claude.jsonl" "claude -p"
}
start; check "hooks: claude -p (fake model)" "$LOGS/hooks-claude.err" hooks_claude
cat >"$WORK/fake-responses.js" <<'EOF'
// A fake OpenAI Responses API: every POST .../responses is logged to argv[3] and answered with a
// streamed assistant message; the port is written to argv[2].
const http = require('http'); const fs = require('fs');
const [, , portFile, logFile] = process.argv;
let n = 0;
const srv = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    let j = {}; try { j = JSON.parse(body); } catch {}
    fs.appendFileSync(logFile, JSON.stringify({ url: req.url, body: j }) + '\n');
    if (!req.url.endsWith('/responses')) { res.writeHead(404); return res.end(); }
    const id = 'resp_' + (++n);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const ev = (type, d) => res.write(`event: ${type}\ndata: ${JSON.stringify(Object.assign({ type }, d))}\n\n`);
    const item = { type: 'message', role: 'assistant', id: 'msg_' + n, status: 'completed', content: [{ type: 'output_text', text: 'FAKE-MODEL-DONE', annotations: [] }] };
    ev('response.created', { response: { id } });
    ev('response.output_item.added', { output_index: 0, item: Object.assign({}, item, { status: 'in_progress', content: [] }) });
    ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: 'FAKE-MODEL-DONE' });
    ev('response.output_item.done', { output_index: 0, item });
    ev('response.completed', { response: { id, output: [item], usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 } } });
    res.end();
  });
});
srv.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(srv.address().port)));
EOF
codex_exec() { # codex_exec LOG: one `codex exec` of the prompt against the fake Responses API
	timeout 120 "$CODEX" exec --skip-git-repo-check -c model_provider=mock -c model_providers.mock.name=mock \
		-c "model_providers.mock.base_url=\"http://127.0.0.1:$fake_port/v1\"" -c model_providers.mock.wire_api=responses \
		-c model_providers.mock.env_key=MOCK_KEY -c model_providers.mock.supports_websockets=false -c model=mock-model \
		-c check_for_update_on_startup=false "$HOOK_PROMPT" </dev/null >"$1.out" 2>"$1.err"
}
hooks_codex_untrusted() {
	start_fake "$WORK/fake-responses.js" "$LOGS/hooks-codex-untrusted.jsonl" || return 1
	MOCK_KEY=dummy codex_exec "$LOGS/hooks-codex-untrusted" || { echo "codex exec failed: $(tail -c 300 "$LOGS/hooks-codex-untrusted.err")"; stop_fake; return 1; }
	stop_fake
	if injected "$LOGS/hooks-codex-untrusted.jsonl" "codex exec" >/dev/null; then echo "an untrusted hook ran: Codex no longer asks for trust, and install's warning is wrong"; return 1; fi
	grep -q '"FAKE-MODEL-DONE"\|FAKE-MODEL-DONE' "$LOGS/hooks-codex-untrusted.out" || { echo "codex exec did not finish the turn: $(tail -c 300 "$LOGS/hooks-codex-untrusted.err")"; return 1; }
	ihmt_ doctor --json >"$LOGS/hooks-doctor-untrusted.json" 2>/dev/null || true
	node -e '
		const c = (JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).checks || []).find((c) => c.name === "codex hooks");
		if (!c || c.status !== "warn" || !/untrusted/.test(c.finding)) { console.log("doctor: " + JSON.stringify(c)); process.exit(1); }
		console.log("codex exec skipped the untrusted hooks silently; doctor warns: " + c.finding.replace(/.*skip them: /, ""));' "$LOGS/hooks-doctor-untrusted.json"
}
start; check "hooks: codex exec, untrusted" "$LOGS/hooks-codex-untrusted.err" hooks_codex_untrusted
cat >"$WORK/codex-trust.js" <<'EOF'
// Trusts IHMT's hooks as /hooks does: reads each one's currentHash from `codex app-server`
// hooks/list and records it as hooks.state.<key>.trusted_hash (config/value/write).
const { spawn } = require('child_process');
const [, , cwd, ...cmd] = process.argv;
const p = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
let buf = '', id = 0; const pending = new Map();
p.stdout.on('data', (d) => { buf += d; for (let i; (i = buf.indexOf('\n')) >= 0;) { const l = buf.slice(0, i); buf = buf.slice(i + 1); let m; try { m = JSON.parse(l); } catch { continue; } if (m.method === undefined && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); } } });
const request = (method, params) => new Promise((res) => { const i = ++id; pending.set(i, res); p.stdin.write(JSON.stringify({ id: i, method, params }) + '\n'); });
setTimeout(() => { console.log('codex app-server: no answer in 60 s'); process.exit(1); }, 60000);
(async () => {
  await request('initialize', { clientInfo: { name: 'ihmt-agents-check', version: '1' } });
  p.stdin.write(JSON.stringify({ method: 'initialized', params: {} }) + '\n');
  const list = await request('hooks/list', { cwds: [cwd] });
  const ours = ((list.result || {}).data || []).flatMap((d) => d.hooks).filter((h) => h.command.includes(' context --hook codex'));
  if (ours.length !== 2) { console.log('hooks/list: want 2 IHMT hooks, got ' + JSON.stringify(list).slice(0, 400)); process.exit(1); }
  const state = {};
  for (const h of ours) state[h.key] = { trusted_hash: h.currentHash };
  const w = await request('config/value/write', { keyPath: 'hooks.state', value: state, mergeStrategy: 'upsert' });
  if (w.error) { console.log('config/value/write: ' + JSON.stringify(w.error)); process.exit(1); }
  console.log(ours.map((h) => `${h.eventName} (${h.trustStatus} before)`).join(', ') + ' trusted');
  p.kill(); process.exit(0);
})();
EOF
hooks_codex_trusted() {
	timeout 90 node "$WORK/codex-trust.js" "$PROJ" "$CODEX" app-server -c check_for_update_on_startup=false 2>/dev/null >"$LOGS/hooks-codex-trust.log" || { cat "$LOGS/hooks-codex-trust.log"; return 1; }
	ihmt_ doctor --json >"$LOGS/hooks-doctor-trusted.json" 2>/dev/null || true
	node -e '
		const c = (JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).checks || []).find((c) => c.name === "codex hooks");
		if (!c || c.status !== "ok") { console.log("doctor after trusting: " + JSON.stringify(c)); process.exit(1); }' "$LOGS/hooks-doctor-trusted.json" || return 1
	start_fake "$WORK/fake-responses.js" "$LOGS/hooks-codex.jsonl" || return 1
	MOCK_KEY=dummy codex_exec "$LOGS/hooks-codex" || { echo "codex exec failed: $(tail -c 300 "$LOGS/hooks-codex.err")"; stop_fake; return 1; }
	stop_fake
	echo "$(cat "$LOGS/hooks-codex-trust.log"); doctor ok; $(injected "$LOGS/hooks-codex.jsonl" "codex exec")"
}
start; check "hooks: codex exec, trusted" "$LOGS/hooks-codex.err" hooks_codex_trusted

# opencode: the plugin install wrote is loaded by `opencode run` (against the fake Anthropic API,
# configured in the project's opencode.json, removed afterwards); the system prompt it sends holds
# the briefing (experimental.chat.system.transform) and the memory the prompt's search found
# (chat.message). Compaction (experimental.session.compacting) is not exercised: `opencode run`
# never compacts a one-prompt session.
hooks_opencode() {
	start_fake "$WORK/fake-anthropic.js" "$LOGS/hooks-opencode.jsonl" none '{}' || return 1
	printf '{"provider":{"anthropic":{"options":{"baseURL":"http://127.0.0.1:%s/v1","apiKey":"dummy"}}}}\n' "$fake_port" >"$PROJ/opencode.json"
	timeout 180 "$OPENCODE" run -m anthropic/claude-sonnet-4-5 "$HOOK_PROMPT" </dev/null >"$LOGS/hooks-opencode.out" 2>&1
	local rc=$?
	rm -f "$PROJ/opencode.json"
	stop_fake
	[[ $rc == 0 ]] || { echo "opencode run: exit status $rc: $(tail -c 300 "$LOGS/hooks-opencode.out")"; return 1; }
	node -e '
		const fs = require("fs");
		const [file, brief, head, nonce] = process.argv.slice(1);
		const reqs = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l).body);
		const sys = (b) => JSON.stringify(b.system || "");
		const b = reqs.filter((r) => sys(r).includes(brief)), p = reqs.filter((r) => sys(r).includes(head) && sys(r).includes(nonce));
		if (!b.length || !p.length) { console.log(`opencode run: of ${reqs.length} requests, ${b.length} have the briefing and ${p.length} the per-prompt memory in the system prompt`); process.exit(1); }
		console.log(`opencode run: ${b.length}/${reqs.length} requests have the briefing in the system prompt, ${p.length} the per-prompt memory ${nonce}`);' \
		"$LOGS/hooks-opencode.jsonl" "$BRIEF_HEAD" "$PROMPT_HEAD" "$HOOK_NONCE"
}
start; check "hooks: opencode run (fake model)" "$LOGS/hooks-opencode.out" hooks_opencode

# --- 6d. Gemini CLI and Copilot CLI: a tool call chosen by a (fake) model -----------------------
# Each fake answers the first request that offers a tool named …search_memory with a call of it,
# and every later one with text; the check then reads, in the requests the client sent, the tool
# result (it must hold the memory Codex saved) and the instructions install wrote.
cat >"$WORK/fake-gemini.js" <<'EOF'
// A fake Gemini API (generateContent and streamGenerateContent). While the conversation has no
// function response yet and the request offers a function whose name ends with argv[4], it answers
// with a call of it, arguments argv[5]; otherwise with text. Every request is appended to argv[3];
// the port is written to argv[2].
const http = require('http'); const fs = require('fs');
const [, , portFile, logFile, toolSuffix, toolArgs] = process.argv;
const srv = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    let j = {}; try { j = JSON.parse(body); } catch {}
    fs.appendFileSync(logFile, JSON.stringify({ url: req.url, body: j }) + '\n');
    if (req.url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ totalTokens: 10 }));
    }
    const contents = j.contents || [];
    const last = contents[contents.length - 1] || {};
    const answered = (last.parts || []).some((p) => p.functionResponse);
    const decls = (j.tools || []).flatMap((t) => t.functionDeclarations || []);
    const tool = decls.find((d) => d.name.endsWith(toolSuffix));
    let parts;
    if (!answered && tool) parts = [{ functionCall: { name: tool.name, args: JSON.parse(toolArgs) } }];
    else if ((j.generationConfig || {}).responseMimeType === 'application/json') parts = [{ text: '{"next_speaker":"user","reasoning":"done"}' }];
    else parts = [{ text: 'FAKE-MODEL-DONE' }];
    const resp = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: 'gemini-fake' };
    if (req.url.includes(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: ' + JSON.stringify(resp) + '\r\n\r\n');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(resp));
    }
  });
});
srv.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(srv.address().port)));
EOF
cat >"$WORK/fake-chat.js" <<'EOF'
// A fake OpenAI Chat Completions API. While the conversation has no tool message yet and the
// request offers a function whose name ends with argv[4], it answers with a call of it,
// arguments argv[5]; otherwise with text. Streams when asked. Every request is appended to
// argv[3]; the port is written to argv[2].
const http = require('http'); const fs = require('fs');
const [, , portFile, logFile, toolSuffix, toolArgs] = process.argv;
let n = 0;
const srv = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    let j = {}; try { j = JSON.parse(body); } catch {}
    fs.appendFileSync(logFile, JSON.stringify({ method: req.method, url: req.url, body: j }) + '\n');
    if (!req.url.includes('/chat/completions')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: j.model || 'fake-model', object: 'model', owned_by: 'ihmt' }] }));
    }
    const msgs = j.messages || [];
    const answered = msgs.some((m) => m.role === 'tool');
    const tool = (j.tools || []).map((t) => t.function || {}).find((f) => (f.name || '').endsWith(toolSuffix));
    const id = 'chatcmpl-' + (++n), model = j.model || 'fake-model', created = Math.floor(Date.now() / 1000);
    const call = !answered && tool ? { id: 'call_ihmtcheck_' + n, type: 'function', function: { name: tool.name, arguments: toolArgs } } : null;
    const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: 'FAKE-MODEL-DONE' };
    const finish = call ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (!j.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta, fr, extra) => res.write('data: ' + JSON.stringify(Object.assign({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: fr }] }, extra || {})) + '\n\n');
    chunk({ role: 'assistant', content: '' }, null);
    if (call) chunk({ tool_calls: [Object.assign({ index: 0 }, call)] }, null);
    else chunk({ content: message.content }, null);
    chunk({}, finish, { usage });
    res.end('data: [DONE]\n\n');
  });
});
srv.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(srv.address().port)));
EOF
# start_fake SCRIPT NAME: starts a fake model API with the search_memory call; its port is in
# $WORK/NAME.port, its requests in $LOGS/NAME.jsonl.
start_fake() {
	rm -f "$WORK/$2.port"
	node "$WORK/$1" "$WORK/$2.port" "$LOGS/$2.jsonl" search_memory "{\"query\":\"$QUERY\"}" >"$LOGS/$2.log" 2>&1 &
	fake_pid=$!
	local i
	for i in $(seq 50); do [[ -s $WORK/$2.port ]] && break; sleep 0.1; done
	[[ -s $WORK/$2.port ]] || { echo "the fake $2 API did not start"; return 1; }
}
stop_fake() {
	if [[ -n $fake_pid ]]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fake_pid=; fi
}
# model_saw LOG FORMAT INSTRUCTIONS ANSWER-FILE: the requests in LOG (gemini or chat format) offered
# search_memory, returned its result holding the memory, and hold the instructions file's text;
# the client's final answer is the fake's.
model_saw() {
	node -e '
		const fs = require("fs");
		const [log, format, nonce, instr, answer] = process.argv.slice(1);
		const fail = (s) => { console.log(s); process.exit(1); };
		const reqs = fs.readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l).body);
		let offered = "", result = "";
		for (const b of reqs) {
			if (format === "gemini") {
				for (const d of (b.tools || []).flatMap((t) => t.functionDeclarations || [])) if (d.name.endsWith("search_memory")) offered = d.name;
				for (const c of b.contents || []) for (const p of c.parts || []) if (p.functionResponse && p.functionResponse.name === offered) result = JSON.stringify(p.functionResponse.response);
			} else {
				for (const t of b.tools || []) if (((t.function || {}).name || "").endsWith("search_memory")) offered = t.function.name;
				for (const m of b.messages || []) if (m.role === "tool" && String(m.tool_call_id).startsWith("call_ihmtcheck_")) result = JSON.stringify(m.content);
			}
		}
		if (!offered) fail("the model was never offered search_memory");
		if (!result) fail("no tool result for the call of " + offered);
		if (!result.includes(nonce)) fail("the tool result lacks the saved memory: " + result.slice(0, 300));
		const md = fs.readFileSync(instr, "utf8").split("\n").find((l) => l.trim() && !l.startsWith("<!-- ihmt:"));
		if (!JSON.stringify(reqs).includes(JSON.stringify(md).slice(1, -1))) fail("no request holds " + instr + ": " + md);
		const out = fs.readFileSync(answer, "utf8");
		if (!out.includes("FAKE-MODEL-DONE")) fail("final answer: " + out.slice(0, 200));
		console.log(`${offered} called; its result holds the memory; the model got ${instr.split("/").slice(-2).join("/")}; ${reqs.length} model requests`);' \
		"$1" "$2" "$NONCE" "$3" "$4"
}
gemini_call() {
	start_fake fake-gemini.js fake-gemini || return 1
	GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$(cat "$WORK/fake-gemini.port")" GEMINI_API_KEY=dummy \
		timeout 180 "$GEMINI" -p "What do we know about the staging deploy key?" --output-format json \
		</dev/null >"$LOGS/gemini-p.json" 2>"$LOGS/gemini-p.err" || {
		echo "gemini -p failed: $(head -c 300 "$LOGS/gemini-p.json" "$LOGS/gemini-p.err")"
		stop_fake
		return 1
	}
	stop_fake
	model_saw "$LOGS/fake-gemini.jsonl" gemini "$(instructions_file gemini)" "$LOGS/gemini-p.json"
}
copilot_call() {
	start_fake fake-chat.js fake-copilot || return 1
	COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$(cat "$WORK/fake-copilot.port")/v1" \
		COPILOT_PROVIDER_TYPE=openai COPILOT_MODEL=ihmtcheck-model \
		timeout 180 "$COPILOT" -p "What do we know about the staging deploy key?" --allow-all-tools -s \
		</dev/null >"$LOGS/copilot-p.txt" 2>"$LOGS/copilot-p.err" || {
		echo "copilot -p failed: $(head -c 300 "$LOGS/copilot-p.txt" "$LOGS/copilot-p.err")"
		stop_fake
		return 1
	}
	stop_fake
	model_saw "$LOGS/fake-copilot.jsonl" chat "$(instructions_file copilot)" "$LOGS/copilot-p.txt"
}
start; check "gemini -p tool call (fake model)" "$LOGS/gemini-p.err" gemini_call
start; check "copilot -p tool call (fake model)" "$LOGS/copilot-p.err" copilot_call

# --- 6e. Gemini CLI and Copilot CLI: their memory hooks, offline ---------------------------------
# Install (step 3) also wrote their hooks: Gemini CLI's SessionStart and BeforeAgent in
# ~/.gemini/settings.json, Copilot CLI's sessionStart and userPromptSubmitted in
# ~/.copilot/hooks/ihmt.json. doctor reads them back; then one `gemini -p` and one `copilot -p` of
# the hooks' prompt (against the same fakes as above, on the store of 6c) must send the model the
# session-start briefing and the memory only the per-prompt search finds.
hooks_doctor() {
	ihmt_ doctor --json >"$LOGS/hooks-doctor.json" 2>/dev/null || true
	node -e '
		const [file, home] = process.argv.slice(1);
		const checks = JSON.parse(require("fs").readFileSync(file, "utf8")).checks || [];
		const want = { gemini: home + "/.gemini/settings.json", copilot: home + "/.copilot/hooks/ihmt.json" }, got = [];
		for (const [cl, path] of Object.entries(want)) {
			const c = checks.find((c) => c.name === cl + " hooks");
			if (!c || c.status !== "ok" || !c.finding.includes(path)) { console.log(cl + " hooks: " + JSON.stringify(c)); process.exit(1); }
			got.push(`${cl}: ${c.finding.split(home).join("~")}`);
		}
		console.log(got.join("; "));' "$LOGS/hooks-doctor.json" "$HOME"
}
start; check "hooks: doctor reads gemini's and copilot's" "$LOGS/hooks-doctor.json" hooks_doctor
hooks_gemini() {
	start_fake fake-gemini.js hooks-gemini || return 1
	GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$(cat "$WORK/hooks-gemini.port")" GEMINI_API_KEY=dummy \
		timeout 180 "$GEMINI" -p "$HOOK_PROMPT" --output-format json </dev/null >"$LOGS/hooks-gemini.json" 2>"$LOGS/hooks-gemini.err" || {
		echo "gemini -p failed: $(head -c 300 "$LOGS/hooks-gemini.json" "$LOGS/hooks-gemini.err")"
		stop_fake
		return 1
	}
	stop_fake
	injected "$LOGS/hooks-gemini.jsonl" "gemini -p"
}
start; check "hooks: gemini -p (fake model)" "$LOGS/hooks-gemini.err" hooks_gemini
hooks_copilot() {
	start_fake fake-chat.js hooks-copilot || return 1
	COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$(cat "$WORK/hooks-copilot.port")/v1" \
		COPILOT_PROVIDER_TYPE=openai COPILOT_MODEL=ihmtcheck-model \
		timeout 180 "$COPILOT" -p "$HOOK_PROMPT" --allow-all-tools -s </dev/null >"$LOGS/hooks-copilot.txt" 2>"$LOGS/hooks-copilot.err" || {
		echo "copilot -p failed: $(head -c 300 "$LOGS/hooks-copilot.txt" "$LOGS/hooks-copilot.err")"
		stop_fake
		return 1
	}
	stop_fake
	injected "$LOGS/hooks-copilot.jsonl" "copilot -p"
}
start; check "hooks: copilot -p (fake model)" "$LOGS/hooks-copilot.err" hooks_copilot

# --- 7. the daemon ------------------------------------------------------------------------------
start
daemon_log() {
	[[ -s $WORK/run/ihmtd.log ]] || { echo "no ihmtd.log beside the socket: the shim never started ihmtd"; return 1; }
	if grep -E 'level=(ERROR|WARN)' "$WORK/run/ihmtd.log"; then return 1; fi
	echo "$(grep -c . "$WORK/run/ihmtd.log") lines, no WARN/ERROR ($(sed -n 's/.*msg="ihmtd listening".*\(pid=[0-9]*\).*/auto-started, \1/p' "$WORK/run/ihmtd.log" | head -n 1))"
}
check "ihmtd log clean" "$WORK/run/ihmtd.log" daemon_log

# --- 8. uninstall -------------------------------------------------------------------------------
# uninstall_client CLIENT: `ihmt mcp install --uninstall` removes the registration (for Claude Code
# by running `claude mcp remove`) and the instructions; no file left mentions ihmt (but for this
# run's temporary directory, whose name has it); and a second uninstall changes nothing.
uninstall_client() {
	local c=$1 log=$LOGS/$1-uninstall.json
	ihmt_ mcp install --client "$c" --uninstall --json >"$log" 2>&1 || { echo "exit status $?: $(head -c 300 "$log")"; return 1; }
	node -e '
		const [log, client] = process.argv.slice(1);
		const fail = (s) => { console.log(s); process.exit(1); };
		let j; try { j = JSON.parse(require("fs").readFileSync(log, "utf8")); } catch (e) { fail("not JSON: " + e.message); }
		if (j.client !== client || !j.uninstall || j.dry_run || !j.changed) fail("report: " + JSON.stringify(j).slice(0, 300));
		const files = j.files || [], reg = files.filter((f) => f.what === "registration" && !["absent", "unchanged"].includes(f.action));
		const ins = files.find((f) => f.what === "instructions");
		if (reg.length !== 1 || !["remove", "update"].includes(reg[0].action)) fail("registration changes: " + JSON.stringify(files));
		if (!ins || !["remove", "update"].includes(ins.action)) fail("instructions change: " + JSON.stringify(ins));
		const cmds = (j.commands || []).map((c) => c.args.join(" "));
		if (client === "claude" && (reg[0].via !== "claude" || !cmds.some((c) => / mcp remove --scope user ihmt$/.test(c)))) fail("not through `claude mcp remove`: " + JSON.stringify(j).slice(0, 300));
		if (client !== "claude" && (reg[0].via || cmds.length)) fail("ran commands: " + cmds.join("; "));' "$log" "$c" || return 1
	local f hits gone=() kept=()
	for f in $(config_files "$c") "$(instructions_file "$c")"; do
		[[ -e $f ]] || { [[ $f == *.jsonc ]] || gone+=("${f/#"$HOME"/\~}"); continue; }
		hits=$(sed "s#$WORK#<tmp>#g" "$f" | grep -in ihmt | head -n 3 || true)
		[[ -z $hits ]] || { echo "${f/#"$HOME"/\~} still mentions ihmt: $hits"; return 1; }
		kept+=("${f/#"$HOME"/\~}")
	done
	ihmt_ mcp install --client "$c" --uninstall >"$LOGS/$c-uninstall-again.log" 2>&1 || { echo "second uninstall: exit status $?: $(head -c 300 "$LOGS/$c-uninstall-again.log")"; return 1; }
	local want="$c: IHMT is not registered and its instructions are absent; nothing changed"
	[[ $(cat "$LOGS/$c-uninstall-again.log") == "$want" ]] || { echo "second uninstall: want '$want', got: $(head -c 300 "$LOGS/$c-uninstall-again.log")"; return 1; }
	echo "removed: ${gone[*]:-none}; no ihmt in: ${kept[*]:-none}; again: nothing changed"
}
for c in claude codex opencode gemini copilot; do
	start; check "mcp install --uninstall $c" "$LOGS/$c-uninstall.json" uninstall_client "$c"
done
# hooks_gone: the uninstalls above also removed every memory hook: no hook file left mentions
# `ihmt context` (Claude Code's settings.json is gone if install made it, else back as it was).
hooks_gone() {
	local f left=()
	for f in "$HOME/.claude/settings.json" "$HOME/.codex/hooks.json" "$HOME/.config/opencode/plugins/ihmt.js" \
		"$HOME/.gemini/settings.json" "$HOME/.copilot/hooks/ihmt.json"; do
		[[ -e $f ]] || continue
		if grep -q 'context --hook' "$f"; then echo "${f/#"$HOME"/\~} still holds an IHMT hook"; return 1; fi
		left+=("${f/#"$HOME"/\~}")
	done
	echo "no IHMT hook left (files kept: ${left[*]:-none})"
}
start; check "hooks removed by --uninstall" "$LOGS/hooks-gone" hooks_gone

total=$(awk -v a="$total_t0" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
echo "took ${total}s; logs: $LOGS$([[ $keep == 1 ]] || echo ' (removed on exit; --keep keeps them)')"
# The summary alone on the last line, in the form CI systems read.
echo "agents-check: $passed passed, $failed failed"
[[ $failed == 0 ]]

package mcpconfig

import (
	"errors"
	"fmt"
	"path/filepath"
)

// The clients registered by editing one JSON (or JSON with comments) file
// each, beyond Claude Code, Codex and opencode. What each one reads, and
// where, is data: one row per client below, each with the documentation
// it was taken from. A client's instructions file is "" where the client
// keeps its standing instructions only in its settings screen; the shim
// still sends IHMT's instructions to such a client at MCP initialize.

// More clients.
const (
	Gemini        = "gemini"
	Copilot       = "copilot"
	Cursor        = "cursor"
	ClaudeDesktop = "claude-desktop"
	VSCode        = "vscode"
	Windsurf      = "windsurf"
	Zed           = "zed"
)

// jsonClient is one client whose registration is a member of a JSON object.
type jsonClient struct {
	// title is the client's name for people.
	title string
	// cli is the executable that shows the client is installed here ("":
	// none to look for).
	cli string
	// servers is the top-level key the servers sit under.
	servers string
	// entry is the entry install writes.
	entry func(Server) any
	// user and project locate the files for each scope (base is the home
	// or the project directory); project is nil when the client has no
	// project configuration.
	user    func(e Env) (Locations, error)
	project func(base string) Locations
	// preamble opens an instructions file install creates (the front
	// matter that makes a rules file apply always), before IHMT's block.
	preamble string
	// hooks: IHMT installs its memory hooks for the client (hooks.go).
	hooks bool
}

// jsonClients are the clients configured through jsonClient rows.
var jsonClients = map[string]jsonClient{
	// https://geminicli.com/docs/cli/configuration (settings files:
	// ~/.gemini/settings.json, a project's .gemini/settings.json) and
	// https://geminicli.com/docs/tools/mcp-server (mcpServers: command,
	// args, env; trust skips the confirmation of each tool call, as Codex's
	// approval mode does: IHMT's tools only read the memory or add to it);
	// GEMINI.md is its context file, ~/.gemini/GEMINI.md for every project.
	Gemini: {
		title: "Gemini CLI", cli: "gemini", servers: "mcpServers",
		entry: stdioEntry("", true), hooks: true,
		user: func(e Env) (Locations, error) {
			return Locations{Configs: []string{filepath.Join(e.Home, ".gemini", "settings.json")}, Instructions: filepath.Join(e.Home, ".gemini", "GEMINI.md")}, nil
		},
		project: func(base string) Locations {
			return Locations{Configs: []string{filepath.Join(base, ".gemini", "settings.json")}, Instructions: filepath.Join(base, "GEMINI.md")}
		},
	},
	// `copilot mcp --help` (1.0.102): the user's servers in
	// $COPILOT_HOME/mcp-config.json (default ~/.copilot), a workspace's in
	// .mcp.json or .github/mcp.json; the entry is what `copilot mcp add`
	// writes. https://docs.github.com/copilot/how-tos/copilot-cli (custom
	// instructions): ~/.copilot/copilot-instructions.md for the user, the
	// repository's .github/copilot-instructions.md.
	Copilot: {
		title: "GitHub Copilot CLI", cli: "copilot", servers: "mcpServers",
		entry: copilotEntry, hooks: true,
		user: func(e Env) (Locations, error) {
			dir := filepath.Join(e.Home, ".copilot")
			if d := e.absEnv("COPILOT_HOME"); d != "" {
				dir = d
			}
			return Locations{Configs: []string{filepath.Join(dir, "mcp-config.json")}, Instructions: filepath.Join(dir, "copilot-instructions.md")}, nil
		},
		project: func(base string) Locations {
			// .github/mcp.json, not .mcp.json: that one is Claude Code's
			// project file too, and each keeps its own entry shape.
			return Locations{Configs: []string{filepath.Join(base, ".github", "mcp.json")}, Instructions: filepath.Join(base, ".github", "copilot-instructions.md")}
		},
	},
	// https://cursor.com/docs/context/mcp: ~/.cursor/mcp.json for every
	// project, .cursor/mcp.json for one, mcpServers with command, args, env.
	// https://cursor.com/docs/context/rules: project rules are
	// .cursor/rules/*.mdc files, "alwaysApply: true" in their front matter;
	// user rules live in Cursor's settings, not in a file.
	Cursor: {
		title: "Cursor", cli: "cursor", servers: "mcpServers",
		entry: stdioEntry("", false),
		user: func(e Env) (Locations, error) {
			return Locations{Configs: []string{filepath.Join(e.Home, ".cursor", "mcp.json")}}, nil
		},
		project: func(base string) Locations {
			return Locations{Configs: []string{filepath.Join(base, ".cursor", "mcp.json")}, Instructions: filepath.Join(base, ".cursor", "rules", "ihmt.mdc")}
		},
		preamble: "---\ndescription: \"IHMT long-term memory, when to search it and what to save\"\nalwaysApply: true\n---\n",
	},
	// https://modelcontextprotocol.io/quickstart/user (Claude Desktop):
	// claude_desktop_config.json in ~/Library/Application Support/Claude on
	// macOS, %APPDATA%\Claude on Windows; mcpServers with command, args,
	// env. Anthropic ships no Linux build; the community's read
	// ~/.config/Claude. No project file, no instructions file.
	ClaudeDesktop: {
		title: "Claude Desktop", servers: "mcpServers",
		entry: stdioEntry("", false),
		user: func(e Env) (Locations, error) {
			dir, err := e.appConfigDir("Claude")
			if err != nil {
				return Locations{}, err
			}
			return Locations{Configs: []string{filepath.Join(dir, "claude_desktop_config.json")}}, nil
		},
	},
	// https://code.visualstudio.com/docs/copilot/reference/mcp-configuration:
	// the user profile's mcp.json (~/.config/Code/User on Linux,
	// ~/Library/Application Support/Code/User on macOS) or a workspace's
	// .vscode/mcp.json, servers under "servers" with type "stdio".
	// https://code.visualstudio.com/docs/copilot/customization/custom-instructions:
	// *.instructions.md files in the profile's prompts folder, applied to
	// every file with "applyTo: '**'"; a workspace's
	// .github/copilot-instructions.md.
	VSCode: {
		title: "VS Code", cli: "code", servers: "servers",
		entry: stdioEntry("stdio", false),
		user: func(e Env) (Locations, error) {
			dir, err := e.appConfigDir("Code")
			if err != nil {
				return Locations{}, err
			}
			user := filepath.Join(dir, "User")
			return Locations{Configs: []string{filepath.Join(user, "mcp.json")}, Instructions: filepath.Join(user, "prompts", "ihmt.instructions.md")}, nil
		},
		project: func(base string) Locations {
			return Locations{Configs: []string{filepath.Join(base, ".vscode", "mcp.json")}, Instructions: filepath.Join(base, ".github", "copilot-instructions.md")}
		},
		preamble: "---\ndescription: \"IHMT long-term memory, when to search it and what to save\"\napplyTo: '**'\n---\n",
	},
	// https://docs.windsurf.com/windsurf/cascade/mcp:
	// ~/.codeium/windsurf/mcp_config.json, mcpServers with command, args,
	// env; no project file. https://docs.windsurf.com/windsurf/cascade/memories:
	// global rules in ~/.codeium/windsurf/memories/global_rules.md.
	Windsurf: {
		title: "Windsurf", cli: "windsurf", servers: "mcpServers",
		entry: stdioEntry("", false),
		user: func(e Env) (Locations, error) {
			dir := filepath.Join(e.Home, ".codeium", "windsurf")
			return Locations{Configs: []string{filepath.Join(dir, "mcp_config.json")}, Instructions: filepath.Join(dir, "memories", "global_rules.md")}, nil
		},
	},
	// https://zed.dev/docs/ai/mcp: "context_servers" in settings.json,
	// a custom server as command, args, env; https://zed.dev/docs/configuring-zed:
	// ~/.config/zed/settings.json (macOS too; $XDG_CONFIG_HOME/zed on
	// Linux), a project's .zed/settings.json. https://zed.dev/docs/ai/rules:
	// a project's AGENTS.md (among others) is read as rules; the user's
	// rules live in Zed's Rules Library, not in a file.
	Zed: {
		title: "Zed", cli: "zed", servers: "context_servers",
		entry: stdioEntry("", false),
		user: func(e Env) (Locations, error) {
			dir := filepath.Join(e.Home, ".config", "zed")
			if d := e.absEnv("XDG_CONFIG_HOME"); d != "" && e.goos() == "linux" {
				dir = filepath.Join(d, "zed")
			}
			return Locations{Configs: []string{filepath.Join(dir, "settings.json")}}, nil
		},
		project: func(base string) Locations {
			return Locations{Configs: []string{filepath.Join(base, ".zed", "settings.json")}, Instructions: filepath.Join(base, "AGENTS.md")}
		},
	},
}

// stdioEntry is the common entry: command, no arguments, the environment
// when there is one; with a "type" first when typ is set (VS Code), and
// "trust" last when trust is set (Gemini CLI).
func stdioEntry(typ string, trust bool) func(Server) any {
	return func(srv Server) any {
		var e object
		if typ != "" {
			e = append(e, field{"type", typ})
		}
		e = append(e, field{"command", srv.Command}, field{"args", []string{}})
		if len(srv.Env) > 0 {
			e = append(e, field{"env", srv.Env})
		}
		if trust {
			e = append(e, field{"trust", true})
		}
		return e
	}
}

// copilotEntry is the entry `copilot mcp add` writes, every tool allowed.
func copilotEntry(srv Server) any {
	env := srv.Env
	if env == nil {
		env = map[string]string{}
	}
	return object{{"tools", []string{"*"}}, {"type", "local"}, {"command", srv.Command}, {"args", []string{}}, {"env", env}}
}

func (e Env) goos() string {
	if e.GOOS != "" {
		return e.GOOS
	}
	return hostGOOS
}

// appConfigDir is an application's per-user configuration directory as
// Electron apps (Claude Desktop, VS Code) place it: under
// ~/Library/Application Support on macOS, $XDG_CONFIG_HOME (else
// ~/.config) on Linux.
func (e Env) appConfigDir(app string) (string, error) {
	switch e.goos() {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support", app), nil
	case "linux", "freebsd", "openbsd", "netbsd":
		if d := e.absEnv("XDG_CONFIG_HOME"); d != "" {
			return filepath.Join(d, app), nil
		}
		return filepath.Join(e.Home, ".config", app), nil
	}
	return "", fmt.Errorf("IHMT does not know where %s keeps its configuration on %s", app, e.goos())
}

// locateJSONClient is Locate for a jsonClients row.
func (e Env) locateJSONClient(c jsonClient, base string) (Locations, error) {
	if base == "" {
		return c.user(e)
	}
	if c.project == nil {
		return Locations{}, fmt.Errorf("%s has no project configuration: use --scope user", c.title)
	}
	return c.project(base), nil
}

// Title is a client's name for people.
func Title(client string) string {
	switch client {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex"
	case OpenCode:
		return "opencode"
	}
	if c, ok := jsonClients[client]; ok {
		return c.title
	}
	return client
}

// CLI is the executable whose presence on PATH shows client is installed
// here; "" for a client with none (Claude Desktop).
func CLI(client string) string {
	if c, ok := jsonClients[client]; ok {
		return c.cli
	}
	return client
}

// HasHooks reports whether IHMT installs memory hooks for client.
func HasHooks(client string) bool {
	c, ok := jsonClients[client]
	return !ok || c.hooks
}

// HasProject reports whether client reads a project's configuration.
func HasProject(client string) bool {
	c, ok := jsonClients[client]
	return !ok || c.project != nil
}

// errNoHooks: the client gets no memory hooks from IHMT (yet).
var errNoHooks = errors.New("IHMT installs no memory hooks for this client")

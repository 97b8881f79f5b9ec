package mcpconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// Registration is what a client's files say about IHMT.
type Registration struct {
	Client string `json:"client"`
	Scope  string `json:"scope"`
	// InUse names a file the client itself keeps here — its configuration,
	// or state in its own directory — so it is in use on this machine; ""
	// when there is none. IHMT's own files do not count: an install
	// creates the client's directory for its instructions and an uninstall
	// leaves backups there, on machines where the client never ran too.
	InUse string `json:"in_use,omitempty"`
	// File holds the registration, or is where install would put it.
	File       string            `json:"file"`
	Registered bool              `json:"registered"`
	Command    string            `json:"command,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	// Current: the entry is exactly what install writes for Command and
	// Env (for Codex, that includes the tool approval).
	Current             bool   `json:"current"`
	Instructions        string `json:"instructions_file"`
	InstructionsPresent bool   `json:"instructions_present"`
	InstructionsCurrent bool   `json:"instructions_current"`
	// Problem is a file that could not be read.
	Problem string `json:"problem,omitempty"`
}

// Inspect reads a client's files, changing nothing.
func Inspect(env Env, client, scope string) Registration {
	r := Registration{Client: client, Scope: scope}
	loc, err := env.Locate(client, scope)
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	r.Instructions = loc.Instructions
	r.File = loc.Configs[0]
	r.InUse = env.ownFile(client, scope, loc)
	for _, path := range loc.Configs {
		src, err := readFile(path)
		if err != nil {
			r.Problem = err.Error()
			continue
		}
		if src == nil {
			continue
		}
		f := formatFor(client, path)
		val, ok, err := f.entry(src)
		if err != nil {
			r.Problem = configError(path, err).Error()
			continue
		}
		if !ok || r.Registered {
			continue
		}
		r.Registered, r.File = true, path
		if srv, ok := f.server(val); ok {
			r.Command, r.Env = srv.Command, srv.Env
			r.Current = reflect.DeepEqual(val, f.want(srv))
		}
	}
	if loc.Instructions == "" {
		return r // the client keeps its instructions in its settings
	}
	src, err := readFile(loc.Instructions)
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	present, current, err := blockState(src)
	if err != nil {
		r.Problem = configError(loc.Instructions, err).Error()
	}
	r.InstructionsPresent, r.InstructionsCurrent = present, current
	return r
}

// ownFile returns a file the client itself keeps, or "": its
// configuration, else anything in its directories but IHMT's instructions
// file, its backups and its temporary files. opencode keeps its state
// apart, in its data directory, which IHMT never writes to.
func (e Env) ownFile(client, scope string, loc Locations) string {
	for _, path := range loc.Configs {
		if _, err := os.Lstat(path); err == nil {
			return path
		}
	}
	dirs := []string{filepath.Dir(loc.Configs[0])}
	if loc.Instructions != "" {
		dirs = append(dirs, filepath.Dir(loc.Instructions))
	}
	if client == OpenCode && scope == ScopeUser {
		data := filepath.Join(e.Home, ".local", "share")
		if d := e.absEnv("XDG_DATA_HOME"); d != "" {
			data = d
		}
		dirs = append(dirs, filepath.Join(data, "opencode"))
	}
	ours := map[string]bool{filepath.Base(loc.Instructions): true, ".DS_Store": true}
	for _, dir := range dirs {
		if dir == e.Home || dir == e.Project {
			continue // shared with everything else
		}
		entries, _ := os.ReadDir(dir)
		for _, de := range entries {
			name := de.Name()
			// The directory IHMT made for its instructions (VS Code's
			// prompts/, Windsurf's memories/) is looked into itself.
			inner := loc.Instructions != "" && strings.HasPrefix(loc.Instructions, filepath.Join(dir, name)+string(filepath.Separator))
			if ours[name] || inner || strings.Contains(name, backupInfix) || isTempFile(name, loc) {
				continue
			}
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// isTempFile: name is a temporary file package atomicfile leaves behind
// when a write of one of the client's files is interrupted.
func isTempFile(name string, loc Locations) bool {
	for _, path := range append([]string{loc.Instructions}, loc.Configs...) {
		if strings.HasPrefix(name, "."+filepath.Base(path)+".tmp") {
			return true
		}
	}
	return false
}

// Backups lists the backups of path that edits left beside it, newest
// first.
func Backups(path string) []string { return backups(path) }

// Snippet is the configuration to paste by hand, and the file it belongs
// in.
func Snippet(env Env, client, scope string, srv Server) (text, file string, err error) {
	loc, err := env.Locate(client, scope)
	if err != nil {
		return "", "", err
	}
	switch client {
	case Claude:
		return render(object{{"mcpServers", object{{serverName, claudeEntry(srv)}}}}, "", "  ") + "\n", loc.Configs[0], nil
	case OpenCode:
		return render(object{{"$schema", opencodeSchema}, {"mcp", object{{serverName, opencodeEntry(srv)}}}}, "", "  ") + "\n", loc.Configs[0], nil
	}
	if c, ok := jsonClients[client]; ok {
		return render(object{{c.servers, object{{serverName, c.entry(srv)}}}}, "", "  ") + "\n", loc.Configs[0], nil
	}
	return codexBlock(srv), loc.Configs[0], nil
}

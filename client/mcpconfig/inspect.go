package mcpconfig

import (
	"os"
	"path/filepath"
	"reflect"
)

// Registration is what a client's files say about IHMT.
type Registration struct {
	Client string `json:"client"`
	Scope  string `json:"scope"`
	// Seen: the client's configuration file or directory exists, i.e. the
	// client is probably in use here.
	Seen bool `json:"seen"`
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
	if dir := filepath.Dir(loc.Instructions); dir != env.Home && dir != env.Project {
		if _, err := os.Stat(dir); err == nil {
			r.Seen = true
		}
	}
	for _, path := range loc.Configs {
		src, err := readFile(path)
		if err != nil {
			r.Problem = err.Error()
			continue
		}
		if src == nil {
			continue
		}
		r.Seen = true
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
	return codexBlock(srv), loc.Configs[0], nil
}

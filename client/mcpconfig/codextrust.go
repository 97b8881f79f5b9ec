package mcpconfig

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Codex runs a hook that is not managed by an administrator only once the
// person trusted its current definition (/hooks in the TUI records a hash in
// config.toml's hooks.state); `codex exec` skips an untrusted hook without
// a word. Only Codex knows how it hashes a definition, so the trust is asked
// of Codex itself: its app-server's hooks/list reports each hook's
// trustStatus.

// CodexHook is one of IHMT's hooks as Codex sees it.
type CodexHook struct {
	Key         string `json:"key"`
	Event       string `json:"eventName"`
	Command     string `json:"command"`
	TrustStatus string `json:"trustStatus"` // trusted, untrusted, modified…
	CurrentHash string `json:"currentHash"`
	Enabled     bool   `json:"enabled"`
}

// CodexHooks asks codex (its executable) which of IHMT's hooks it would run
// in cwd, by starting `codex app-server` for one hooks/list call.
func CodexHooks(ctx context.Context, codex, cwd string) ([]CodexHook, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s app-server: %w", codex, err)
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	send := func(v any) { b, _ := json.Marshal(v); stdin.Write(append(b, '\n')) }
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]string{"name": "ihmt-doctor", "version": "1"}}})
	send(map[string]any{"method": "initialized"})
	send(map[string]any{"id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{cwd}}})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []CodexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID != 2 {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("codex hooks/list: %s", m.Error.Message)
		}
		var ours []CodexHook
		for _, d := range m.Result.Data {
			for _, h := range d.Hooks {
				if strings.Contains(h.Command, hookMarker) {
					ours = append(ours, h)
				}
			}
		}
		return ours, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("codex app-server did not answer hooks/list in time")
	}
	return nil, fmt.Errorf("codex app-server ended without answering hooks/list")
}

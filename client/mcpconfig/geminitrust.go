package mcpconfig

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// Gemini CLI starts no MCP server — not even a user-level one — in a folder
// the person has not trusted (it asks on the first start there, and keeps
// the answers in ~/.gemini/trustedFolders.json: a path's rule is
// TRUST_FOLDER, the folder and everything under it; TRUST_PARENT, its parent
// and everything under that; or DO_NOT_TRUST). The most specific rule that
// covers a folder decides; the check is off when settings.json says
// security.folderTrust.enabled = false. Seen with Gemini CLI 0.61.0, whose
// `gemini mcp list` reports the server "Disabled" in an untrusted folder.

// GeminiTrust says whether Gemini CLI would start MCP servers in dir: trusted,
// and why ("" when it cannot tell: a file that does not parse).
func GeminiTrust(env Env, dir string) (trusted bool, why string) {
	home := filepath.Join(env.Home, ".gemini")
	if src, _ := readFile(filepath.Join(home, "settings.json")); src != nil {
		if d, err := parseJSONC(src); err == nil {
			if n := d.lookup("security", "folderTrust", "enabled"); n != nil {
				if on, ok := d.valueOf(n).(bool); ok && !on {
					return true, "folder trust is off in ~/.gemini/settings.json"
				}
			}
		}
	}
	src, err := readFile(filepath.Join(home, "trustedFolders.json"))
	if err != nil || src == nil {
		return false, "no folder is trusted yet"
	}
	var rules map[string]string
	if err := json.Unmarshal(src, &rules); err != nil {
		return false, ""
	}
	dir = filepath.Clean(dir)
	best, bestLen := "", -1
	for path, rule := range rules {
		root := filepath.Clean(path)
		if rule == "TRUST_PARENT" {
			root = filepath.Dir(root)
		}
		if within(dir, root) && len(root) > bestLen {
			best, bestLen = rule, len(root)
		}
	}
	switch best {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return true, "trusted in ~/.gemini/trustedFolders.json"
	case "DO_NOT_TRUST":
		return false, "marked DO_NOT_TRUST in ~/.gemini/trustedFolders.json"
	}
	return false, "not among the folders trusted in ~/.gemini/trustedFolders.json"
}

func within(dir, root string) bool {
	return dir == root || strings.HasPrefix(dir, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// GeminiHooksOff says why Gemini CLI would run none of IHMT's hooks although
// they are installed — its hooks turned off (hooksConfig.enabled = false),
// or IHMT's named in hooksConfig.disabled — or "" when it would run them,
// as far as the user's settings.json tells.
func GeminiHooksOff(env Env) string {
	src, _ := readFile(filepath.Join(env.Home, ".gemini", "settings.json"))
	d, err := parseJSONC(src)
	if src == nil || err != nil {
		return ""
	}
	if n := d.lookup("hooksConfig", "enabled"); n != nil {
		if on, ok := d.valueOf(n).(bool); ok && !on {
			return "hooksConfig.enabled is false in ~/.gemini/settings.json: Gemini CLI runs no hook"
		}
	}
	if n := d.lookup("hooksConfig", "disabled"); n != nil {
		names, _ := d.valueOf(n).([]any)
		var off []string
		for _, v := range names {
			if s, ok := v.(string); ok && (s == geminiHookNames[0] || s == geminiHookNames[1] || strings.Contains(s, hookMarker+Gemini)) {
				off = append(off, s)
			}
		}
		if len(off) > 0 {
			return "hooksConfig.disabled in ~/.gemini/settings.json turns off " + strings.Join(off, ", ")
		}
	}
	return ""
}

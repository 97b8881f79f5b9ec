package mcpconfig

import (
	"path/filepath"
	"testing"
)

func TestGeminiTrust(t *testing.T) {
	for _, tc := range []struct {
		name, settings, folders, dir string
		trusted                      bool
	}{
		{"no file", "", "", "/src/app", false},
		{"the folder", "", `{"/src/app": "TRUST_FOLDER"}`, "/src/app", true},
		{"under it", "", `{"/src/app": "TRUST_FOLDER"}`, "/src/app/pkg", true},
		{"a sibling with a shared prefix", "", `{"/src/app": "TRUST_FOLDER"}`, "/src/apple", false},
		{"the parent's rule", "", `{"/src/app": "TRUST_PARENT"}`, "/src/other", true},
		{"the most specific rule wins", "", `{"/src": "TRUST_FOLDER", "/src/app": "DO_NOT_TRUST"}`, "/src/app/x", false},
		{"and the other way", "", `{"/src": "DO_NOT_TRUST", "/src/app": "TRUST_FOLDER"}`, "/src/app/x", true},
		{"folder trust off", `{"security": {"folderTrust": {"enabled": false}}}`, "", "/src/app", true},
		{"folder trust on", `{"security": {"folderTrust": {"enabled": true}}}`, "", "/src/app", false},
		{"unreadable rules", "", `{not json`, "/src/app", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			if tc.settings != "" {
				write(t, filepath.Join(env.Home, ".gemini", "settings.json"), tc.settings)
			}
			if tc.folders != "" {
				write(t, filepath.Join(env.Home, ".gemini", "trustedFolders.json"), tc.folders)
			}
			if got, why := GeminiTrust(env, tc.dir); got != tc.trusted {
				t.Errorf("GeminiTrust(%s) = %v (%s), want %v", tc.dir, got, why, tc.trusted)
			}
		})
	}
}

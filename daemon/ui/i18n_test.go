package ui_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestWords: every word the page uses exists in English and Spanish, and
// the two languages have the same keys.
func TestWords(t *testing.T) {
	src, err := os.ReadFile("assets/i18n.js")
	if err != nil {
		t.Fatal(err)
	}
	en, es, ok := strings.Cut(string(src), "\n  es: {")
	if !ok {
		t.Fatal("i18n.js has no Spanish block")
	}
	keysOf := func(block string) []string {
		var keys []string
		for _, m := range regexp.MustCompile(`(?m)^\s+"([a-z0-9_-]+)": "`).FindAllStringSubmatch(block, -1) {
			keys = append(keys, m[1])
		}
		return keys
	}
	enKeys, esKeys := keysOf(en), keysOf(es)
	if len(enKeys) < 100 {
		t.Fatalf("read %d English keys: is the test reading i18n.js?", len(enKeys))
	}
	for _, k := range enKeys {
		if !slices.Contains(esKeys, k) {
			t.Errorf("%q has no Spanish", k)
		}
	}
	for _, k := range esKeys {
		if !slices.Contains(enKeys, k) {
			t.Errorf("%q has no English", k)
		}
	}
	// The words the script and the page ask for.
	used := map[string]bool{}
	script, _ := os.ReadFile("assets/app.js")
	for _, m := range regexp.MustCompile(`\bt\("([a-z0-9_-]+)"\s*[,)]`).FindAllSubmatch(script, -1) {
		used[string(m[1])] = true
	}
	html, _ := os.ReadFile("assets/index.html")
	for _, m := range regexp.MustCompile(`data-i18n(?:-placeholder|-label)?="([a-z0-9_-]+)"`).FindAllSubmatch(html, -1) {
		used[string(m[1])] = true
	}
	// Words built from a value: a verdict, a trust state, a scope.
	for _, k := range []string{"found", "ambiguous", "not_found", "trust-asserted", "trust-verified", "trust-pending", "trust-rejected",
		"scope-default", "scope-project", "scope-global", "scope-all"} {
		used[k] = true
	}
	if len(used) < 50 {
		t.Fatalf("found %d words in use: is the test reading the page?", len(used))
	}
	for k := range used {
		if !slices.Contains(enKeys, k) {
			t.Errorf("the page uses %q, which has no words", k)
		}
	}
}

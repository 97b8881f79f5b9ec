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

// TestServerWords: each of the daemon's sentences the page translates
// has a translation with exactly its placeholders, and the sentences are
// the ones the daemon writes (a sample checked against its wording).
func TestServerWords(t *testing.T) {
	src, err := os.ReadFile("assets/i18n.js")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(src), "window.IHMT_SERVER = {")
	if !ok {
		t.Fatal("i18n.js has no IHMT_SERVER table")
	}
	pairs := regexp.MustCompile(`(?s)\[\s*"((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)"\s*\]`).FindAllStringSubmatch(block, -1)
	if len(pairs) < 15 {
		t.Fatalf("read %d sentences: is the test reading the table?", len(pairs))
	}
	holes := func(s string) string {
		var out []string
		for _, m := range regexp.MustCompile(`\{\w+\}`).FindAllString(s, -1) {
			out = append(out, m)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		if holes(p[1]) != holes(p[2]) {
			t.Errorf("%q → %q: placeholders %s, translated %s", p[1], p[2], holes(p[1]), holes(p[2]))
		}
		if seen[p[1]] {
			t.Errorf("%q is listed twice", p[1])
		}
		seen[p[1]] = true
	}
	// The sentences a seeded search and notice produce are listed (the
	// daemon's wording in pkg/store and pkg/timeline).
	for _, want := range []string{"Found in {where}.", "{n} memories match about equally.", "OUTDATED: On {old_date} you said {old}; on {new_date} you said {new}.", "global + project {project}"} {
		if !seen[want] {
			t.Errorf("the table lacks %q", want)
		}
	}
}

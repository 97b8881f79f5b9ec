// Package markup knows the markup that opens or closes a model's context,
// and takes it out of text on its way to a model.
//
// A coding agent's client wraps what a hook injects in its own tags (Claude
// Code's <system-reminder>), and chat models read tags, template tokens
// (<|im_start|>) and transcript headers ("Human:") as turns of a
// conversation. A memory that closes the client's tag and opens a new one
// speaks, once injected, as the system. Two defences use this package: the
// instruction screen (pkg/screen) holds such text for review on its way
// in, and everything the hooks and the tools hand a model is neutralised
// on its way out ([Neutralize], [Quote]), so that even a memory stored
// before the screen knew a trick cannot speak as the system.
//
// The tag and role names are data (markup.json), so a later client's
// markup is a line in a file, not a change of code. It sits beside the API
// because both ends of the wire apply it — the engine screening what comes
// in, the shim and the hooks neutralising what goes out to a model — and it
// has no dependencies, so the shim links it without linking the engine.
package markup

import (
	_ "embed"
	"encoding/json"
	"strings"
)

//go:embed markup.json
var markupJSON []byte

// Data is markup.json.
type Data struct {
	// ContextTags are the names of tags that open or close a model's
	// context, compared by [TagKey].
	ContextTags []string `json:"context_tags"`
	// RoleNames are the speakers of a chat transcript, held when they open
	// a line as a transcript's header does ("[system]", "<!-- system:").
	RoleNames []string `json:"role_names"`
	// HeadingRoleNames are held as a Markdown heading alone on a line
	// ("### System").
	HeadingRoleNames []string `json:"heading_role_names"`
}

var data, tags = func() (Data, map[string]bool) {
	var d Data
	if err := json.Unmarshal(markupJSON, &d); err != nil {
		panic("markup: markup.json: " + err.Error())
	}
	t := map[string]bool{}
	for _, n := range d.ContextTags {
		t[TagKey(n)] = true
	}
	return d, t
}()

// Known returns the built-in data.
func Known() Data { return data }

// TagKey is a tag name as compared: lower case, without the spaces,
// hyphens and underscores a writer can vary, so "system-reminder" also
// stands for "System_Reminder" and "system - reminder".
func TagKey(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == ' ' || c == '\t' || c == '-' || c == '_':
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// IsContextTag reports whether name (as written in a tag) is one of the
// tags that open or close a model's context.
func IsContextTag(name string) bool { return tags[TagKey(name)] }

// TagAt reads a tag's name in s, which starts just after a '<': spaces, an
// optional '/', the name (ASCII letters, digits, spaces, '-', '_', at most
// 40 bytes), then '>' — or attributes ("name=…") up to a '>' on the same
// line within 200 bytes. It returns the name as written and whether s
// holds a whole tag.
func TagAt(s string) (string, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '/' {
		i++
	}
	start := i
	for i < len(s) && i-start <= 40 && (isAlnum(s[i]) || s[i] == ' ' || s[i] == '-' || s[i] == '_' || s[i] == '\t') {
		i++
	}
	name := strings.TrimSpace(s[start:i])
	if name == "" || !isLetter(name[0]) {
		return "", false
	}
	if i < len(s) && s[i] == '>' {
		return name, true
	}
	sp := strings.IndexAny(name, " \t")
	if sp < 0 {
		return "", false
	}
	rest := s[start+sp : min(len(s), start+sp+200)]
	if gt := strings.IndexByte(rest, '>'); gt > 0 && !strings.ContainsRune(rest[:gt], '\n') && strings.ContainsRune(rest[:gt], '=') {
		return name[:sp], true
	}
	return "", false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool  { return isLetter(c) || '0' <= c && c <= '9' }

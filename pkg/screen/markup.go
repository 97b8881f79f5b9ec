package screen

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"strings"
)

// Markup that opens or closes a model's context. A coding agent's client
// wraps what a hook injects in its own tags (Claude Code's
// <system-reminder>), and chat models read tags and transcript headers as
// turns of a conversation: a memory that closes the client's tag and opens
// a new one speaks, once injected, as the system. No note about a person or
// a project needs such markup, so text that holds it is held for review,
// in whatever case, spacing or encoding it is written (fold has decoded the
// entities and escapes by the time these checks see the text).
//
// The tag and role names are data (markup.json), so a person or a later
// client's markup is a line in a file, not a change of code.

//go:embed markup.json
var markupJSON []byte

type markupData struct {
	ContextTags      []string `json:"context_tags"`
	RoleNames        []string `json:"role_names"`
	HeadingRoleNames []string `json:"heading_role_names"`
}

// markup is markup.json compiled: the tag names normalised by tagKey, and
// the transcript-header patterns built from the role names.
var markup = func() (m struct {
	tags    map[string]bool
	headers *regexp.Regexp
}) {
	var d markupData
	if err := json.Unmarshal(markupJSON, &d); err != nil {
		panic("screen: markup.json: " + err.Error())
	}
	m.tags = map[string]bool{}
	for _, t := range d.ContextTags {
		m.tags[tagKey(t)] = true
	}
	roles := alternation(d.RoleNames)
	headings := alternation(d.HeadingRoleNames)
	// A transcript's header opens a line: "Human: …", "[SYSTEM]: …",
	// "### System", "<!-- system: … -->". "System: Ubuntu 24.04" (a fact
	// about a machine) is not one: a bare "system:" opening a line is too
	// common in notes to hold.
	m.headers = regexp.MustCompile(`(?m)^[ \t]*(?:` +
		`(?:human|assistant)[ \t]*:` + // the two speakers of a raw transcript
		`|\[[ \t]*(?:` + roles + `)[ \t]*\][ \t]*:?` +
		`|#{1,6}[ \t]*(?:` + headings + `)[ \t]*(?:prompt|message)?[ \t]*:?[ \t]*$` +
		`)|<!--[ \t]*(?:` + roles + `)[ \t]*:`)
	return m
}()

func alternation(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = regexp.QuoteMeta(strings.ToLower(w))
	}
	return strings.Join(q, "|")
}

// tagKey is a tag name as compared: lower case, without the spaces,
// hyphens and underscores a writer can vary.
func tagKey(name string) string {
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

// contextMarkup reports the first markup in lower (a lower-cased view of a
// text) that opens or closes a model's context: a tag of markup.json's,
// opening or closing, spaced out or with attributes; or a transcript's
// header. It returns a label for the reason, never the text.
func contextMarkup(lower string) (string, bool) {
	for i := strings.IndexByte(lower, '<'); i >= 0; {
		if name, ok := tagAt(lower[i+1:]); ok && markup.tags[tagKey(name)] {
			return `markup that opens or closes a model's context, such as "</system-reminder>"`, true
		}
		next := strings.IndexByte(lower[i+1:], '<')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if markup.headers.MatchString(lower) {
		return `a chat transcript's role header, such as "Human:" or "[system]"`, true
	}
	return "", false
}

// tagAt reads a tag's name after its '<': spaces, an optional '/', the
// name (letters, digits, spaces, '-', '_', at most 40 bytes), then '>' or
// attributes up to a '>' on the same line within 200 bytes.
func tagAt(s string) (string, bool) {
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
	// Attributes: the name ends at its first space, and a '>' closes the
	// tag on the same line.
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

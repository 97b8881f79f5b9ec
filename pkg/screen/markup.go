package screen

import (
	"regexp"
	"strings"

	"github.com/ihmt-dev/ihmt/proto/ihmt/v1/markup"
)

// Markup that opens or closes a model's context (see proto/ihmt/v1/markup): no note
// about a person or a project needs it, so text that holds it is held for
// review, in whatever case, spacing or encoding it is written (fold has
// decoded entities and escapes by the time these checks see the text). The
// tag and role names are proto/ihmt/v1/markup's data.

// transcriptHeaders are the headers of a chat transcript opening a line:
// "Human: …", "[SYSTEM]: …", "### System", "<!-- system: … -->". "System:
// Ubuntu 24.04" (a fact about a machine) is not one: a bare "system:"
// opening a line is too common in notes to hold.
var transcriptHeaders = func() *regexp.Regexp {
	d := markup.Known()
	roles, headings := alternation(d.RoleNames), alternation(d.HeadingRoleNames)
	return regexp.MustCompile(`(?m)^[ \t]*(?:` +
		`(?:human|assistant)[ \t]*:` + // the two speakers of a raw transcript
		`|\[[ \t]*(?:` + roles + `)[ \t]*\][ \t]*:?` +
		`|#{1,6}[ \t]*(?:` + headings + `)[ \t]*(?:prompt|message)?[ \t]*:?[ \t]*$` +
		`)|<!--[ \t]*(?:` + roles + `)[ \t]*:`)
}()

func alternation(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = regexp.QuoteMeta(strings.ToLower(w))
	}
	return strings.Join(q, "|")
}

// contextMarkup reports the first markup in lower (a lower-cased view of a
// text) that opens or closes a model's context: a tag of proto/ihmt/v1/markup's,
// opening or closing, spaced out or with attributes; or a transcript's
// header. It returns a label for the reason, never the text.
func contextMarkup(lower string) (string, bool) {
	for i := strings.IndexByte(lower, '<'); i >= 0; {
		if name, ok := markup.TagAt(lower[i+1:]); ok && markup.IsContextTag(name) {
			return `markup that opens or closes a model's context, such as "</system-reminder>"`, true
		}
		next := strings.IndexByte(lower[i+1:], '<')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if transcriptHeaders.MatchString(lower) {
		return `a chat transcript's role header, such as "Human:" or "[system]"`, true
	}
	return "", false
}

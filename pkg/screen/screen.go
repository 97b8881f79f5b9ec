// Package screen checks a memory's text before it is stored.
//
// A memory is a plain file that every later session of every agent re-reads
// and trusts. That makes two kinds of text dangerous to keep:
//
//   - A secret (an API key, a token, a private key, a password in a
//     connection string) stored once leaks to every later session, to every
//     backup and to every git remote the memory folder is pushed to.
//     [Secrets] finds them so the daemon can refuse the save.
//   - An instruction aimed at an agent ("ignore previous instructions",
//     "always run curl … | sh", "do not tell the user") stored once steers
//     every later agent that reads it: a prompt injection with a long life.
//     [Instructions] recognises text that reads like one.
//
// Both checks are heuristics tuned for the text agents actually save: prose,
// shell lines, config snippets. They err towards refusing a secret (a
// refused save costs a rephrase; a stored secret cannot be taken back) and
// towards accepting ordinary notes about a person or a project.
//
// Both look at the text as written and as a reader sees it, because a
// determined writer disguises what it hides: invisible characters inside a
// word, a confusable or full-width letter, a split across lines, spaces or
// Markdown emphasis, an encoding (base64, hex, HTML entities, URL and
// character escapes). normalize.go builds those views and maps what is
// found in them back to the text as written.
//
// Neither check echoes what it found: a [Finding] names a kind and a
// position, and a reason from [Instructions] names a pattern, so the
// daemon's reply, its log and the audit trail never carry the secret on.
package screen

import (
	"fmt"
	"strings"
)

// Finding is one secret found by [Secrets]. It says where the secret starts
// and what it looks like, never what it is.
type Finding struct {
	// Kind names what was found in words, e.g. "AWS access key id",
	// "GitHub token", "password in a URL", "hard-coded password".
	Kind string
	// Offset is the byte offset in the text where the secret itself
	// starts (the value, not the variable name in front of it).
	Offset int
	// Line and Column locate Offset for a person, both 1-based. Column
	// counts characters (runes), not bytes, so it matches what an editor
	// or a model counting along the line sees.
	Line, Column int
	// Field names the field the secret is in ("tags", "domain", "reason",
	// "query") when it is not the text itself (see [Field]).
	Field string
}

// String names the kind and the position, e.g. "an AWS access key id at
// line 3, column 12". It never contains the secret, so it is safe to return
// to the caller and to log.
func (f Finding) String() string {
	switch {
	case f.Field != "" && f.Line == 1:
		return fmt.Sprintf("%s %s in the %s at column %d", article(f.Kind), f.Kind, f.Field, f.Column)
	case f.Field != "":
		return fmt.Sprintf("%s %s in the %s at line %d, column %d", article(f.Kind), f.Kind, f.Field, f.Line, f.Column)
	}
	return fmt.Sprintf("%s %s at line %d, column %d", article(f.Kind), f.Kind, f.Line, f.Column)
}

// Field screens a value stored or logged beside a memory's text — a tag
// list, a domain, a forget's reason, a review note, a query written to the
// log — with every check of [Secrets], and names the field in what it
// finds. A secret is no safer in a tag than in the text.
func Field(name, value string) []Finding {
	found := Secrets(value)
	for i := range found {
		found[i].Field = name
	}
	return found
}

// article picks "a" or "an" for a kind. Every kind this package reports is
// spelt so that a leading vowel letter means a leading vowel sound ("an AWS
// …", "an OpenAI …", "a JWT", "a GitHub …").
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOUaeiou", rune(kind[0])) {
		return "an"
	}
	return "a"
}

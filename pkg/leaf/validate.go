package leaf

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxContent is the largest text one memory may hold: 1 MiB. Larger texts
// are almost always a file pasted by mistake, and they would dominate every
// search they match.
const MaxContent = 1 << 20

// ErrInvalid is returned (wrapped, with the reason) for input that must not
// be stored.
var ErrInvalid = errors.New("invalid input")

// ErrNotFound is returned (wrapped) for a memory, note, file or symbol that
// is not there, or not visible to the caller: the engine's parts share it
// so that each boundary translates it once.
var ErrNotFound = errors.New("not found")

// ErrPermission is returned (wrapped) for what the caller may not do: a
// person's operation asked by an agent, another session's notes.
var ErrPermission = errors.New("only the person may do this")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// ValidateText checks a memory's text: non-blank, at most MaxContent bytes,
// valid UTF-8, and no control characters other than tab, newline and
// carriage return. The error names the problem and where it is.
func ValidateText(text string) error {
	if len(text) > MaxContent {
		return invalid("content is %d bytes, over the limit of %d bytes (1 MiB): save a summary or split it", len(text), MaxContent)
	}
	return validateChars(text)
}

// MaxDocument bounds a document given to ingest, which becomes many leaves.
const MaxDocument = 16 << 20

// ValidateDocument checks a document to ingest: like ValidateText, with
// room for MaxDocument bytes.
func ValidateDocument(text string) error {
	if len(text) > MaxDocument {
		return invalid("document is %d bytes, over the limit of %d bytes (16 MiB): split it into files", len(text), MaxDocument)
	}
	return validateChars(text)
}

func validateChars(text string) error {
	if strings.TrimSpace(text) == "" {
		return invalid("content is empty: give the text to remember")
	}
	if !utf8.ValidString(text) {
		for i := 0; i < len(text); {
			r, n := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && n <= 1 {
				return invalid("content is not valid UTF-8 (first bad byte at offset %d)", i)
			}
			i += n
		}
	}
	for i, r := range text {
		if r == '\t' || r == '\n' || r == '\r' {
			continue
		}
		if unicode.IsControl(r) {
			return invalid("content holds control character %U at byte %d: remove it", r, i)
		}
	}
	return nil
}

// ValidateLabel checks a domain or tag: 1–64 characters, letters, digits,
// '-', '_' and '.', starting with a letter or digit, with no empty or ".."
// segment — labels may one day name directories, so nothing path-like.
func ValidateLabel(kind, s string) error {
	if s == "" || len(s) > 64 {
		return invalid("%s %q must be 1 to 64 characters", kind, clip(s))
	}
	for i, r := range s {
		ok := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || (r == '.' && i > 0)
		if !ok {
			return invalid("%s %q may hold only letters, digits, '-', '_' and '.' (not at the start)", kind, clip(s))
		}
	}
	if strings.Contains(s, "..") || strings.HasSuffix(s, ".") {
		return invalid("%s %q has an empty segment", kind, clip(s))
	}
	return nil
}

// ValidateProject checks a project key as sent by a client: at most 256
// bytes of UTF-8 without control characters and without "." or ".." path
// elements, so that "../../etc" is refused outright.
func ValidateProject(p string) error {
	if p == "" {
		return nil
	}
	if len(p) > 256 || !utf8.ValidString(p) {
		return invalid("project %q must be at most 256 bytes of UTF-8", clip(p))
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return invalid("project %q holds a control character", clip(p))
		}
	}
	for _, el := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == "." || el == ".." {
			return invalid("project %q holds a %q path element", clip(p), el)
		}
	}
	return nil
}

// ValidateName checks an agent name, agent version or session id: at most
// 128 bytes of UTF-8 without control characters.
func ValidateName(kind, s string) error {
	if len(s) > 128 || !utf8.ValidString(s) {
		return invalid("%s must be at most 128 bytes of UTF-8", kind)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return invalid("%s holds a control character", kind)
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 48 {
		s = s[:48] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

package lexicon

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// detectors say whether a text holds a value of a kind. They are generous
// on purpose: a detector that misses a value turns a right answer into
// "not found", which is worse than answering a question whose value is
// not quite there.
var detectors = map[string]func(string) bool{
	"phone":           matches(`(?:\+|\b)\d[\d ().-]{6,}\d\b`),
	"email":           matches(`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`),
	"port":            matches(`(?::\d{2,5}\b)|(?:\b\d{2,5}\b)`),
	"money":           matches(`(?i)(?:[€$£¥]\s?\d)|(?:\d[\d.,]*\s?(?:€|eur\b|euros?\b|usd\b|dollars?\b|dólares\b|libras\b|k€|/h\b|/hour\b|an hour|a month|al mes|la hora))`),
	"street":          matches(`(?i)(?:\b\d+\s*,?\s*(?:street|st\.|avenue|ave\.|road|rd\.|calle|c/|avenida|avda\.|plaza|paseo)\b)|(?:\b(?:street|avenue|road|calle|c/|avenida|avda\.|plaza|paseo)\s+[\p{L} ]+,?\s*\d+)`),
	"secret_location": matches(`(?i)\b(?:vault|keychain|keyring|password manager|1password|bitwarden|keepass|pass store|credentials|secrets? manager|sops|\.env|env var|environment variable|gestor de contraseñas|llavero|bóveda|cofre)`),
	"long_number":     matches(`\b\d{6,}\b`),
	"when":            holdsWhen,
	"version":         matches(`(?i)(?:\bv?\d+\.\d+(?:\.\d+)?\b)|(?:\b\p{L}[\p{L}.+-]*\s\d{1,3}\b)`),
	"place":           matches(`(?:\b(?:in|to|at|en|a|de)\s+)\p{Lu}\p{Ll}{2,}`),
	"host":            matches(`(?i)\b(?:\d{1,3}\.){3}\d{1,3}\b|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+\.(?:example|internal|local|lan|com|net|org|io|dev|es)\b|\bhostname\s+\S+`),
}

func detectorNames() string {
	var names []string
	for n := range detectors {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func matches(expr string) func(string) bool {
	re := regexp.MustCompile(expr)
	return re.MatchString
}

// whenWords are the words of a date or a time, in English and Spanish.
var whenWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday
		mondays tuesdays wednesdays thursdays fridays saturdays sundays weekday weekdays weekend weekends
		january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec daily weekly monthly nightly yearly
		morning afternoon evening night noon midnight tomorrow today tonight yesterday
		lunes martes miércoles jueves viernes sábado domingo semanal diario mensual
		enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
		mañana tarde noche mediodía medianoche hoy ayer`) {
		m[w] = true
	}
	return m
}()

// IsDateWord reports whether w names a day of the week, a month or a part
// of the day, in English or Spanish.
func IsDateWord(w string) bool { return whenWords[strings.ToLower(w)] }

var clockOrDate = regexp.MustCompile(`\b\d{1,2}[:h.]\d{2}\b|\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{1,2}\s?(?:am|pm)\b`)

// holdsWhen reports whether a text names a day, a date or a time.
func holdsWhen(text string) bool {
	if clockOrDate.MatchString(strings.ToLower(text)) {
		return true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if whenWords[w] {
			return true
		}
	}
	return false
}

// extractors find the values a detector detects, written alike, for the
// detectors whose values can be compared ("1.82" in "Rust 1.82" and in
// "rust:1.82"); the others' values are left out of ValuesAgree.
var extractors = map[string]func(string) []string{
	"version": versions,
	"host":    finds(`(?i)\b(?:\d{1,3}\.){3}\d{1,3}\b|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+\.(?:example|internal|local|lan|com|net|org|io|dev|es)\b`),
	"money":   finds(`\d+(?:[.,]\d+)?`),
	"phone":   finds(`(?:\+|\b)\d[\d ().-]{6,}\d\b`),
	"email":   finds(`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`),
}

func finds(expr string) func(string) []string {
	re := regexp.MustCompile(expr)
	return func(text string) []string { return re.FindAllString(strings.ToLower(text), -1) }
}

var (
	dotted     = regexp.MustCompile(`(?i)\bv?(\d+(?:\.\d+)+)\b`)
	nameNumber = regexp.MustCompile(`(?i)\b(\p{L}[\p{L}+-]*)\s(\d{1,3})\b(?:[^.\d]|\.(?:\D|$)|$)`)
)

// versions are the versions text holds: its dotted numbers ("1.82" of
// "v1.82"), else a name and its number ("node 20").
func versions(text string) []string {
	var out []string
	for _, m := range dotted.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	if len(out) > 0 {
		return out
	}
	for _, m := range nameNumber.FindAllStringSubmatch(strings.ToLower(text), -1) {
		out = append(out, m[1]+" "+m[2])
	}
	return out
}

// Versions returns the versions text gives a name ("Elixir 1.17", "node
// 20", "rust:1.82"), by the name as written in lower case. Two memories
// that give one name two versions state the value of one thing twice.
func Versions(text string) map[string]string {
	out := map[string]string{}
	prev := ""
	for _, f := range strings.Fields(strings.ToLower(text)) {
		f = strings.Trim(f, "()[]\"'`,;")
		name, v := prev, strings.TrimSuffix(f, ".")
		if i := strings.IndexAny(f, ":@"); i > 0 {
			name, v = f[:i], f[i+1:]
		}
		if v = strings.TrimPrefix(v, "v"); isVersion(v) && isName(name) {
			out[name] = v
		}
		prev = strings.TrimRight(f, ":")
	}
	return out
}

// isVersion reports whether v is a version: dotted numbers ("1.18.3"),
// or a number of up to three digits ("20").
func isVersion(v string) bool {
	parts := strings.Split(v, ".")
	for _, p := range parts {
		if p == "" || strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return false
		}
	}
	return len(parts) > 1 || len(v) <= 3
}

// isName reports whether w can name what has a version: a word of letters
// (with + or -), not a common word ("for 15 minutes", "at 10").
func isName(w string) bool {
	if len([]rune(w)) < 2 || tokenize.IsStopWord(w) || whenWords[w] {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '+' && r != '-' {
			return false
		}
	}
	return true
}

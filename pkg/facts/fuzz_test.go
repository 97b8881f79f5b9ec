package facts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtract feeds arbitrary text to the default patterns: extraction
// must not panic, and every value it reports must be a non-empty piece of
// the text (values are never rebuilt, only cut out), as must From.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"I live in Madrid.", "I moved to Valencia now, since June.", "Me he mudado a Bilbao.",
		"The staging database is now PostgreSQL 17, which ships with…", "We switched from Jest to Vitest for unit tests.",
		"Paciente: Juan Pérez\nDiagnóstico: gripe A\nTratamiento: oseltamivir", "Ana is now the tech lead.",
		"El puerto de la API es ahora el 8081.", "**My editor is `nvim`**", "¿Vives en Madrid?", "",
		"I live in \xff\xfe", "the the the is is is", "Stack: Go, , , ;;; ((", "I'm on macOS 14. I now run Arch Linux.",
		strings.Repeat("our stack is ", 50), "Diagnosis:", "on 2025-09-02 3 years ago #",
	} {
		f.Add(s)
	}
	x := Default()
	f.Fuzz(func(t *testing.T, text string) {
		for _, fc := range x.Extract(text) {
			if strings.TrimSpace(fc.Value) == "" || !strings.Contains(text, fc.Value) {
				t.Fatalf("Extract(%q): value %q is not a non-empty substring", text, fc.Value)
			}
			if fc.From != "" && !strings.Contains(text, fc.From) {
				t.Fatalf("Extract(%q): from %q is not a substring", text, fc.From)
			}
			if !utf8.ValidString(fc.Value) || !utf8.ValidString(fc.Subject) || !utf8.ValidString(fc.Phrase) {
				t.Fatalf("Extract(%q): invalid UTF-8 in %+v", text, fc)
			}
			if fc.Subject == "" && fc.From == "" || fc.Attribute == "" && fc.From == "" {
				t.Fatalf("Extract(%q): fact %+v names no key and no old value", text, fc)
			}
		}
	})
}

package facts

import (
	"os"
	"strings"
	"testing"
)

// TestExtractKind: what each kind of text states. Every case that expects
// nothing has a positive control in the same text or the same table: the
// same words stated plainly are a fact.
func TestExtractKind(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		text string
		want []string // subject::attribute=value
	}{
		{"stated", Stated, "I live in Madrid.", []string{"user::lives_in=Madrid"}},
		{"stated keeps code spans", Stated, "The staging database is `PostgreSQL 17`.", []string{"staging database::is=PostgreSQL 17"}},
		{"stated skips a fenced block", Stated, "I live in Madrid.\n\n```\nI work at Acme.\n```\n", []string{"user::lives_in=Madrid"}},
		{"code", Code, "// I live in Madrid.\nvar s = \"our stack is Go\"\n", nil},
		{"document statement", Document, "Our staging database is PostgreSQL 17.\n", []string{"staging database::is=PostgreSQL 17"}},
		{"document quotation", Document, "Saves like \"I live in Madrid\" become facts.\n", nil},
		{"document quotation across a line", Document, "Saves like \"our stack is Go and\nPostgreSQL\" become facts. I live in Valencia.\n", []string{"user::lives_in=Valencia"}},
		{"document typographic quotes", Document, "Write “I work at Acme” and it is a fact. I work at Orvane.\n", []string{"user::employer=Orvane"}},
		{"document guillemets", Document, "Escribe «vivo en Madrid» y es un hecho.\n", nil},
		{"document code span", Document, "Run `ihmt save \"I live in Madrid\"` to try it.\n", nil},
		{"document fence", Document, "Try it:\n\n```sh\nihmt save I live in Madrid\n```\n\nI live in Porto.\n", []string{"user::lives_in=Porto"}},
		{"document block quote", Document, "> I live in Madrid.\n\nI live in Porto.\n", []string{"user::lives_in=Porto"}},
		{"document for example", Document, "For example, I live in Madrid would be a fact. I live in Porto.\n", []string{"user::lives_in=Porto"}},
		{"document e.g.", Document, "A fact (e.g. I live in Madrid) has two clocks. I live in Porto.\n", []string{"user::lives_in=Porto"}},
		{"document such as", Document, "Sentences such as I work at Acme are read. I work at Orvane.\n", []string{"user::employer=Orvane"}},
		{"document por ejemplo", Document, "Por ejemplo, vivo en Madrid. Vivo en Oporto.\n", []string{"user::lives_in=Oporto"}},
		{"document example list", Document, "For example:\n\n- I live in Madrid.\n- I work at Acme.\n\nI live in Porto.\n", []string{"user::lives_in=Porto"}},
		{"document example paragraph", Document, "Examples:\nI live in Madrid.\nI work at Acme.\n\nI work at Orvane.\n", []string{"user::employer=Orvane"}},
		{"document apostrophe is no quote", Document, "The team's database is PostgreSQL 17.\n", []string{"team's database::is=PostgreSQL 17"}},
		{"document unclosed quote", Document, "A stray \" mark. I live in Porto.\n", []string{"user::lives_in=Porto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range Default().ExtractKind(tt.text, tt.kind) {
				got = append(got, f.Subject+"::"+f.Attribute+"="+f.Value)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("ExtractKind(%q, %d) = %q, want %q", tt.text, tt.kind, got, tt.want)
			}
		})
	}
}

// TestStatementsKeepsPlaces: blanking keeps the text's length and its line
// ends, so values and lines stay where they were; and the README, read as
// a document, states no fact (its sentences describe the feature), while
// read as a memory it does (the control).
func TestStatementsKeepsPlaces(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{string(readme), "a “b” «c» `d` \"e\"\n> f\n```\ng\n```\nh ñ é\r\n", "\"", "```", "``", "“"} {
		for _, k := range []Kind{Stated, Document, Code} {
			got := Statements(text, k)
			if len(got) != len(text) || strings.Count(got, "\n") != strings.Count(text, "\n") {
				t.Fatalf("Statements(%.40q, %d): length %d → %d, lines %d → %d", text, k, len(text), len(got), strings.Count(text, "\n"), strings.Count(got, "\n"))
			}
		}
	}
	if fs := Default().ExtractKind(string(readme), Document); len(fs) != 0 {
		t.Errorf("the README as a document states %+v", fs)
	}
	if fs := Default().ExtractKind(string(readme), Stated); len(fs) == 0 {
		t.Error("the README as a memory states nothing: the control is broken")
	}
}

func FuzzStatements(f *testing.F) {
	for _, s := range []string{"For example: \"I live in Madrid\".", "```\nx\n```", "`a` “b” «c»", "e.g.\n- a\n\n- b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range []Kind{Stated, Document, Code} {
			if got := Statements(s, k); len(got) != len(s) {
				t.Fatalf("Statements(%q, %d) changed the length to %d", s, k, len(got))
			}
			Default().ExtractKind(s, k)
		}
	})
}

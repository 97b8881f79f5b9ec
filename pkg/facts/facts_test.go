package facts

import (
	"fmt"
	"strings"
	"testing"
)

// f is a short constructor for expected facts: subject, attribute, value
// and, optionally, from.
func f(subject, attribute, value string, from ...string) Fact {
	x := Fact{Subject: subject, Attribute: attribute, Value: value}
	if len(from) > 0 {
		x.From = from[0]
	}
	return x
}

// sameFacts compares extracted facts with the expected ones, ignoring
// phrases (checked apart) unless the expectation sets one.
func sameFacts(got, want []Fact) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g := got[i]
		if want[i].Phrase == "" {
			g.Phrase = ""
		}
		if g != want[i] {
			return false
		}
	}
	return true
}

// extractCase is a text and the facts it states, in order.
type extractCase struct {
	text string
	want []Fact
}

// checkExtract checks the facts x extracts from each case's text.
func checkExtract(t *testing.T, x *Extractor, tests []extractCase) {
	t.Helper()
	for _, tt := range tests {
		if got := x.Extract(tt.text); !sameFacts(got, tt.want) {
			t.Errorf("Extract(%q)\n got  %+v\n want %+v", tt.text, got, tt.want)
		}
	}
}

func TestExtractEnglish(t *testing.T) {
	checkExtract(t, Default(), []extractCase{
		// Where the user lives.
		{"I live in Madrid.", []Fact{{Subject: "user", Attribute: "lives_in", Value: "Madrid", Phrase: "you live in Madrid"}}},
		{"I live in Valencia now.", []Fact{f("user", "lives_in", "Valencia")}},
		{"I moved to Valencia on 2025-09-02.", []Fact{f("user", "lives_in", "Valencia")}},
		{"I relocated to New York City with my family.", []Fact{f("user", "lives_in", "New York City")}},
		{"We moved to Lisbon because of the weather.", []Fact{f("user", "lives_in", "Lisbon")}},
		{"I live in the Netherlands.", []Fact{f("user", "lives_in", "Netherlands")}},
		{"I live in The Hague.", []Fact{f("user", "lives_in", "The Hague")}},
		{"The user is based in Lisbon, Portugal.", []Fact{f("user", "lives_in", "Lisbon")}},
		// Employer.
		{"I work at Acme Corp since 2022.", []Fact{{Subject: "user", Attribute: "employer", Value: "Acme Corp", Phrase: "you work at Acme Corp"}}},
		{"I joined Globex as a staff engineer.", []Fact{f("user", "employer", "Globex")}},
		{"I started at Initech on the payments team.", []Fact{f("user", "employer", "Initech")}},
		// Stack and tools.
		{"Our stack is Go, PostgreSQL and htmx.", []Fact{f("user", "stack", "Go, PostgreSQL and htmx")}},
		{"Our stack is Go and PostgreSQL nowadays.", []Fact{f("user", "stack", "Go and PostgreSQL")}},
		{"We use Redis for caching.", []Fact{{Subject: "caching", Attribute: "tool", Value: "Redis", Phrase: "you use Redis for caching"}}},
		{"We use Redis for caching and Postgres for storage.", []Fact{f("caching", "tool", "Redis")}},
		{"I use Neovim as my editor because it's fast.", []Fact{{Subject: "user", Attribute: "editor", Value: "Neovim", Phrase: "your editor is Neovim"}}},
		{"Update: my editor is Zed these days.", []Fact{f("user", "editor", "Zed")}},
		{"My shell is fish.", []Fact{f("user", "shell", "fish")}},
		{"The user's editor is Helix.", []Fact{f("user", "editor", "Helix")}},
		{"My package manager is pnpm.", []Fact{f("user", "package_manager", "pnpm")}},
		{"I'm on macOS 14.", []Fact{f("user", "os", "macOS 14")}},
		// X is (now) Y, X moved to Y, ports.
		{"The staging database is now PostgreSQL 17.", []Fact{{Subject: "staging database", Attribute: "is", Value: "PostgreSQL 17", Phrase: "the staging database is PostgreSQL 17"}}},
		{"The staging database is PostgreSQL 16.", []Fact{f("staging database", "is", "PostgreSQL 16")}},
		{"The staging database is now PostgreSQL 17, which ships with better vacuuming.", []Fact{f("staging database", "is", "PostgreSQL 17")}},
		{"My guess is that the staging database is now PostgreSQL 17.", []Fact{f("staging database", "is", "PostgreSQL 17")}},
		{"The staging database moved to db2.internal.", []Fact{f("staging database", "location", "db2.internal")}},
		{"The API listens on port 8080.", []Fact{{Subject: "api", Attribute: "port", Value: "8080", Phrase: "the API listens on port 8080"}}},
		{"Postgres runs on port 5433 in dev.", []Fact{f("postgres", "port", "5433")}},
		{"Our CI runs on Buildkite.", []Fact{f("ci", "location", "Buildkite")}},
		// Switches.
		{"We switched from Jest to Vitest for unit tests.", []Fact{f("unit tests", "tool", "Vitest", "Jest")}},
		{"I switched from Vim to Neovim.", []Fact{{Value: "Neovim", From: "Vim", Phrase: "you switched from Vim to Neovim"}}},
		{"We migrated the staging database from PostgreSQL 16 to PostgreSQL 17.", []Fact{f("staging database", "", "PostgreSQL 17", "PostgreSQL 16")}},
		// People's roles.
		{"Ana is now the tech lead.", []Fact{{Subject: "ana", Attribute: "role", Value: "tech lead", Phrase: "Ana is tech lead"}}},
		{"Yesterday Marta took over as release manager.", []Fact{f("marta", "role", "release manager")}},
		// Clinical headers.
		{"Diagnosis: type 2 diabetes", []Fact{{Subject: "patient", Attribute: "diagnosis", Value: "type 2 diabetes", Phrase: "the diagnosis is type 2 diabetes"}}},
		{"Treatment: metformin 850 mg twice daily, since March.", []Fact{f("patient", "treatment", "metformin 850 mg twice daily, since March")}},
		{"Medication: lisinopril 10 mg", []Fact{f("patient", "medication", "lisinopril 10 mg")}},
		{"Patient: John Doe\nDiagnosis: asthma", []Fact{f("john doe", "diagnosis", "asthma")}},
		// Several facts, in text order.
		{"I live in Madrid. I work at Acme. My editor is Neovim.", []Fact{
			f("user", "lives_in", "Madrid"), f("user", "employer", "Acme"), f("user", "editor", "Neovim")}},
	})
}

func TestExtractSpanish(t *testing.T) {
	checkExtract(t, Default(), []extractCase{
		{"Vivo en Madrid.", []Fact{{Subject: "user", Attribute: "lives_in", Value: "Madrid", Phrase: "you live in Madrid"}}},
		{"Vivo en Valencia desde 2025.", []Fact{f("user", "lives_in", "Valencia")}},
		{"Vivo en Valencia porque me gusta el mar.", []Fact{f("user", "lives_in", "Valencia")}},
		{"Me mudé a Valencia en septiembre.", []Fact{f("user", "lives_in", "Valencia")}},
		{"Me he mudado a Bilbao.", []Fact{f("user", "lives_in", "Bilbao")}},
		{"Me mudé a Valencia hace dos meses.", []Fact{f("user", "lives_in", "Valencia")}},
		{"Trabajo en Acme desde 2021.", []Fact{f("user", "employer", "Acme")}},
		{"Trabajo para Globex.", []Fact{f("user", "employer", "Globex")}},
		{"Empecé en Initech.", []Fact{f("user", "employer", "Initech")}},
		{"Entré en Hooli el año pasado.", []Fact{f("user", "employer", "Hooli")}},
		{"Mi stack es Go, PostgreSQL y htmx.", []Fact{f("user", "stack", "Go, PostgreSQL y htmx")}},
		{"Usamos Redis para la caché.", []Fact{f("caché", "tool", "Redis")}},
		{"Mi editor es Neovim ahora.", []Fact{f("user", "editor", "Neovim")}},
		{"Uso Helix como editor.", []Fact{f("user", "editor", "Helix")}},
		{"La base de datos de staging ahora es PostgreSQL 17.", []Fact{f("base de datos de staging", "is", "PostgreSQL 17")}},
		{"La base de datos de staging es ahora PostgreSQL 17.", []Fact{f("base de datos de staging", "is", "PostgreSQL 17")}},
		{"El servidor de staging pasó a ser Debian 12.", []Fact{f("servidor de staging", "is", "Debian 12")}},
		{"El problema es que la base de datos es PostgreSQL 15.", []Fact{f("base de datos", "is", "PostgreSQL 15")}},
		{"Cambiamos de Jest a Vitest para los tests.", []Fact{f("tests", "tool", "Vitest", "Jest")}},
		{"Pasamos de Webpack a Vite.", []Fact{{Value: "Vite", From: "Webpack"}}},
		{"Luis Marín es el revisor.", []Fact{f("luis marín", "role", "revisor")}},
		{"La API escucha en el puerto 8080.", []Fact{f("api", "port", "8080")}},
		{"Diagnóstico: neumonía adquirida en la comunidad", []Fact{f("patient", "diagnosis", "neumonía adquirida en la comunidad")}},
		{"Tratamiento: amoxicilina 500 mg cada 8 horas", []Fact{f("patient", "treatment", "amoxicilina 500 mg cada 8 horas")}},
		{"Medicación: enalapril 10 mg/24h.", []Fact{f("patient", "medication", "enalapril 10 mg/24h")}},
		{"Paciente: Juan Pérez\nDiagnóstico: gripe A\nTratamiento: oseltamivir", []Fact{
			f("juan pérez", "diagnosis", "gripe A"), f("juan pérez", "treatment", "oseltamivir")}},
		{"Diagnóstico de María López: bronquitis aguda", []Fact{f("maría lópez", "diagnosis", "bronquitis aguda")}},
	})
}

// TestExtractNonFacts holds statements that must not become durable facts,
// each beside a positive control that differs in the one thing that
// matters, so a pattern that stops matching altogether fails too.
func TestExtractNonFacts(t *testing.T) {
	tests := []struct {
		none, control string
	}{
		{"The test is flaky.", "The test runner is Vitest."},
		{"Tests are slow.", "Our tests are now Vitest."},
		{"Do I live in Madrid?", "I live in Madrid."},
		{"¿Vives en Madrid?", "Vivo en Madrid."},
		{"I don't live in Madrid anymore.", "I live in Madrid."},
		{"Ya no vivo en Madrid.", "Ya vivo en Madrid."},
		{"I lived in Madrid for ten years.", "I live in Madrid."},
		{"If the staging database is PostgreSQL 17, run the migration.", "The staging database is PostgreSQL 17."},
		{"Si la base de datos es PostgreSQL 17, migra.", "La base de datos es PostgreSQL 17."},
		{"Maybe we use Redis for caching.", "We use Redis for caching."},
		{"We use it for testing.", "We use Vitest for testing."},
		{"I moved to the new laptop.", "I moved to Valencia."},
		{"I moved to Neovim last year.", "I moved to Valencia last year."},
		{"The problem is that nobody reads the logs.", "The problem is PostgreSQL 9."},
		{"El test es inestable.", "El runner de tests es Vitest."},
		{"I work on the payments service.", "I work at Acme."},
		{"Trabajo en el proyecto de pagos.", "Trabajo en Acme."},
		{"I joined the call late.", "I joined Acme."},
		{"Entré en pánico.", "Entré en Hooli."},
		{"Ana is the best.", "Ana is the tech lead."},
		{"He is the tech lead.", "Ana is the tech lead."},
		{"It listens on port 8080.", "Nginx listens on port 8080."},
		{"I think the build is broken.", "I think the build is now broken."},
		{"The plan is to ship on Friday.", "The plan is Kubernetes."},
		{"Diagnosis pending, see notes", "Diagnosis: pending"},
		{"We never use Docker for builds.", "We use Docker for builds."},
		{"Perhaps the API listens on port 8080.", "The API listens on port 8080."},
	}
	x := Default()
	for _, tt := range tests {
		if got := x.Extract(tt.none); len(got) != 0 {
			t.Errorf("Extract(%q) = %+v, want no facts", tt.none, got)
		}
		if got := x.Extract(tt.control); len(got) == 0 {
			t.Errorf("control Extract(%q) found nothing", tt.control)
		}
	}
}

// TestPatternExamples runs every default pattern alone on its examples:
// the data file documents itself, and this keeps the documentation true.
func TestPatternExamples(t *testing.T) {
	x := Default()
	for pi, p := range x.patterns {
		if len(p.spec.Examples) == 0 {
			t.Errorf("pattern %s has no examples", p.spec.Name)
		}
		for _, ex := range p.spec.Examples {
			if len(x.runOne(pi, ex)) == 0 {
				t.Errorf("pattern %s: example %q extracts nothing", p.spec.Name, ex)
			}
		}
	}
}

func TestPatternsHaveLiterals(t *testing.T) {
	// A pattern without a literal runs on every sentence; the default set
	// must not have one, or the prefilter is wasted.
	x := Default()
	for _, pi := range append(append([]int{}, x.alwaysSentence...), x.alwaysLine...) {
		t.Errorf("pattern %s has no literal the prefilter can look for", x.patterns[pi].spec.Name)
	}
}

func TestExtractIsDeterministicAndDeduplicated(t *testing.T) {
	text := "I live in Madrid. Vivo en Madrid. I live in madrid. My editor is Neovim. I use Neovim as my editor."
	x := Default()
	first := x.Extract(text)
	want := []Fact{f("user", "lives_in", "Madrid"), f("user", "editor", "Neovim")}
	if !sameFacts(first, want) {
		t.Fatalf("Extract = %+v, want %+v", first, want)
	}
	for range 20 {
		if got := x.Extract(text); fmt.Sprint(got) != fmt.Sprint(first) {
			t.Fatalf("Extract not deterministic: %+v then %+v", first, got)
		}
	}
}

func TestValuesAreSubstrings(t *testing.T) {
	x := Default()
	for _, text := range []string{
		"I live in   Valencia  now.", "**My editor is `nvim`**", "Our stack is Go, PostgreSQL and htmx; see docs.",
		"Diagnóstico: neumonía.\r\nTratamiento: reposo", "“I moved to Valencia”, she wrote.",
	} {
		for _, fc := range x.Extract(text) {
			if fc.Value == "" || !strings.Contains(text, fc.Value) {
				t.Errorf("Extract(%q): value %q is not a substring", text, fc.Value)
			}
		}
	}
}

func TestNormalizeSubject(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The staging database", "staging database"},
		{"our  Staging   Database", "staging database"},
		{"la base de datos", "base de datos"},
		{"Nuestra API", "api"},
		{"Luis Marín", "luis marín"},
		{"I", "user"},
		{"el usuario", "user"},
		{"the", "the"},
		{"Diseño", "diseño"},
	}
	for _, tt := range tests {
		if got := NormalizeSubject(tt.in); got != tt.want {
			t.Errorf("NormalizeSubject(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

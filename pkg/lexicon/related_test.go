package lexicon

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// dictEntry is one entry of a fixture dictionary: its index headword and
// its body, as dictd stores them.
type dictEntry struct{ head, body string }

// writeDictd writes a dictionary in dictd's format (name.index and a
// gzip-compressed name.dict.dz) into dir.
func writeDictd(t testing.TB, dir, name string, entries []dictEntry) {
	t.Helper()
	var body bytes.Buffer
	var index strings.Builder
	body.WriteString("00-database-info\nA fixture.\n")
	fmt.Fprintf(&index, "00databaseinfo\t%s\t%s\n", enc64(0), enc64(body.Len()))
	for _, e := range entries {
		off := body.Len()
		body.WriteString(e.body)
		fmt.Fprintf(&index, "%s\t%s\t%s\n", e.head, enc64(off), enc64(len(e.body)))
	}
	var dz bytes.Buffer
	zw := gzip.NewWriter(&dz)
	zw.Write(body.Bytes())
	zw.Close()
	for file, data := range map[string][]byte{name + ".index": []byte(index.String()), name + ".dict.dz": dz.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func enc64(n int) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	if n == 0 {
		return "A"
	}
	var out []byte
	for ; n > 0; n /= 64 {
		out = append([]byte{digits[n%64]}, out...)
	}
	return string(out)
}

// fixtureEngSpa is shaped like FreeDict's English–Spanish dictionary: a
// phrase listed under its first word ("run across"), numbered senses, a
// translation of several words.
var fixtureEngSpa = []dictEntry{
	{"meeting", "meeting /miːtiŋ/\nreunión, junta\n"},
	{"run", "run /rʌn/\n1. correr\n2. funcionar\n"},
	{"run", "run /rʌnəkrɔs/\ntropezar\n"},
	{"backup", "backup /bækʌp/\ncopia de seguridad\n"},
	{"African woman", "African woman /æfrikənwumən/\nafricana\n"},
}

var fixtureSpaEng = []dictEntry{
	{"tortuga", "tortuga /tortuɣa/\nturtle, tortoise\n"},
}

func terms(words ...string) []string {
	var out []string
	for _, w := range words {
		out = append(out, tokenize.Terms(w)...)
	}
	return out
}

func TestReadFreeDict(t *testing.T) {
	dir := t.TempDir()
	writeDictd(t, dir, "freedict-eng-spa", fixtureEngSpa)
	writeDictd(t, dir, "freedict-spa-eng", fixtureSpaEng)
	tr, err := ReadFreeDict(dir)
	if err != nil || tr == nil {
		t.Fatalf("ReadFreeDict = %v, %v", tr, err)
	}
	if len(tr.Files) != 2 || tr.Headwords != 3 {
		t.Errorf("read %v, %d headwords; want both files, 3 single-word headwords", tr.Files, tr.Headwords)
	}
	tests := []struct {
		word      string
		want, not []string
	}{
		{"meeting", terms("reunión", "junta"), nil},
		{"reunión", terms("meeting"), nil},                       // either dictionary serves both ways
		{"run", terms("correr", "funcionar"), terms("tropezar")}, // "run across" is not "run"
		{"backup", nil, terms("copia", "seguridad")},             // a phrase is not a term
		{"tortuga", terms("turtle", "tortoise"), nil},            // Spanish–English
		{"tortoise", terms("tortuga"), nil},                      // …and back
		{"african", nil, terms("africana")},                      // a phrase headword is left out
	}
	for _, tt := range tests {
		got := tr.words[terms(tt.word)[0]]
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s translates to %v, want %s among them", tt.word, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("%s translates to %v, want no %s", tt.word, got, w)
			}
		}
	}
	if got := tr.words["zxqv"]; got != nil {
		t.Errorf("a word in no dictionary translates to %v", got)
	}
}

func TestReadFreeDictBadInput(t *testing.T) {
	good := t.TempDir()
	writeDictd(t, good, "freedict-eng-spa", fixtureEngSpa)
	if tr, err := ReadFreeDict(good); err != nil || tr == nil || len(tr.Files) != 1 {
		t.Fatalf("positive control: one dictionary of the two = %v, %v", tr, err)
	}
	if tr, err := ReadFreeDict(t.TempDir()); tr != nil || err != nil {
		t.Errorf("no dictionary = %v, %v; want nil and no error", tr, err)
	}
	tests := map[string]struct {
		index string
		dict  []byte
	}{
		"offset past the end": {"meeting\tA\tzzzz\n", gz("meeting /m/\nreunión\n")},
		"not base64":          {"meeting\t!!\tB\n", gz("meeting /m/\nreunión\n")},
		"too few fields":      {"meeting\tA\n", gz("meeting /m/\nreunión\n")},
		"not gzip":            {"meeting\tA\tT\n", []byte("meeting /m/\nreunión\n")},
		"an entry too long":   {"meeting\tA\t" + enc64(maxEntry+1) + "\n", gz("meeting /m/\nreunión\n" + strings.Repeat("x", maxEntry))},
	}
	for name, tt := range tests {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "freedict-eng-spa.index"), []byte(tt.index), 0o644)
		os.WriteFile(filepath.Join(dir, "freedict-eng-spa.dict.dz"), tt.dict, 0o644)
		if tr, err := ReadFreeDict(dir); err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: ReadFreeDict = %v, %v; want an error naming the file", name, tr, err)
		}
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func TestLoadFindsFreeDict(t *testing.T) {
	dicts := t.TempDir()
	writeDictd(t, dicts, "freedict-spa-eng", fixtureSpaEng)
	missing := filepath.Join(t.TempDir(), "lexicon.json")
	with, err := load(missing, []string{t.TempDir(), dicts})
	if err != nil {
		t.Fatal(err)
	}
	without, err := load(missing, []string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	q := "¿dónde duerme la tortuga?"
	if got := expansionsFrom(with, q, FromTranslation); !slices.Contains(got, "turtl") {
		t.Errorf("with FreeDict installed, %q expands to %v, want turtl(e)", q, got)
	}
	if with.Translations() == nil || len(with.Translations().Files) != 1 {
		t.Errorf("Translations = %+v, want the one dictionary found", with.Translations())
	}
	if got := expansionsFrom(without, q, FromTranslation); len(got) != 0 || without.Translations() != nil {
		t.Errorf("without FreeDict, %q translates to %v", q, got)
	}
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "freedict-eng-spa.index"), []byte("x\tA\tzz\n"), 0o644)
	os.WriteFile(filepath.Join(broken, "freedict-eng-spa.dict.dz"), gz("x"), 0o644)
	if x, err := load(missing, []string{broken}); err != nil || x.Translations() != nil {
		t.Errorf("a broken FreeDict = %v, %v; want the lexicon without it, no error", x, err)
	}
}

func expansionsFrom(x *Lexicon, q string, src Source) []string {
	var out []string
	for _, e := range x.Expand(q, tokenize.Terms(q)) {
		if e.Source == src {
			out = append(out, e.Term)
		}
	}
	return out
}

func TestExpandSources(t *testing.T) {
	x := Default()
	tests := []struct {
		query string
		src   Source
		want  []string // terms
		not   []string
	}{
		{"what do I need to start first?", FromSynonyms, terms("beginning"), nil},
		{"how do we fix the sink?", FromSynonyms, terms("repair"), nil},
		{"events stamped in the future", FromCognate, []string{"evento", "futuro"}, nil},
		{"eventos del futuro", FromCognate, terms("event", "future"), nil},
		{"la migración", FromCognate, terms("migration"), nil},
		{"zxqv", FromSynonyms, nil, nil},
		{"the Go 1.22 toolchain", FromCognate, nil, []string{"1.22o", "go"}},
	}
	for _, tt := range tests {
		got := expansionsFrom(x, tt.query, tt.src)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Expand(%q) from source %d = %v, want %s among them", tt.query, tt.src, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("Expand(%q) from source %d = %v, want no %s", tt.query, tt.src, got, w)
			}
		}
		if tt.want == nil && len(got) != 0 && tt.not == nil {
			t.Errorf("Expand(%q) from source %d = %v, want none", tt.query, tt.src, got)
		}
	}
}

// FuzzParseDictd: a dictionary on the system is input like any other; a
// broken one is an error, never a panic.
func FuzzParseDictd(f *testing.F) {
	f.Add([]byte("meeting\tA\tU\n"), []byte("meeting /m/\nreunión\n"))
	f.Add([]byte("a\tB\tC\nb\t//\tA\n"), []byte("1. x, y\n2. z"))
	f.Fuzz(func(t *testing.T, index, body []byte) {
		entries, err := parseDictd(index, body)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.head == "" || strings.ContainsRune(e.head, ' ') || len(e.senses) == 0 {
				t.Fatalf("entry %+v: want a one-word headword with translations", e)
			}
		}
	})
}

// BenchmarkExpand: what finding a query's other words costs, per query.
func BenchmarkExpand(b *testing.B) {
	x := Default()
	queries := []string{
		"What do I need to start before the heavy integration tests will pass?",
		"¿Cuándo tengo la reunión individual con mi jefe?",
		"Why did customers get a blank page after we shipped in October?",
		"Which port does the metrics endpoint listen on?",
	}
	qs := make([][]string, len(queries))
	for i, q := range queries {
		qs[i] = tokenize.Terms(q)
	}
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n += len(x.Expand(queries[i%len(queries)], qs[i%len(queries)]))
	}
	b.ReportMetric(float64(n)/float64(b.N), "words/op")
}

func TestCognates(t *testing.T) {
	tests := []struct {
		term      string
		want, not []string
	}{
		{"event", []string{"evento"}, nil},
		{"evento", []string{"event"}, nil},
		{"futuro", terms("future"), nil},
		{"cliente", []string{"client"}, nil},
		{"migracion", terms("migration"), nil},
		{"format", nil, []string{"formacion"}}, // a false friend (training) is no guess
		{"theme", nil, []string{"them"}},       // a short word is not guessed at, and never into a stop word
		{"state", nil, []string{"stat"}},
		{"stat", nil, []string{"state"}},
		{"v1.22", nil, []string{"v1.22o"}},
	}
	for _, tt := range tests {
		got := cognates(tt.term)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("cognates(%q) = %v, want %s among them", tt.term, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("cognates(%q) = %v, want no %s", tt.term, got, w)
			}
		}
	}
}

// TestGlossaryPairs: everyday and developer words meet their translation
// through the glossary, in both directions and whatever the inflection or
// accents.
func TestGlossaryPairs(t *testing.T) {
	x := Default()
	tests := []struct{ text, want string }{
		{"which number should I ring?", "numero"},
		{"el número de la oficina", "number"},
		{"her phone number", "telefono"},
		{"Cumpleaños de Ana", "birthday"},
		{"my brother's flat", "hermano"},
		{"unhandled exceptions", "excepcion"},
		{"los errores de la API", "exception"},
		{"review comments", "comentario"},
		{"el código del parser", "code"},
		{"a chair by the window", "sillon"},
		{"tres sillas", "seat"},
		{"los pacientes nuevos", "patient"},
		{"reunión de equipo", "meet"},
		{"into the homelab from outside", "remot"},
		{"acceso remoto al NAS", "remot"},
	}
	for _, tt := range tests {
		ts := tokenize.Terms(tt.text)
		var got []string
		for _, e := range x.Glossary(tt.text, ts) {
			got = append(got, e.Term)
		}
		if !slices.Contains(got, tt.want) {
			t.Errorf("Glossary(%q) = %v, want %q among them", tt.text, got, tt.want)
		}
	}
}

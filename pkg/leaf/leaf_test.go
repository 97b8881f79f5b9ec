package leaf

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func sample(text string) Leaf {
	return Leaf{
		Header: Header{
			ID:         ID(Header{Scope: ScopeProject, Project: "github.com/org/repo"}, text),
			ValidFrom:  time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC),
			RecordedAt: time.Date(2026, 11, 29, 14, 2, 3, 123456000, time.UTC),
			Scope:      ScopeProject,
			Project:    "github.com/org/repo",
			Agent:      Agent{Name: "claude-code", Version: "2.1.328"},
			Session:    "s-1",
			Trust:      TrustAsserted,
			Status:     StatusActive,
			Domain:     "software.go",
			Tags:       []string{"db"},
			Checksum:   Checksum(text),
		},
		Text: text,
	}
}

func TestRoundTripKeepsTextByteForByte(t *testing.T) {
	for _, text := range []string{
		"I live in Madrid.",
		"trailing newline\n",
		"\n\nleading blank lines and\r\nCRLF\r\n",
		"contains the marker\nIHMT-META>>>\nin its body",
		"ünïcödé ✓ 日本語",
	} {
		l := sample(text)
		data, err := Encode(l)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(data)
		if err != nil {
			t.Fatalf("Parse(Encode(%q)): %v", text, err)
		}
		if got.Text != text {
			t.Errorf("text = %q, want %q", got.Text, text)
		}
		if !got.ValidFrom.Equal(l.ValidFrom) || !got.RecordedAt.Equal(l.RecordedAt) || got.Agent != l.Agent || got.Project != l.Project || got.Tags[0] != "db" {
			t.Errorf("header changed in round trip: %+v", got.Header)
		}
		if !bytes.HasSuffix(data, []byte(text)) {
			t.Errorf("file does not end with the text as saved")
		}
	}
}

func TestParseRejectsDamage(t *testing.T) {
	good, _ := Encode(sample("I live in Madrid."))
	if _, err := Parse(good); err != nil {
		t.Fatalf("positive control: %v", err)
	}
	tests := map[string][]byte{
		"empty":           nil,
		"no open marker":  bytes.TrimPrefix(good, []byte("<<<IHMT-META\n")),
		"no close marker": bytes.Replace(good, []byte("IHMT-META>>>"), []byte("IHMT-META>>"), 1),
		"bad json":        bytes.Replace(good, []byte(`"id"`), []byte(`id`), 1),
		"text edited":     bytes.Replace(good, []byte("Madrid"), []byte("Madrix"), 1),
		"bad id":          bytes.Replace(good, []byte(`"id": "`), []byte(`"id": "../`), 1),
	}
	for name, data := range tests {
		if _, err := Parse(data); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

func TestIDIsStableAndScoped(t *testing.T) {
	global := Header{Scope: ScopeGlobal}
	a := ID(global, "x")
	if a != ID(global, "x") || !IsID(a) {
		t.Fatalf("ID not stable or not an id: %q", a)
	}
	for _, other := range []string{ID(Header{Scope: ScopeProject, Project: "p"}, "x"), ID(Header{Scope: ScopeProject, Project: "q"}, "x"), ID(global, "x ")} {
		if other == a {
			t.Errorf("different memories share id %s", a)
		}
	}
}

// TestIDIsTheStoredOne pins ids as stores hold them: an id is in every leaf
// file's name and header and in every link, so the derivation never changes.
func TestIDIsTheStoredOne(t *testing.T) {
	part := Header{Scope: ScopeProject, Project: "github.com/org/repo", Source: &Source{Digest: "sha256:ab", Part: 3, Parts: 5}}
	for _, tt := range []struct {
		name string
		h    Header
		text string
		want string
	}{
		{"a saved memory", Header{Scope: ScopeGlobal}, "I live in Madrid.", "7ab7619bf368adea"},
		{"a part of a document", part, "func main() {}", "7f20a94d00519ec8"},
	} {
		if got := ID(tt.h, tt.text); got != tt.want {
			t.Errorf("%s: ID = %s, want %s", tt.name, got, tt.want)
		}
	}
	moved := part
	moved.Source = &Source{Digest: "sha256:ab", Part: 4, Parts: 5}
	plain := part
	plain.Source = nil
	for _, other := range []Header{moved, plain} {
		if ID(other, "func main() {}") == ID(part, "func main() {}") {
			t.Errorf("the same text as another part or as a plain memory shares the part's id")
		}
	}
}

// TestValidateTextAndDocument: a memory's text and a document to ingest
// are checked alike, each against its own size limit.
func TestValidateTextAndDocument(t *testing.T) {
	text, document := ValidateText, ValidateDocument
	for _, tt := range []struct {
		name      string
		validate  func(string) error
		in        string
		wantInErr string // "": valid
	}{
		{"ok", text, "I prefer tabs.\n\tIndented\r\n", ""},
		{"empty", text, "", "empty"},
		{"whitespace", text, " \n\t ", "empty"},
		{"huge", text, strings.Repeat("a", MaxContent+1), "1 MiB"},
		{"at limit", text, strings.Repeat("a", MaxContent), ""},
		{"bad utf8", text, "ok \xff no", "offset 3"},
		{"nul", text, "a\x00b", "U+0000"},
		{"escape", text, "a\x1b[31mred", "U+001B"},
		{"c1 control", text, "a\u0085b", "U+0085"},
		{"document over a memory's limit", document, strings.Repeat("a", MaxContent+1), ""},
		{"huge document", document, strings.Repeat("a", MaxDocument+1), "16 MiB"},
		{"empty document", document, "\n", "empty"},
		{"document with a control character", document, "a\x1b", "U+001B"},
	} {
		err := tt.validate(tt.in)
		switch {
		case tt.wantInErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tt.name, err)
		case tt.wantInErr != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.wantInErr)):
			t.Errorf("%s: err = %v, want ErrInvalid mentioning %q", tt.name, err, tt.wantInErr)
		}
	}
}

func TestValidateLabelAndProject(t *testing.T) {
	for _, ok := range []string{"software.go", "personal", "process.cooking", "x_y-z", "médico"} {
		if err := ValidateLabel("domain", ok); err != nil {
			t.Errorf("ValidateLabel(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "../../etc", ".hidden", "a..b", "a/b", "a b", "end.", strings.Repeat("x", 65)} {
		if err := ValidateLabel("domain", bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateLabel(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	for _, ok := range []string{"", "github.com/org/repo", "/home/u/src/tool"} {
		if err := ValidateProject(ok); err != nil {
			t.Errorf("ValidateProject(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"../../etc", "/home/u/../../etc", "a\x00b", "a\nb", strings.Repeat("p", 257), "\xff"} {
		if err := ValidateProject(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateProject(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	good, _ := Encode(sample("I live in Madrid."))
	f.Add(good)
	f.Add([]byte("<<<IHMT-META\n{}\nIHMT-META>>>\n"))
	f.Add([]byte("<<<IHMT-META\n\nIHMT-META>>>\nx"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if err != nil {
			return
		}
		// Anything accepted must survive a re-encode unchanged in meaning.
		again, err := Encode(l)
		if err != nil {
			t.Fatalf("Encode after Parse: %v", err)
		}
		l2, err := Parse(again)
		if err != nil || l2.Text != l.Text || l2.ID != l.ID {
			t.Fatalf("re-parse differs: %v", err)
		}
	})
}

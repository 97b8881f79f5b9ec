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
			ID:         ID(ScopeProject, "github.com/org/repo", text),
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
	a := ID(ScopeGlobal, "", "x")
	if a != ID(ScopeGlobal, "", "x") || !IsID(a) {
		t.Fatalf("ID not stable or not an id: %q", a)
	}
	for _, other := range []string{ID(ScopeProject, "p", "x"), ID(ScopeProject, "q", "x"), ID(ScopeGlobal, "", "x ")} {
		if other == a {
			t.Errorf("different memories share id %s", a)
		}
	}
}

func TestValidateText(t *testing.T) {
	tests := []struct {
		name, text, wantInErr string
	}{
		{"ok", "I prefer tabs.\n\tIndented\r\n", ""},
		{"empty", "", "empty"},
		{"whitespace", " \n\t ", "empty"},
		{"huge", strings.Repeat("a", MaxContent+1), "1 MiB"},
		{"at limit", strings.Repeat("a", MaxContent), ""},
		{"bad utf8", "ok \xff no", "offset 3"},
		{"nul", "a\x00b", "U+0000"},
		{"escape", "a\x1b[31mred", "U+001B"},
		{"c1 control", "a\u0085b", "U+0085"},
	}
	for _, tt := range tests {
		err := ValidateText(tt.text)
		if tt.wantInErr == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tt.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.wantInErr) {
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

package ihmtv1

import (
	"errors"
	"strings"
	"testing"
)

func TestParseWords(t *testing.T) {
	tests := []struct {
		field, word string
		parse       func(string) (int32, error)
		want        int32
		wantErr     string // "" for none
	}{
		{"scope", "", parseScope, int32(Scope_SCOPE_UNSPECIFIED), ""},
		{"scope", "global", parseScope, int32(Scope_SCOPE_GLOBAL), ""},
		{"scope", "project", parseScope, int32(Scope_SCOPE_PROJECT), ""},
		{"scope", "nowhere", parseScope, 0, `scope "nowhere": use global or project`},
		{"scope", "Global", parseScope, 0, `scope "Global": use global or project`},
		{"scope", "default", parseScope, 0, `scope "default": use global or project`},
		{"search scope", "", parseSearchScope, int32(SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED), ""},
		{"search scope", "default", parseSearchScope, int32(SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED), ""},
		{"search scope", "project", parseSearchScope, int32(SearchScope_SEARCH_SCOPE_PROJECT), ""},
		{"search scope", "global", parseSearchScope, int32(SearchScope_SEARCH_SCOPE_GLOBAL), ""},
		{"search scope", "all", parseSearchScope, int32(SearchScope_SEARCH_SCOPE_ALL), ""},
		{"search scope", "everywhere", parseSearchScope, 0, `scope "everywhere": use default, project, global or all`},
		{"trust", "verified", parseTrust, int32(Trust_TRUST_VERIFIED), ""},
		{"trust", "rejected", parseTrust, int32(Trust_TRUST_REJECTED), ""},
		{"trust", "", parseTrust, 0, `trust "": use asserted, verified, pending or rejected`},
	}
	for _, tt := range tests {
		got, err := tt.parse(tt.word)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("%s %q = %d, %v; want %d", tt.field, tt.word, got, err, tt.want)
			}
			continue
		}
		var we *WordError
		if err == nil || err.Error() != tt.wantErr || !errors.As(err, &we) || we.Word != tt.word {
			t.Errorf("%s %q: error %v; want a *WordError %q", tt.field, tt.word, err, tt.wantErr)
		}
	}
}

func parseScope(s string) (int32, error)       { v, err := ParseScope(s); return int32(v), err }
func parseSearchScope(s string) (int32, error) { v, err := ParseSearchScope(s); return int32(v), err }
func parseTrust(s string) (int32, error)       { v, err := ParseTrust(s); return int32(v), err }

func TestNames(t *testing.T) {
	tests := []struct{ got, want string }{
		{ScopeName(Scope_SCOPE_GLOBAL), "global"},
		{ScopeName(Scope_SCOPE_PROJECT), "project"},
		{ScopeName(Scope_SCOPE_UNSPECIFIED), "unspecified"},
		{ScopeName(Scope(9)), "9"}, // a newer peer's value is shown, not blanked
		{searchScopes.name(SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED), "default"},
		{searchScopes.name(SearchScope_SEARCH_SCOPE_ALL), "all"},
		{TrustName(Trust_TRUST_ASSERTED), "asserted"},
		{TrustName(Trust_TRUST_PENDING), "pending"},
		{TrustName(Trust_TRUST_UNSPECIFIED), "unspecified"},
		{SaveStatusName(SaveStatus_SAVE_STATUS_PENDING_REVIEW), "pending_review"},
		{SaveStatusName(SaveStatus_SAVE_STATUS_DUPLICATE), "duplicate"},
		{SearchStatusName(SearchStatus_SEARCH_STATUS_NOT_FOUND), "not_found"},
		{SearchStatusName(SearchStatus_SEARCH_STATUS_FOUND), "found"},
		{IngestStatusName(IngestStatus_INGEST_STATUS_UNCHANGED), "unchanged"},
		{IngestStatusName(IngestStatus_INGEST_STATUS_REFUSED), "refused"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("name %q, want %q", tt.got, tt.want)
		}
	}
}

// TestEveryValueHasAWord: a value added to memory.proto must be given its
// word here, or it would reach people as its generated name.
func TestEveryValueHasAWord(t *testing.T) {
	tables := []struct {
		enum  string
		names map[int32]string
		word  func(int32) string
	}{
		{"Scope", Scope_name, func(n int32) string { return ScopeName(Scope(n)) }},
		{"SearchScope", SearchScope_name, func(n int32) string { return searchScopes.name(SearchScope(n)) }},
		{"Trust", Trust_name, func(n int32) string { return TrustName(Trust(n)) }},
		{"SaveStatus", SaveStatus_name, func(n int32) string { return SaveStatusName(SaveStatus(n)) }},
		{"SearchStatus", SearchStatus_name, func(n int32) string { return SearchStatusName(SearchStatus(n)) }},
		{"IngestStatus", IngestStatus_name, func(n int32) string { return IngestStatusName(IngestStatus(n)) }},
	}
	for _, tb := range tables {
		for n, name := range tb.names {
			if n == 0 && tb.enum != "SearchScope" {
				continue // UNSPECIFIED: no word, never sent on purpose
			}
			if w := tb.word(n); w == "" || strings.ToUpper(w) == w || strings.Contains(w, "unspecified") {
				t.Errorf("%s %s has no word (reads %q)", tb.enum, name, w)
			}
		}
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  spread\n\tover   lines ", 40, "spread over lines"},
		{"abcdef", 3, "abc…"},
		{"ñandú añejo", 5, "ñandú…"}, // runes, not bytes
		{"", 5, ""},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.text, tt.n); got != tt.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

func TestHints(t *testing.T) {
	tests := []struct{ got, want string }{
		{ScopeHint(), "use global or project"},
		{SearchScopeHint(), "use default, project, global or all"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("hint %q, want %q", tt.got, tt.want)
		}
	}
}

func TestOrList(t *testing.T) {
	for words, want := range map[string]string{"": "", "a": "a", "a b": "a or b", "a b c": "a, b or c"} {
		if got := orList(strings.Fields(words)); got != want {
			t.Errorf("orList(%q) = %q, want %q", words, got, want)
		}
	}
}

package project

import (
	"maps"
	"strings"
	"testing"
)

func TestRemoteURLs(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   map[string]string
	}{
		{
			name: "as git writes it",
			config: "[core]\n\trepositoryformatversion = 0\n\tbare = false\n" +
				"[remote \"origin\"]\n\turl = git@github.com:Org/Repo.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
				"[branch \"main\"]\n\tremote = origin\n",
			want: map[string]string{"origin": "git@github.com:Org/Repo.git"},
		},
		{
			name:   "comments and blank lines",
			config: "# a comment\n; another\n\n[remote \"origin\"] # trailing\n  url = https://h/x ; says who\n",
			want:   map[string]string{"origin": "https://h/x"},
		},
		{
			name:   "quoted value keeps comment characters and inner space",
			config: "[remote \"o\"]\nurl = \"https://h/a;b#c\"  \n",
			want:   map[string]string{"o": "https://h/a;b#c"},
		},
		{
			name:   "unquoted inner space kept, trailing dropped",
			config: "[remote \"o\"]\nurl =   /srv/my  repo   \n",
			want:   map[string]string{"o": "/srv/my  repo"},
		},
		{
			name:   "escapes",
			config: "[remote \"o\"]\nurl = \"a\\\"b\\\\c\"\n",
			want:   map[string]string{"o": `a"b\c`},
		},
		{
			name:   "continuation line",
			config: "[remote \"o\"]\nurl = https://h/\\\nrepo\n",
			want:   map[string]string{"o": "https://h/repo"},
		},
		{
			name:   "section and key names are case-insensitive",
			config: "[REMOTE \"origin\"]\nURL = https://h/x\n",
			want:   map[string]string{"origin": "https://h/x"},
		},
		{
			name:   "quoted subsection keeps case and escapes",
			config: "[remote \"Or\\\"ig\"]\nurl = x\n",
			want:   map[string]string{`Or"ig`: "x"},
		},
		{
			name:   "legacy dotted subsection is lower-cased",
			config: "[remote.Origin]\nurl = x\n",
			want:   map[string]string{"origin": "x"},
		},
		{
			name:   "first url of a remote wins",
			config: "[remote \"o\"]\nurl = first\nurl = second\n[remote \"o\"]\nurl = third\n",
			want:   map[string]string{"o": "first"},
		},
		{
			name:   "CRLF and BOM",
			config: "\ufeff[remote \"o\"]\r\n\turl = x\r\n",
			want:   map[string]string{"o": "x"},
		},
		{
			name:   "boolean key and empty url ignored",
			config: "[remote \"o\"]\nurl\nurl =\n[remote \"p\"]\nmirror\nurl = y",
			want:   map[string]string{"p": "y"},
		},
		{
			name:   "other sections' url keys ignored",
			config: "[url \"git@github.com:\"]\ninsteadOf = gh:\n[submodule \"s\"]\nurl = z\n[remote]\nurl = w\n",
			want:   map[string]string{},
		},
		{name: "empty file", config: "", want: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := remoteURLs([]byte(tt.config))
			if err != nil {
				t.Fatalf("remoteURLs: %v", err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("remoteURLs = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, config, wantErr string
	}{
		{"unterminated quote", "[remote \"o\"]\nurl = \"x\n", "line 2"},
		{"unterminated header", "[remote \"o\"\nurl = x\n", "line 1"},
		{"unquoted subsection", "[remote o]\n", "quoted"},
		{"variable before any section", "url = x\n", "outside any section"},
		{"bad escape", "[r]\n\nk = \\q\n", "line 3"},
		{"junk", "[r]\n%\n", "line 2"},
		{"empty section", "[]\n", "empty section"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := parseConfig([]byte(tt.config), func(_, _, _, _ string) {})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseConfig error = %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestPickRemote(t *testing.T) {
	tests := []struct {
		name string
		urls map[string]string
		want string
	}{
		{"origin wins", map[string]string{"a": "1", "origin": "2"}, "2"},
		{"else alphabetically first", map[string]string{"upstream": "1", "fork": "2"}, "2"},
		{"none", map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pickRemote(tt.urls); got != tt.want {
				t.Errorf("pickRemote = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzParseConfig checks that no config file panics the parser; the file is
// on the user's disk, but it may have been written by any tool.
func FuzzParseConfig(f *testing.F) {
	f.Add("[remote \"origin\"]\n\turl = git@github.com:o/r.git\n")
	f.Add("[a.b]\nk = \"v\\\"\" ; c\n")
	f.Add("[r \"s\\")
	f.Add("[r]\nk = v\\")
	f.Fuzz(func(t *testing.T, config string) {
		_ = parseConfig([]byte(config), func(_, _, _, _ string) {})
	})
}

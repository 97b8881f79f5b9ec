package recall

import (
	"slices"
	"testing"
)

func TestSelfWords(t *testing.T) {
	for _, tt := range []struct {
		project, text string
		want          []string
	}{
		{"canopy", "canopy is Pampero's vector tile server: FastAPI + PostGIS, serves MVT tiles.", []string{"vector", "tile", "server"}},
		{"github.com/acme/brisa", "brisa is the Vue 3 + Vite frontend for the canopy maps.", []string{"frontend"}},
		{"sextante", "sextante: my open-source Python library that parses dates.", []string{"open", "sourc", "librari"}},
		{"turnero", "turnero es una agenda web para la clínica; Phoenix 1.7.", []string{"agenda", "web"}},
		{"Kelpie", "kelpie is Brightkelp's event-ingestion service in Go.", []string{"event", "ingestion", "servic"}},
		// Not definitions: a participle, a statement after the colon, another project, none.
		{"kelpie", "kelpie is configured through environment variables.", nil},
		{"turnero", "turnero is hosted on Heroku (app turnero-vidal).", nil},
		{"ledgerline", "ledgerline: nightly pg_dump at 02:00 from the systemd timer.", nil},
		{"kelpie", "tidepool is Brightkelp's analytics dashboard.", nil},
		{"", "kelpie is Brightkelp's event-ingestion service.", nil},
		{"kelpie", "kelpie is", nil},
		{"kelpie", "kelpie: the Go 1.23 SDK.", nil}, // names only
	} {
		got := SelfWords(tt.project, tt.text)
		if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("SelfWords(%q, %q) = %q, want %q", tt.project, tt.text, got, tt.want)
		}
	}
}

// FuzzSelfWords: any text of any project reads without a panic, and a
// description is at most maxSelfWords words.
func FuzzSelfWords(f *testing.F) {
	for _, s := range []string{"canopy is Pampero's vector tile server: FastAPI", "x: my", "x is", "x is the", "x — a b c d e f g h", "/: is a"} {
		f.Add("github.com/acme/x", s)
	}
	f.Fuzz(func(t *testing.T, project, text string) {
		if w := SelfWords(project, text); len(w) > 2*maxSelfWords {
			t.Errorf("SelfWords(%q, %q) = %q: too long", project, text, w)
		}
	})
}

package store

import (
	"context"
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
		got := selfWords(tt.project, tt.text)
		if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("selfWords(%q, %q) = %q, want %q", tt.project, tt.text, got, tt.want)
		}
	}
}

// TestProjectOwnWords: asked from inside a project, the words its defining
// memory describes it by ("the tile server") mean the project, so the
// memory that answers ranks above the definition. The controls: asked
// from another project the words count as usual, a question made only of
// them still finds the definition, the store reopened knows the definition
// again, and once it is forgotten its words count again.
func TestProjectOwnWords(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := context.Background()
	canopy := alice
	canopy.Project = "github.com/pampero/canopy"
	def := saveIn(t, s, SaveInput{Caller: canopy, Scope: ScopeProject, Content: "canopy is Pampero's vector tile server: FastAPI and PostGIS behind a Docker image, serving tiles to the agritech dashboard."})
	image := saveIn(t, s, SaveInput{Caller: canopy, Scope: ScopeProject, Content: "The base image is python:3.13-slim; the shapely wheels were all available."})
	other := canopy
	other.Project = "github.com/pampero/brisa"
	saveIn(t, s, SaveInput{Caller: other, Scope: ScopeProject, Content: "brisa builds with Node 22 and pnpm."})

	first := func(c Caller, q string) string {
		t.Helper()
		r := find(t, s, SearchInput{Caller: c, Query: q})
		if len(r.Hits) == 0 {
			return ""
		}
		return r.Hits[0].Leaf.ID
	}
	q := "What Python does the tile server's Docker image ship with?"
	if got := first(canopy, q); got != image.Leaf.ID {
		t.Errorf("asked from canopy: first %s, want the image memory %s", got, image.Leaf.ID)
	}
	if got := first(canopy, "What is the vector tile server?"); got != def.Leaf.ID {
		t.Errorf("a question only of the project's own words: first %s, want the definition %s", got, def.Leaf.ID)
	}
	r := find(t, s, SearchInput{Caller: canopy, Query: q})
	if slices.Contains(r.Terms, "tile") || !slices.Contains(r.Terms, "python") {
		t.Errorf("terms searched from canopy = %q: want the project's own words out, the rest in", r.Terms)
	}
	// A word of the description alone is a topic of the project, not its name.
	if r := find(t, s, SearchInput{Caller: canopy, Query: "How long are tiles cached?"}); !slices.Contains(r.Terms, "tile") {
		t.Errorf("terms of a question about tiles = %q: want tile kept", r.Terms)
	}
	r = find(t, s, SearchInput{Caller: other, Query: q, Scope: ScopeAll})
	if !slices.Contains(r.Terms, "tile") {
		t.Errorf("terms searched from brisa = %q: another project's words count as usual", r.Terms)
	}
	// Reopened, the store knows the definition again from the leaves.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	if got := first(canopy, q); got != image.Leaf.ID {
		t.Errorf("reopened, asked from canopy: first %s, want the image memory %s", got, image.Leaf.ID)
	}
	if _, err := s.Forget(ctx, canopy, def.Leaf.ID, "test"); err != nil {
		t.Fatal(err)
	}
	r = find(t, s, SearchInput{Caller: canopy, Query: q})
	if !slices.Contains(r.Terms, "tile") {
		t.Errorf("terms after the definition is forgotten = %q: its words count again", r.Terms)
	}
}

// TestHomeWinsANearTie: asked in a project, its own memory that holds
// every word the better-scoring global one holds answers (not the
// project's memory that lacks "file"); the control: asked from no project,
// the global one answers.
func TestHomeWinsANearTie(t *testing.T) {
	s := open(t, t.TempDir())
	proj := alice
	proj.Project = "github.com/acme/quillmark"
	global := saveIn(t, s, SaveInput{Caller: proj, Scope: ScopeGlobal, Content: "~/.ssh/config only does `Include ~/.ssh/config.d/*`, with one config file per employer or client."})
	own := saveIn(t, s, SaveInput{Caller: proj, Scope: ScopeProject, Content: "As of quillmark 0.9 the config file is quillmark.toml (no leading dot); .quillmark.toml still loads but prints a deprecation warning on every run."})
	saveIn(t, s, SaveInput{Caller: proj, Scope: ScopeProject, Content: "The CI config runs the linter on every pull request."})

	first := func(c Caller, q string, scope SearchScope) string {
		t.Helper()
		r := find(t, s, SearchInput{Caller: c, Query: q, Scope: scope})
		if r.Verdict != Found || len(r.Hits) == 0 {
			t.Fatalf("%q from %q: %v, want found", q, c.Project, r.Verdict)
		}
		return r.Hits[0].Leaf.ID
	}
	if got := first(proj, "What's the config file called?", ScopeDefault); got != own.Leaf.ID {
		t.Errorf("asked in the project: first %s, want its own config file memory %s", got, own.Leaf.ID)
	}
	nowhere := proj
	nowhere.Project = ""
	if got := first(nowhere, "What's the config file called?", ScopeAll); got != global.Leaf.ID {
		t.Errorf("asked from no project: first %s, want the global memory %s", got, global.Leaf.ID)
	}
}

// FuzzSelfWords: any text of any project reads without a panic, and a
// description is at most maxSelfWords words.
func FuzzSelfWords(f *testing.F) {
	for _, s := range []string{"canopy is Pampero's vector tile server: FastAPI", "x: my", "x is", "x is the", "x — a b c d e f g h", "/: is a"} {
		f.Add("github.com/acme/x", s)
	}
	f.Fuzz(func(t *testing.T, project, text string) {
		if w := selfWords(project, text); len(w) > 2*maxSelfWords {
			t.Errorf("selfWords(%q, %q) = %q: too long", project, text, w)
		}
	})
}

package store

import (
	"context"
	"slices"
	"testing"
)

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

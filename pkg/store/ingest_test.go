package store

import (
	"context"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

const goFile = `// Package demo is a sample.
package demo

import (
	"fmt"
	"strings"
)

// Greet says hello; its body has braces in strings: "{" and '}'.
func Greet(name string) string {
	return fmt.Sprintf("hello {%s}", strings.TrimSpace(name))
}

// Shout is the loud variant, documented with a raw string: ` + "`{`" + `.
func Shout(name string) string {
	return strings.ToUpper(Greet(name)) + "!"
}
`

func TestIngestDocument(t *testing.T) {
	s := open(t, t.TempDir())
	name := "/src/demo/demo.go"
	big := goFile + strings.Repeat("\n// filler keeps this file over one leaf\nfunc filler() {}\n", 200)
	r, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: name, Content: big})
	if err != nil || r.Status != Ingested || r.Type != "code" || r.Domain != "software.go" || len(r.Leaves) < 2 {
		t.Fatalf("ingest = %+v (%d leaves), %v", r, len(r.Leaves), err)
	}
	var whole strings.Builder
	for i, l := range r.Leaves {
		if l.Source == nil || l.Source.Part != i+1 || l.Source.Parts != len(r.Leaves) || l.Source.Name != name {
			t.Fatalf("leaf %d source = %+v", i, l.Source)
		}
		whole.WriteString(l.Text)
	}
	if whole.String() != big {
		t.Fatal("the leaves do not concatenate to the file")
	}
	// A function is never cut: Greet is inside one leaf, whole.
	greet := goFile[strings.Index(goFile, "// Greet"):strings.Index(goFile, "// Shout")]
	if !strings.Contains(r.Leaves[0].Text, greet) {
		t.Fatalf("Greet was cut: first leaf %q", r.Leaves[0].Text)
	}
	if res := find(t, s, SearchInput{Query: "Shout loud variant ToUpper"}); res.Verdict != Found || !strings.Contains(res.Hits[0].Leaf.Text, "func Shout") {
		t.Fatalf("search into an ingested file: %+v", res)
	}

	// The same file again writes nothing.
	entries := s.Stats(alice).LogEntries
	again, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: name, Content: big})
	if err != nil || again.Status != Unchanged || s.Stats(alice).LogEntries != entries || len(again.Leaves) != len(r.Leaves) {
		t.Fatalf("re-ingest unchanged = %+v, %v", again.Status, err)
	}
	// A changed file supersedes the old version's leaves, kept as history.
	changed := strings.Replace(big, "the loud variant", "the LOUD variant", 1)
	v2, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: name, Content: changed})
	if err != nil || v2.Status != Ingested || len(v2.Superseded) != len(r.Leaves) {
		t.Fatalf("re-ingest changed = %+v, %v", v2, err)
	}
	if l, _ := s.Get(alice, r.Leaves[0].ID, ScopeDefault); l.Status != leaf.StatusSuperseded {
		t.Fatalf("old leaf status = %s", l.Status)
	}
	res := find(t, s, SearchInput{Query: "Shout loud variant ToUpper", Limit: 10})
	for _, h := range res.Hits {
		if h.Leaf.Source.Digest != v2.Leaves[0].Source.Digest {
			t.Fatalf("a superseded version answered a search: %v", ids(res))
		}
	}
	// And the old version, ingested again, is current again.
	back, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: name, Content: big})
	if err != nil || back.Status != Ingested || back.Leaves[0].ID != r.Leaves[0].ID || back.Leaves[0].Status != leaf.StatusActive {
		t.Fatalf("re-ingest of the old version = %+v, %v", back, err)
	}

	// Everything survives a restart, and the document still concatenates.
	dir := s.dir
	s.Close()
	s = open(t, dir)
	var again2 strings.Builder
	for _, l := range back.Leaves {
		got, err := s.Get(alice, l.ID, ScopeDefault)
		if err != nil {
			t.Fatal(err)
		}
		again2.WriteString(got.Text)
	}
	if again2.String() != big {
		t.Fatal("after restart the leaves do not concatenate to the file")
	}
}

func TestIngestRefusesAndValidates(t *testing.T) {
	s := open(t, t.TempDir())
	for name, in := range map[string]IngestInput{
		"empty":      {Caller: alice, Name: "/a.txt", Content: "  \n"},
		"bad type":   {Caller: alice, Name: "/a.txt", Content: "hello", Type: "poem"},
		"bad name":   {Caller: alice, Name: "/a\nb.txt", Content: "hello"},
		"bad domain": {Caller: alice, Name: "/a.txt", Content: "hello", Domain: "../x"},
		"control":    {Caller: alice, Name: "/a.txt", Content: "hello\x00"},
	} {
		if _, err := s.Ingest(ctx, in); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	r, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: "/env", Content: "DB_HOST=db\nDB_PASSWORD=" + "hunter2hunter2Xy9\n"})
	if err != nil || r.Status != IngestRefused || strings.Contains(r.Message, "hunter2") {
		t.Fatalf("a file with a secret = %+v, %v", r, err)
	}
	ok, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: "/notes.md", Content: "# Notes\n\nThe staging host is db-7.\n"})
	if err != nil || ok.Status != Ingested {
		t.Fatalf("positive control: %+v %v", ok, err)
	}
	if s.Stats(alice).Memories != 1 {
		t.Fatalf("memories = %d, want only the control", s.Stats(alice).Memories)
	}
}

func TestLongSaveBecomesSeveralLeaves(t *testing.T) {
	s := open(t, t.TempDir())
	var b strings.Builder
	for i := 0; b.Len() < 3*longSave; i++ {
		b.WriteString("Paragraph about topic number " + strings.Repeat("x", i%7) + " with enough words to fill the page nicely.\n\n")
	}
	r, err := s.Save(context.Background(), SaveInput{Caller: alice, Content: b.String(), Scope: ScopeGlobal})
	if err != nil || r.Status != Saved || len(r.IDs) < 3 || r.Leaf.ID != r.IDs[0] {
		t.Fatalf("long save = %+v (%d ids), %v", r.Status, len(r.IDs), err)
	}
	if again, _ := s.Save(context.Background(), SaveInput{Caller: alice, Content: b.String(), Scope: ScopeGlobal}); again.Status != Duplicate {
		t.Fatalf("the same long save again = %v", again.Status)
	}
	if _, err := s.Save(context.Background(), SaveInput{Caller: alice, Content: b.String() + "more", Replaces: r.IDs[0]}); err == nil {
		t.Fatal("replaces with a long save should be refused")
	}
}

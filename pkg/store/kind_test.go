package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/recall"
)

// codeAboutLiving is a Go file whose every function says "live" often, as
// a store's own sources do (isLive, SetLive): a plain BM25 ranks its
// blocks above a memory that says it once.
func codeAboutLiving(file, n int) string {
	var b strings.Builder
	b.WriteString("package living\n\n")
	for i := file * n; i < (file+1)*n; i++ {
		fmt.Fprintf(&b, "// live%d reports whether the document is live: live documents answer.\nfunc live%d(d doc) bool {\n\treturn d.live && d.Live() && d.liveSince > %d\n}\n\n", i, i, i)
	}
	return b.String()
}

// TestCodeYieldsToProse: a question about the person is answered by the
// memory, not by code blocks that share its word; a question about code is
// answered by the code, through either scoring path (pkg/recall's test of
// the same name has the control: without the priors, code ranks first).
func TestCodeYieldsToProse(t *testing.T) {
	s := open(t, t.TempDir())
	home := save(t, s, alice, "I live in Porto, in Bonfim.", ScopeGlobal)
	before := find(t, s, SearchInput{Caller: alice, Query: "where do I live"})
	if len(before.Hits) == 0 || before.Hits[0].Leaf.ID != home.Leaf.ID {
		t.Fatalf("before the ingest: %v", ids(before))
	}
	for i := range 3 {
		if _, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: fmt.Sprintf("/src/living/l%d.go", i), Content: codeAboutLiving(i, 120)}); err != nil {
			t.Fatal(err)
		}
	}

	for _, opts := range []EvalOptions{{}, {Descend: true}} {
		s.Flush()
		got := evaluate(t, s, SearchInput{Caller: alice, Query: "where do I live"}, opts)
		if len(got.Ranked) == 0 || got.Ranked[0].Leaf.ID != home.Leaf.ID {
			t.Errorf("%+v: where do I live → %v", opts, got.Ranked)
		}
		code := evaluate(t, s, SearchInput{Caller: alice, Query: "what does the isLive function return"}, opts)
		if len(code.Ranked) == 0 || recall.KindOf(&code.Ranked[0].Leaf.Header) != recall.KindCode {
			t.Errorf("%+v: a code question → %v, want code first", opts, code.Ranked)
		}
	}
}

// TestDocumentBlocksLendNoWords: two memories saved one after another in a
// session lend each other words; two blocks of one document do not, and
// no block of a split class is a closing brace alone.
func TestDocumentBlocksLendNoWords(t *testing.T) {
	s := open(t, t.TempDir())
	filler := strings.Repeat("Plain words fill this paragraph so that it stands alone as a block. ", 40)
	a := save(t, s, alice, "The zebra crossing on Rua Alegre was repainted.", ScopeGlobal)
	b := save(t, s, alice, "It took two nights and closed the street.", ScopeGlobal)
	got := find(t, s, SearchInput{Caller: alice, Query: "zebra crossing", Limit: 5})
	if !slices.Contains(ids(got), a.Leaf.ID) || !slices.Contains(ids(got), b.Leaf.ID) {
		t.Fatalf("control: memories saved one after another lend words: %v, want %s and %s", ids(got), a.Leaf.ID, b.Leaf.ID)
	}

	doc := "The okapi enclosure opens in May.\n\n" + filler + "\n\n" + filler + "\n"
	r, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: "/notes/zoo.md", Content: doc})
	if err != nil || len(r.Leaves) < 2 {
		t.Fatalf("ingest: %d leaves, %v", len(r.Leaves), err)
	}
	got = find(t, s, SearchInput{Caller: alice, Query: "okapi enclosure", Limit: 5})
	for _, h := range got.Hits {
		if h.Leaf.ID != r.Leaves[0].ID {
			t.Errorf("okapi enclosure → %s (%.40q): a block that does not hold the words", h.Leaf.ID, h.Leaf.Text)
		}
	}
	if len(got.Hits) == 0 {
		t.Error("okapi enclosure: the block that holds the words is not found")
	}

	class := "package a;\n\npublic class Big {\n" + strings.Repeat("    /** A member. */\n    public int m() {\n        return 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12;\n    }\n\n", 60) + "}\n"
	r, err = s.Ingest(ctx, IngestInput{Caller: alice, Name: "/src/Big.java", Content: class})
	if err != nil || len(r.Leaves) < 3 {
		t.Fatalf("ingest the class: %d leaves, %v", len(r.Leaves), err)
	}
	for _, l := range r.Leaves {
		if strings.TrimSpace(l.Text) == "}" {
			t.Errorf("leaf %s holds only a closing brace", l.ID)
		}
	}
}

// TestIngestedTextStatesNoFacts: a store's facts come from what was
// stated: not from code, nor from a document's quotations, code and
// examples — while a document's own statement and a saved memory's are
// facts (the controls). After a restart, which extracts again from the
// leaves, the same holds.
func TestIngestedTextStatesNoFacts(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	save(t, s, alice, "I live in Porto.", ScopeGlobal)
	code := "package x\n\n// I live in Madrid, says the fixture.\nvar fixture = \"I work at Acme. Our stack is Go.\"\n\nfunc f() { _ = \"the staging database is PostgreSQL 16\" }\n"
	readme := "# Tool\n\nSaves such as \"I live in Madrid\" or `I work at Acme` become facts.\n\nFor example, I live in Lisbon.\n\n```sh\nihmt save \"our stack is Go\"\n```\n\nOur staging database is PostgreSQL 17.\n"
	for name, text := range map[string]string{"/src/x.go": code, "/src/README.md": readme} {
		if _, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: name, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(s *Store, when string) {
		t.Helper()
		rows, err := s.Facts(alice, "", "", "", ScopeAll)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.Key.Subject+"::"+r.Key.Attribute+"="+r.Entry.Value)
		}
		slices.Sort(got)
		want := []string{"staging database::is=PostgreSQL 17", "user::lives_in=Porto"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: facts %q, want %q", when, got, want)
		}
	}
	check(s, "after the ingest")
	s.Close()
	check(open(t, dir), "after a restart")
}

// BenchmarkSearchAmongCode: searches in a store of a thousand memories and
// a few thousand code blocks that share their words, where code yields to
// prose: the pool grows until the answer is the exhaustive one's.
func BenchmarkSearchAmongCode(b *testing.B) {
	s := open(b, b.TempDir())
	for i := range 1000 {
		save(b, s, alice, fmt.Sprintf("Note %d: the host h%d is live since spring; the team reviews it weekly.", i, i), ScopeGlobal)
	}
	for f := range 40 {
		if _, err := s.Ingest(ctx, IngestInput{Caller: alice, Name: fmt.Sprintf("/src/living/l%d.go", f), Content: codeAboutLiving(f, 100)}); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []string{"where do I live", "isLive function", "document answer", "host h42"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Search(SearchInput{Caller: alice, Query: q}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

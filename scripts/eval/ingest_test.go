package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestIngestRepo ingests this repository's README and Go sources, and a
// Java class, into a store of personal memories through the real programs,
// and checks that they do not pollute it: no fact from code or from the
// README's examples, every personal question answered after as before
// (the answers before are the positive control: each must pass), and the
// Java method asked for by its name and its comment's words ranked first.
func TestIngestRepo(t *testing.T) {
	bins := testenv.Built(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := ingestCheck(ctx, bins, "../..", 4, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Leaves["code"] < 100 || rep.Leaves["document"] == 0 {
		t.Fatalf("ingested %v: want the repository's sources and README", rep.Leaves)
	}
	for _, f := range rep.CodeFacts {
		t.Errorf("a fact from code: %s = %q (%s)", f.Key, f.Value, f.Source)
	}
	for _, f := range rep.DocumentFacts {
		t.Errorf("a fact from the README: %s = %q (%s)", f.Key, f.Value, f.Source)
	}
	if rep.MemoryFacts == 0 {
		t.Error("no fact from the personal memories: the extractor did not run on them")
	}
	for _, k := range rep.DoubleCurrent {
		t.Errorf("two current values for %s", k)
	}
	for _, q := range rep.Questions {
		if !q.Pass[0] {
			t.Errorf("%s %q before the ingest: %s (the control must pass)", q.QID, q.Query, q.Before)
		} else if !q.Pass[1] {
			t.Errorf("%s %q: before the ingest %s; after %s", q.QID, q.Query, q.Before, q.After)
		}
	}
	if rep.Java.Rank != 1 {
		t.Errorf("%q: the method ranks %d (0: not in the five), want first: %q", rep.Java.Query, rep.Java.Rank, rep.Java.Ranked)
	}
}

package recall

import (
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// TestPipelineOverAReader: the whole pipeline, Parse to Result, over a
// Reader that is not the store: a memory the reader says is superseded
// ranks below its successor and is shown not current, with the reader's
// notice. The control: ranked without the timeline (Plain), the older
// memory, whose words match the question better, comes first.
func TestPipelineOverAReader(t *testing.T) {
	m := newMemReader()
	old := m.add(t, leaf.Header{}, "The API listens on port 8080.")
	fresh := m.add(t, leaf.Header{}, "We moved the API to port 9090.")
	m.by[old] = fresh
	q, err := Parse(Input{Query: "which port does the API listen on?", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	all := Scope{Visible: func(index.Group) bool { return true }, Described: "everything"}
	e := New(nil)

	plain := e.Search(m, q, all, Options{Plain: true})
	if len(plain.Hits) == 0 || plain.Hits[0].Leaf.ID != m.docs[old].ID {
		t.Fatalf("control: without the timeline the hits are %v, want the older memory first", plain.Hits)
	}
	res := e.Search(m, q, all, Options{})
	if res.Verdict != verdict.Found || len(res.Hits) < 2 {
		t.Fatalf("verdict %v with %d hits (%s), want found with both memories", res.Verdict, len(res.Hits), res.Message)
	}
	if res.Hits[0].Leaf.ID != m.docs[fresh].ID || !res.Hits[0].Current {
		t.Errorf("first hit %q (current %v), want the successor, current", res.Hits[0].Leaf.Text, res.Hits[0].Current)
	}
	if h := res.Hits[1]; h.Leaf.ID != m.docs[old].ID || h.Current || len(h.Notices) == 0 {
		t.Errorf("second hit %q current %v notices %v, want the older memory, not current, with its notice", h.Leaf.Text, h.Current, h.Notices)
	}
	if res.Trace != nil {
		t.Error("a search that did not ask for its trace has one")
	}
}

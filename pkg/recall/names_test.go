package recall

import (
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// TestNameMemo: how a memory gives a name is read from its text once and
// then remembered; forgetting the memory (a purge) drops what was
// remembered, and a purged memory is never remembered.
func TestNameMemo(t *testing.T) {
	m := newMemReader()
	full := m.add(t, leaf.Header{}, "Marta Gil owns the alerting rules.")
	purged := m.add(t, leaf.Header{Status: leaf.StatusPurged}, "")
	s := searcherOver(m)
	want := nameUseOf(m.docs[full].Text, "marta")
	if want.ref != "marta gil" {
		t.Fatalf("control: nameUseOf gives %+v, want the referent marta gil", want)
	}
	if got := s.nameUse(full, "marta"); got != want {
		t.Errorf("nameUse %+v, the text says %+v", got, want)
	}
	if _, ok := s.names.Get(nameKey{m.docs[full].ID, "marta"}); !ok {
		t.Error("nameUse was not remembered")
	}
	s.Forget(m.docs[full].ID)
	if _, ok := s.names.Get(nameKey{m.docs[full].ID, "marta"}); ok {
		t.Error("a forgotten memory's name use is still remembered")
	}
	s.nameUse(purged, "marta")
	if _, ok := s.names.Get(nameKey{m.docs[purged].ID, "marta"}); ok {
		t.Error("a purged memory's name use was remembered")
	}
}

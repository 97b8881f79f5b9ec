package store

import (
	"fmt"
	"testing"
)

// TestTextCacheAnswersAsTheFiles: once the leaf files hold the texts,
// docShown and nameUse answer from the cache what the files say, for every
// memory, read once or many times; the cache stays within its bound; and a
// purge leaves no copy of the text in it (the control: the text was
// cached before).
func TestTextCacheAnswersAsTheFiles(t *testing.T) {
	s := open(t, t.TempDir())
	var ids []string
	for i := range 40 {
		r := save(t, s, alice, fmt.Sprintf("Marta Gil owns the billing worker %d and reviews its changes.", i), ScopeGlobal)
		ids = append(ids, r.Leaf.ID)
	}
	s.Flush()
	if n := textsInMemory(s); n != 0 {
		t.Fatalf("%d texts still in s.docs after Flush: the cache would not be exercised", n)
	}
	for round := range 2 {
		s.mu.RLock()
		for _, id := range ids {
			d := s.byID[id]
			want := fileText(t, s, id)
			if got := s.docShown(d); got.Text != want.Text || got.Checksum != want.Checksum {
				t.Errorf("round %d: %s: docShown %q, the file %q", round, id, got.Text, want.Text)
			}
		}
		s.mu.RUnlock()
	}
	if _, ok := s.texts.Get(ids[0]); !ok {
		t.Fatal("control: the text read back is not cached")
	}
	if _, err := s.Forget(ctx, alice, ids[0], "moved out"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(ctx, nobody, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.texts.Get(ids[0]); ok {
		t.Error("a purged memory's text is still cached")
	}
	s.mu.RLock()
	if got := s.docShown(s.byID[ids[0]]); got.Text != "" {
		t.Errorf("a purged memory shows text %q", got.Text)
	}
	s.mu.RUnlock()
}

package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenRemovesStaleTemps: a start removes what an interrupted log
// rewrite (a purge killed midway) or snapshot write left in the store
// directory, so the purged text does not stay on disk; files that are not
// such temps stay (the control).
func TestOpenRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	saveIn(t, s, SaveInput{Caller: alice, Content: "The vault code is kept by Marta.", Scope: ScopeGlobal})
	s.Close()
	stale := []string{".log.jsonl.3141592.tmp", ".facts.snapshot.tmp27182", ".index.snapshot.tmp1"}
	kept := []string{"notes.tmp", "log.jsonl"}
	for _, name := range append(stale, "notes.tmp") {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"text":"the purged words"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s = open(t, dir)
	defer s.Close()
	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s survived the start: %v", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("control: %s was removed: %v", name, err)
		}
	}
	if s.Stats(nobody).Memories != 1 {
		t.Fatalf("the store lost its memory: %+v", s.Stats(nobody))
	}
}

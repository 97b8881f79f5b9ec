package store

import (
	"bytes"
	"encoding/gob"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// logBuffer collects a store's log, to see whether a snapshot was used.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tamper rewrites a sealed snapshot's payload with edit, keeping the old
// seal (someone who only edits the file) or, with reseal, sealing it with
// the store's own key (the control: the check is what refuses it).
func tamper(t *testing.T, s *Store, name string, reseal bool, edit func([]byte) []byte) {
	t.Helper()
	path := filepath.Join(s.dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := s.unseal(name, data)
	if err != nil {
		t.Fatalf("the snapshot as written does not verify: %v", err)
	}
	out := append(data[:len(sealMagic)+32:len(sealMagic)+32], edit(bytes.Clone(payload))...)
	if reseal {
		if out, err = s.seal(name, edit(bytes.Clone(payload))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotsSealed: a snapshot edited by hand — a word of the index
// renamed with its crc32 recomputed, a fact's value changed — is not used:
// the store rebuilds from the leaves and answers as they say. The same
// edit sealed with the store's key is taken (the control: the seal is what
// refused it).
func TestSnapshotsSealed(t *testing.T) {
	for _, reseal := range []bool{false, true} {
		name := "edited"
		if reseal {
			name = "control: resealed with the store's key"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			logs := &logBuffer{}
			s, err := Open(dir, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			saveIn(t, s, SaveInput{Caller: alice, Content: "I live in Madrid.", Scope: ScopeGlobal})
			saveIn(t, s, SaveInput{Caller: alice, Content: "The zanzibar cluster runs the billing jobs.", Scope: ScopeGlobal})
			s.Close()
			s = newStore(dir, Options{})
			tamper(t, s, factsName, reseal, func(p []byte) []byte { return bytes.ReplaceAll(p, []byte("Madrid"), []byte("Berlin")) })
			tamper(t, s, indexName, reseal, func(p []byte) []byte {
				var snap indexSnapshot
				if err := gob.NewDecoder(bytes.NewReader(p)).Decode(&snap); err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(snap.Index, []byte("zanzibar")) {
					t.Fatal("the index snapshot does not hold the word to rename")
				}
				snap.Index = bytes.ReplaceAll(snap.Index, []byte("zanzibar"), []byte("qqqqqqqq"))
				snap.Sum = crc32.ChecksumIEEE(snap.Index)
				var b bytes.Buffer
				gob.NewEncoder(&b).Encode(snap)
				return b.Bytes()
			})
			logs = &logBuffer{}
			s, err = Open(dir, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			facts := factsJSON(t, s)
			refusedIndex := strings.Contains(logs.String(), "seal does not verify")
			if reseal {
				if !strings.Contains(facts, "Berlin") {
					t.Errorf("control: the resealed facts snapshot was not used: %s", facts)
				}
				if refusedIndex {
					t.Errorf("control: the resealed index snapshot was refused for its seal:\n%s", logs)
				}
				return
			}
			if strings.Contains(facts, "Berlin") || !strings.Contains(facts, "Madrid") {
				t.Errorf("the edited facts snapshot was used: %s", facts)
			}
			if !refusedIndex {
				t.Errorf("the edited index snapshot was not refused for its seal:\n%s", logs)
			}
			if r := find(t, s, SearchInput{Caller: alice, Query: "which cluster runs the zanzibar billing jobs?"}); len(r.Hits) == 0 || !strings.Contains(r.Hits[0].Leaf.Text, "zanzibar") {
				t.Errorf("the word really in the memory finds nothing after the rebuild: %+v", r.Hits)
			}
			info, err := os.Stat(filepath.Join(dir, sealKeyName))
			if err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("the key: %v %v, want a 0600 file", info, err)
			}
		})
	}
}

// FuzzSnapshotReaders: whatever bytes are in a snapshot file, reading it
// never panics, and bytes not sealed by this store are never taken.
func FuzzSnapshotReaders(f *testing.F) {
	dir := f.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		f.Fatal(err)
	}
	saveIn(f, s, SaveInput{Caller: alice, Content: "I live in Madrid.", Scope: ScopeGlobal})
	s.Close()
	s = newStore(dir, Options{})
	for _, name := range []string{factsName, indexName} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		payload, _ := s.unseal(name, data)
		f.Add(payload)
	}
	f.Add([]byte(sealMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ferr := s.decodeFacts(data)
		r := s.decodeIndexFile(data)
		decodeIndex(data) // the payload's decoder, on anything
		_, uerr := s.unseal(factsName, data)
		if uerr != nil && (ferr == nil) {
			t.Fatal("facts taken without a seal")
		}
		if _, uerr := s.unseal(indexName, data); uerr != nil && r.err == nil {
			t.Fatal("an index taken without a seal")
		}
	})
}

package store

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/version"
)

// factsName is the snapshot of extracted facts. Extraction is most of what
// opening a large store costs beyond reading it, and its result depends only
// on a leaf's text (ids are content-derived) and on the patterns and code
// that ran, so it is kept and reused while both are the same. It is derived
// data: deleted, damaged or stale, it is simply rebuilt.
const factsName = "facts.snapshot"

type factsSnapshot struct {
	Key   string // patterns digest and program version
	Facts map[string][]facts.Fact
}

// snapshotKey names what produced the facts: the patterns and the
// extractor's code version (the digest) and the release. It leaves out the
// build itself on purpose: any two builds of a release then share a
// snapshot, which is what makes restarts fast; a change to extraction must
// bump facts.CodeVersion.
func (s *Store) snapshotKey() string { return s.extract.Digest() + "/" + version.Version }

// loadFacts returns the snapshot's facts by leaf id, or nil if it is
// missing, unreadable or from other patterns or another program.
func (s *Store) loadFacts() map[string][]facts.Fact {
	data, err := os.ReadFile(filepath.Join(s.dir, factsName))
	if err != nil {
		return nil
	}
	var snap factsSnapshot
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&snap); err != nil || snap.Key != s.snapshotKey() {
		s.log.Info("facts snapshot not usable; extracting facts again", "err", err)
		return nil
	}
	return snap.Facts
}

// Facts wait in memory for the snapshot until too many would be lost to a
// crash (each is extracted again at the next start): an open that
// extracted more than openSaveFacts writes them at once, and a running
// store writes them in the background (saveFactsIfMany) past
// maxUnsavedFacts. Each write reads and rewrites the whole snapshot, which
// grows with the store, so a running store does it seldom: a lower
// threshold made the writes during a bulk load show in save latency.
const (
	openSaveFacts   = 1000
	maxUnsavedFacts = 20000
)

// saveFactsIfMany starts saveFacts in the background once more than
// maxUnsavedFacts memories' facts wait for it. The writer calls it between
// commits, when it holds no lock.
func (s *Store) saveFactsIfMany() {
	s.mu.RLock()
	n := len(s.unsaved)
	s.mu.RUnlock()
	if n > maxUnsavedFacts && s.savingFacts.CompareAndSwap(false, true) {
		s.factsSaves.Go(func() {
			defer s.savingFacts.Store(false)
			s.saveFacts()
		})
	}
}

// saveFacts brings the snapshot up to date: what it holds plus the facts
// extracted since it was written, for the memories live now. It reads the
// snapshot back instead of keeping its facts in memory (a copy of every
// memory's facts, held for the daemon's life), at the cost of a read and a
// write of the file. A failure costs only time at the next start.
func (s *Store) saveFacts() {
	s.factsMu.Lock()
	defer s.factsMu.Unlock()
	s.mu.RLock()
	add := maps.Clone(s.unsaved)
	s.mu.RUnlock()
	if len(add) == 0 {
		return // the snapshot has every memory's facts (and perhaps some forgotten ones')
	}
	all := s.loadFacts()
	if all == nil {
		all = make(map[string][]facts.Fact, len(add))
	}
	maps.Copy(all, add)
	s.mu.RLock()
	for id := range all {
		if d, ok := s.byID[id]; !ok || !isLive(s.docs[d]) {
			delete(all, id)
		}
	}
	s.mu.RUnlock()
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(factsSnapshot{Key: s.snapshotKey(), Facts: all}); err != nil {
		s.log.Warn("could not encode the facts snapshot", "err", err)
		return
	}
	if err := atomicfile.Write(filepath.Join(s.dir, factsName), b.Bytes(), 0o600); err != nil {
		s.log.Warn("could not write the facts snapshot; the next start extracts facts again", "err", fmt.Errorf("%w", err))
		return
	}
	// Facts depend only on a memory's text, which its id is derived from:
	// an id noted again meanwhile has the same facts.
	s.mu.Lock()
	for id := range add {
		delete(s.unsaved, id)
	}
	s.mu.Unlock()
}

// DropSnapshots removes what a closed store in dir derived from its leaf
// files — the facts snapshot and the summary tree (catalog, branches,
// root) — so that the next Open derives everything from the leaves again.
func DropSnapshots(dir string) error {
	if err := os.Remove(filepath.Join(dir, factsName)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return dropTree(dir)
}

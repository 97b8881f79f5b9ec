package store

import (
	"bytes"
	"encoding/gob"
	"fmt"
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

// saveFacts writes the facts of every live leaf. A failure costs only time
// at the next start.
func (s *Store) saveFacts() {
	s.mu.RLock()
	snap := factsSnapshot{Key: s.snapshotKey(), Facts: make(map[string][]facts.Fact, len(s.factsOf))}
	for id, fs := range s.factsOf {
		snap.Facts[id] = fs
	}
	s.mu.RUnlock()
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(snap); err != nil {
		s.log.Warn("could not encode the facts snapshot", "err", err)
		return
	}
	if err := atomicfile.Write(filepath.Join(s.dir, factsName), b.Bytes(), 0o600); err != nil {
		s.log.Warn("could not write the facts snapshot; the next start extracts facts again", "err", fmt.Errorf("%w", err))
	}
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

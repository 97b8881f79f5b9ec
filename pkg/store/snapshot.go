package store

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
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
// missing, unreadable or from other patterns or another program. Open
// calls it while it reads the leaves, saveFacts to add to it.
func (s *Store) loadFacts() map[string][]facts.Fact {
	data, err := os.ReadFile(filepath.Join(s.dir, factsName))
	if err != nil {
		return nil
	}
	f, err := s.decodeFacts(data)
	if err != nil {
		s.log.Info("facts snapshot not usable; extracting facts again", "err", err)
		return nil
	}
	return f
}

// decodeFacts checks a facts snapshot's seal (see seal) and decodes it.
func (s *Store) decodeFacts(data []byte) (map[string][]facts.Fact, error) {
	payload, err := s.unseal(factsName, data)
	if err != nil {
		return nil, err
	}
	var snap factsSnapshot
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&snap); err != nil {
		return nil, err
	}
	if snap.Key != s.snapshotKey() {
		return nil, fmt.Errorf("extracted by %q, this is %q", snap.Key, s.snapshotKey())
	}
	return snap.Facts, nil
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
	s.writeFacts(add)
}

// purgeSnapshots takes a purged memory's words out of the snapshots: the
// index snapshot holds its terms, and is removed (the next start builds the
// index and writes a new one); the facts snapshot holds values from its
// text, and is written again without it. The writer calls it, once the
// purge is published.
func (s *Store) purgeSnapshots() {
	s.factsSaves.Wait() // a snapshot written in the background was encoded before the purge
	if err := os.Remove(filepath.Join(s.dir, indexName)); err != nil && !os.IsNotExist(err) {
		s.log.Warn("could not remove the index snapshot after a purge; remove it by hand (it is rebuilt)", "err", err)
	}
	s.mu.Lock()
	s.indexAt = -1
	s.mu.Unlock()
	s.factsMu.Lock()
	defer s.factsMu.Unlock()
	s.mu.RLock()
	add := maps.Clone(s.unsaved)
	s.mu.RUnlock()
	s.writeFacts(add)
}

// writeFacts writes the facts snapshot: what it holds plus add, for the
// memories live now. Callers hold s.factsMu.
func (s *Store) writeFacts(add map[string][]facts.Fact) {
	all := s.loadFacts()
	if all == nil {
		all = make(map[string][]facts.Fact, len(add))
	}
	maps.Copy(all, add)
	s.mu.RLock()
	for id := range all {
		if d, ok := s.byID[id]; !ok || !s.docs[d].Live() {
			delete(all, id)
		}
	}
	s.mu.RUnlock()
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(factsSnapshot{Key: s.snapshotKey(), Facts: all}); err != nil {
		s.log.Warn("could not encode the facts snapshot", "err", err)
		return
	}
	sealed, err := s.seal(factsName, b.Bytes())
	if err == nil {
		err = atomicfile.Write(filepath.Join(s.dir, factsName), sealed, 0o600)
	}
	if err != nil {
		s.log.Warn("could not write the facts snapshot; the next start extracts facts again", "err", err)
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
// files — the facts and index snapshots and the summary tree (catalog, branches,
// root) — so that the next Open derives everything from the leaves again.
func DropSnapshots(dir string) error {
	for _, name := range []string{factsName, indexName} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return dropTree(dir)
}

// indexName is the snapshot of the inverted index and what indexLeaf
// builds beside it (groups, neighbour links, definers). Tokenizing every
// text is the largest part of a start after reading the files; the index
// depends only on the leaves, in record order, and on the code that built
// it, so it is kept and reused while both are the same. Like the facts
// snapshot it is derived data: missing, damaged, stale or from other code,
// it is rebuilt from the files, as when there was none.
const indexName = "index.snapshot"

// indexCodeVersion is the store's half of what built an index snapshot
// (index.SnapshotVersion is the index's): bump it when indexLeaf,
// linkNeighbours or selfWords would build something else from the same
// leaves.
const indexCodeVersion = 2

// indexSampled is how many documents an open re-tokenizes to check a
// snapshot against the tokenizer it runs.
const indexSampled = 32

type indexSnapshot struct {
	Key      string // code versions and release
	Entries  int64  // log entries when it was written
	LogSize  int64  // log bytes then
	Leaves   int    // documents
	Digest   []byte // leavesDigest of the documents
	Index    []byte // index.AppendSnapshot
	Sum      uint32 // crc32 of Index
	Projects []string
	Recent   []savedRecent
	Definers []savedDefiner
}

type savedRecent struct {
	Session, Day string
	Group        index.Group
	Docs         []index.Doc
	Asks         []bool
}

type savedDefiner struct {
	Group index.Group
	Doc   index.Doc
	Words []string
}

func indexKey() string {
	return fmt.Sprintf("store %d index %d release %s tokens %x", indexCodeVersion, index.SnapshotVersion, version.Version, tokensProbe())
}

// tokensProbe digests the terms the tokenizer makes of a text that
// exercises it (stems, case, accents, numbers, code, two languages): with
// the sample open re-tokenizes (sampleIndexed), it catches a change to
// tokenizing that nobody bumped index.SnapshotVersion for, even in a
// development build whose release string never changes.
var tokensProbe = sync.OnceValue(func() []byte {
	const probe = "We're running PostgreSQL 16.2 on port 5432; the Billing-API's caches (Redis) were migrated " +
		"in May 2024 by Zoë — ¿dónde vive Iñaki? Él prefirió las canciones de mañana. " +
		"See pkg/store/open.go:42, func readLeaf(path string), https://example.com/a?b=c, v1.2.3-rc1, naïve café, x86_64 ÆØÅ."
	h := sha256.New()
	tokenize.Each(probe, func(t string) { h.Write([]byte(t)); h.Write([]byte{0}) }) // as Index.Add reads a text
	return h.Sum(nil)[:8]
})

// leavesDigest digests, in document order, what indexLeaf reads of each
// leaf besides its text (which its id is derived from): a snapshot is
// used only for the leaves it was built from. The id is derived from the
// scope and project too when the memory is admitted, but a start does not
// derive it again, so those are digested as well (a header edited by hand
// must not keep its old group).
func leavesDigest(docs []*leaf.Leaf) []byte {
	h := sha256.New()
	var b []byte
	for _, l := range docs {
		b = append(b[:0], l.ID...)
		b = append(b, 0)
		b = append(b, l.Scope...)
		b = append(b, 0)
		b = append(b, l.Project...)
		b = append(b, 0)
		b = append(b, l.Session...)
		b = append(b, 0)
		b = binary.LittleEndian.AppendUint64(b, uint64(l.ValidFrom.UnixNano()))
		b = append(b, l.Status...)
		b = append(b, 0)
		b = append(b, l.Trust...)
		b = append(b, 0)
		if l.Source != nil {
			b = fmt.Appendf(b, "%s\x00%s\x00%s\x00%d", l.Source.Type, l.Source.Name, l.Source.Digest, l.Source.Part)
		}
		b = append(b, 0xff)
		h.Write(b)
	}
	return h.Sum(nil)
}

// logState is the log's entry count and size on disk, which a snapshot
// records and is checked against.
func (s *Store) logState() (entries, size int64) {
	fi, err := os.Stat(filepath.Join(s.dir, logName))
	if err != nil {
		return s.entries, -1
	}
	return s.entries, fi.Size()
}

// readIndex is the index snapshot read from its file and decoded, not yet
// checked against the leaves: Open reads it while it reads the leaves.
type readIndex struct {
	snap *indexSnapshot
	ix   *index.Index
	err  error // why there is none
}

// readIndexFile reads and decodes the index snapshot.
func (s *Store) readIndexFile() readIndex {
	data, err := os.ReadFile(filepath.Join(s.dir, indexName))
	if err != nil {
		return readIndex{err: err}
	}
	return s.decodeIndexFile(data)
}

// decodeIndexFile checks an index snapshot's seal (see seal) and decodes
// it.
func (s *Store) decodeIndexFile(data []byte) readIndex {
	payload, err := s.unseal(indexName, data)
	if err != nil {
		return readIndex{err: err}
	}
	return decodeIndex(payload)
}

// decodeIndex decodes an index snapshot and checks it was built by this
// code and is whole.
func decodeIndex(data []byte) readIndex {
	var snap indexSnapshot
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&snap); err != nil {
		return readIndex{err: fmt.Errorf("decode: %w", err)}
	}
	if snap.Key != indexKey() {
		return readIndex{err: fmt.Errorf("built by %q, this is %q", snap.Key, indexKey())}
	}
	if crc32.ChecksumIEEE(snap.Index) != snap.Sum {
		return readIndex{err: errors.New("index damaged (checksum)")}
	}
	ix, rest, err := index.ReadSnapshot(snap.Index)
	if err == nil && len(rest) != 0 {
		err = errors.New("bytes after the index")
	}
	snap.Index = nil // ix holds what it needs of it
	return readIndex{snap: &snap, ix: ix, err: err}
}

// loadIndex replaces the empty index and its companions with the
// snapshot's (read by readIndexFile) when it was built from exactly these
// leaves (all, in record order) with this log, reporting whether it did.
// The reason a snapshot is not used is logged: it costs a slower start,
// nothing else.
func (s *Store) loadIndex(r readIndex, all []*leaf.Leaf) bool {
	if os.IsNotExist(r.err) {
		s.log.Info("no index snapshot; building the index from the leaves")
		return false
	}
	err := r.err
	if err == nil {
		err = s.useIndex(r, all)
	}
	if err != nil {
		s.log.Info("index snapshot not usable; building the index from the leaves", "why", err)
		return false
	}
	return true
}

// useIndex checks a decoded snapshot against the log and the leaves and,
// when it fits, installs it.
func (s *Store) useIndex(r readIndex, all []*leaf.Leaf) error {
	snap := r.snap
	entries, size := s.logState()
	switch {
	case snap.Entries != entries || snap.LogSize != size:
		return fmt.Errorf("written at log entry %d (%d bytes), the log has %d (%d bytes)", snap.Entries, snap.LogSize, entries, size)
	case snap.Leaves != len(all) || r.ix.Docs() != len(all) || !bytes.Equal(snap.Digest, leavesDigest(all)):
		return fmt.Errorf("built from other leaves (%d then, %d now)", snap.Leaves, len(all))
	}
	if err := sampleIndexed(r.ix, all); err != nil {
		return err
	}
	return s.installIndex(r.ix, snap, all)
}

// sampleIndexed re-tokenizes a few leaves spread over the store and checks
// the snapshot indexed them so: a change to tokenizing that nobody bumped a
// version for shows here.
func sampleIndexed(ix *index.Index, all []*leaf.Leaf) error {
	if len(all) == 0 {
		return nil
	}
	step := max(1, len(all)/indexSampled)
	for i := 0; i < len(all); i += step {
		if !ix.Indexed(index.Doc(i), all[i].Text) || ix.Live(index.Doc(i)) != all[i].Live() {
			return fmt.Errorf("leaf %s is not indexed as this program indexes it", all[i].ID)
		}
	}
	return nil
}

// installIndex makes the snapshot's index, groups, conversations and
// definers the store's, checking that each names documents and groups
// that exist.
func (s *Store) installIndex(ix *index.Index, snap *indexSnapshot, all []*leaf.Leaf) error {
	n := index.Doc(len(all))
	if len(snap.Projects) == 0 || snap.Projects[0] != "" {
		return errors.New("groups damaged")
	}
	groups := make(map[string]index.Group, len(snap.Projects))
	for g, p := range snap.Projects {
		if _, dup := groups[p]; dup {
			return fmt.Errorf("project %q twice", p)
		}
		groups[p] = index.Group(g)
	}
	for d, l := range all {
		if _, ok := groups[l.Project]; !ok {
			return fmt.Errorf("no group for project %q", l.Project)
		}
		if ix.GroupOf(index.Doc(d)) != docGroup(groups, l) {
			return fmt.Errorf("leaf %s indexed in another part of the store", l.ID)
		}
	}
	last := make(map[conversation]recent, len(snap.Recent))
	for _, r := range snap.Recent {
		if len(r.Docs) == 0 || len(r.Docs) > neighbours || len(r.Asks) != len(r.Docs) || int(r.Group) >= len(snap.Projects) ||
			slices.ContainsFunc(r.Docs, func(d index.Doc) bool { return d >= n }) {
			return errors.New("conversations damaged")
		}
		rc := recent{n: len(r.Docs)}
		copy(rc.docs[:], r.Docs)
		copy(rc.asks[:], r.Asks)
		last[conversation{session: r.Session, day: r.Day, group: r.Group}] = rc
	}
	defs := map[index.Group][]recall.Definer{}
	for _, df := range snap.Definers {
		if df.Doc >= n || len(df.Words) == 0 || df.Group != docGroup(groups, all[df.Doc]) {
			return errors.New("definers damaged")
		}
		defs[df.Group] = append(defs[df.Group], recall.Definer{Doc: df.Doc, Words: df.Words})
	}
	s.ix, s.groups, s.projects, s.lastSaved, s.definers = ix, groups, snap.Projects, last, defs
	return nil
}

// docGroup is the index group indexLeaf gives l, given the projects'.
func docGroup(groups map[string]index.Group, l *leaf.Leaf) index.Group {
	if l.Scope == leaf.ScopeGlobal {
		return 0
	}
	return groups[l.Project]
}

// snapshotIndex encodes the index and its companions for all, the store's
// documents, which it must have been built from in record order (callers
// check). Callers hold s.mu (shared) or run before the store is shared.
func (s *Store) snapshotIndex(all []*leaf.Leaf) indexSnapshot {
	entries, size := s.logState()
	snap := indexSnapshot{Key: indexKey(), Entries: entries, LogSize: size, Leaves: len(all), Digest: leavesDigest(all),
		Index: s.ix.AppendSnapshot(nil), Projects: slices.Clone(s.projects)}
	snap.Sum = crc32.ChecksumIEEE(snap.Index)
	for k, r := range s.lastSaved {
		snap.Recent = append(snap.Recent, savedRecent{Session: k.session, Day: k.day, Group: k.group,
			Docs: slices.Clone(r.docs[:r.n]), Asks: slices.Clone(r.asks[:r.n])})
	}
	for g, ds := range s.definers {
		for _, df := range ds {
			snap.Definers = append(snap.Definers, savedDefiner{Group: g, Doc: df.Doc, Words: df.Words})
		}
	}
	// Definers are looked through in the order they were noted: by document.
	slices.SortStableFunc(snap.Definers, func(a, b savedDefiner) int { return int(a.Doc) - int(b.Doc) })
	return snap
}

// writeIndex writes snap as the index snapshot, reporting whether it did. A
// failure costs only time at the next start.
func (s *Store) writeIndex(snap indexSnapshot) bool {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(snap); err != nil {
		s.log.Warn("could not encode the index snapshot", "err", err)
		return false
	}
	sealed, err := s.seal(indexName, b.Bytes())
	if err == nil {
		err = atomicfile.Write(filepath.Join(s.dir, indexName), sealed, 0o600)
	}
	if err != nil {
		s.log.Warn("could not write the index snapshot; the next start builds the index again", "err", err)
		return false
	}
	return true
}

// rebuildable reports whether the store's index is the one a start would
// build from its documents now, so that a snapshot of it may stand for
// that: its documents are in record order, and none has lost its text to
// a purge since it was indexed (a start indexes a purged leaf as empty).
// Callers hold s.mu.
func (s *Store) rebuildable() bool {
	for d, l := range s.docs {
		if d > 0 && compareRecord(s.docs[d-1], l) >= 0 {
			return false
		}
		if l.Status == leaf.StatusPurged && s.ix.Length(index.Doc(d)) > 0 {
			return false
		}
	}
	return true
}

// compareRecord orders leaves in record order, as byRecord does: by record
// time, then, within one batch (which shares it), by what the leaves say
// rather than by their ids. An id carries the project's key, so ordering by
// it alone numbered one journal's entries differently when it was ingested
// from another directory, and a score tie between two of them was broken
// the other way: the same memories gave another answer. A document's
// blocks keep their order in the document; other memories go by the date
// they became true; the id decides only between memories equal in both.
func compareRecord(a, b *leaf.Leaf) int {
	if c := a.RecordedAt.Compare(b.RecordedAt); c != 0 {
		return c
	}
	return compareBatched(a, b)
}

// compareBatched orders leaves recorded at one time (see compareRecord).
func compareBatched(a, b *leaf.Leaf) int {
	if a.Source != nil && b.Source != nil {
		if c := cmp.Or(strings.Compare(a.Source.Digest, b.Source.Digest), cmp.Compare(a.Source.Part, b.Source.Part)); c != 0 {
			return c
		}
	}
	if c := a.ValidFrom.Compare(b.ValidFrom); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// saveIndexAtClose writes the index snapshot for the next start, unless
// the one on disk already fits or this index is not what a start would
// build (rebuildable). The store is closed: nothing changes it.
func (s *Store) saveIndexAtClose() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indexAt == s.entries && s.indexAt >= 0 {
		return
	}
	if !s.rebuildable() {
		s.log.Info("index snapshot not written: the index differs from a rebuild (an import or purge); the next start rebuilds it")
		return
	}
	snap := s.snapshotIndex(s.docs)
	if s.writeIndex(snap) {
		s.indexAt = snap.Entries
	}
}

// A snapshot is sealed with a key of this store's own. A checksum anyone
// can compute says only that a file is whole: the index snapshot with one
// word renamed and its crc32 recomputed was accepted (the word in the
// memory then found nothing), and the facts snapshot edited from Madrid to
// Berlin had the briefing tell agents "you live in Berlin" while the leaf
// said Madrid. A derived file must never disagree with the leaves, so each
// snapshot carries an HMAC-SHA256 of its name and bytes under a random key
// kept in the store directory (sealKeyName, 0600), which a process that
// only edits the snapshot cannot recompute; a seal that does not verify is
// a snapshot not used, rebuilt from the leaves as when there was none. What
// each was built from — the leaves' digest and the log's state for the
// index, the patterns and program for the facts — is inside the sealed
// bytes, checked as before.

// sealKeyName is the store's key for sealing its snapshots.
const sealKeyName = "snapshot.key"

// sealMagic opens a sealed snapshot, before its 32-byte HMAC.
const sealMagic = "IHMT-SNAPSHOT-1\n"

// sealKey returns the store's sealing key, made on first use. A key that
// is not there or not whole is made again: the snapshots sealed with the
// old one then fail their check and are rebuilt.
func (s *Store) sealKey() ([]byte, error) {
	path := filepath.Join(s.dir, sealKeyName)
	if key, err := os.ReadFile(path); err == nil && len(key) == sha256.Size {
		return key, nil
	}
	key := make([]byte, sha256.Size)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("snapshot key: %w", err)
	}
	if err := atomicfile.Write(path, key, 0o600); err != nil {
		return nil, fmt.Errorf("snapshot key: %w", err)
	}
	return key, nil
}

// sealSum is the HMAC of a snapshot's name and payload under key.
func sealSum(key []byte, name string, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}

// seal returns the file for snapshot name holding payload.
func (s *Store) seal(name string, payload []byte) ([]byte, error) {
	key, err := s.sealKey()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(sealMagic)+sha256.Size+len(payload))
	out = append(out, sealMagic...)
	out = append(out, sealSum(key, name, payload)...)
	return append(out, payload...), nil
}

// unseal returns the payload of snapshot name's file, or why it is not to
// be trusted.
func (s *Store) unseal(name string, data []byte) ([]byte, error) {
	if len(data) < len(sealMagic)+sha256.Size || string(data[:len(sealMagic)]) != sealMagic {
		return nil, errors.New("not a sealed snapshot")
	}
	sum, payload := data[len(sealMagic):len(sealMagic)+sha256.Size], data[len(sealMagic)+sha256.Size:]
	path := filepath.Join(s.dir, sealKeyName)
	key, err := os.ReadFile(path)
	if err != nil || len(key) != sha256.Size {
		return nil, errors.New("no snapshot key to check it with")
	}
	if !hmac.Equal(sum, sealSum(key, name, payload)) {
		return nil, errors.New("its seal does not verify: edited, or sealed by another store")
	}
	return payload, nil
}

package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// record is the export format: a leaf's complete header and its text, one
// JSON object a line. It is the leaf file in another shape, so an import
// restores exactly what was exported: ids, both clocks, links, trust and
// tombstones.
type record struct {
	leaf.Header
	Text string `json:"text"`
}

// exportPage bounds one page of an export, so that any store fits through
// the wire's message limit.
const exportPage = 8 << 20

// Export returns the memories the caller may see under scope — forgotten,
// pending and purged ones included, since they are part of the record — in
// record order, one page from offset on; next is 0 after the last page.
func (s *Store) Export(c Caller, scope SearchScope, offset int) (records []string, next int, err error) {
	if err := validateCaller(c); err != nil {
		return nil, 0, err
	}
	if offset < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d is negative", ErrInvalid, offset)
	}
	if err := s.recordReadAll(c, scope, fmt.Sprintf("export from %d", offset)); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	vis, _, err := s.visible(c, scope)
	s.mu.RUnlock()
	if err != nil {
		return nil, 0, err
	}
	return s.exportFrom(vis, offset)
}

// exportFrom is Export's page of the memories vis lets through.
func (s *Store) exportFrom(vis func(index.Group) bool, offset int) (records []string, next int, err error) {
	s.mu.RLock()
	var ls []*leaf.Leaf
	for _, l := range s.docs {
		if vis(s.groupOf(l)) {
			ls = append(ls, l)
		}
	}
	s.mu.RUnlock()
	slices.SortStableFunc(ls, func(a, b *leaf.Leaf) int {
		if c := a.RecordedAt.Compare(b.RecordedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	size := 0
	for i := offset; i < len(ls); i++ {
		l, err := s.withText(ls[i])
		if err != nil {
			return nil, 0, fmt.Errorf("export: %w", err)
		}
		b, err := json.Marshal(record{Header: l.Header, Text: l.Text})
		if err != nil {
			return nil, 0, fmt.Errorf("export %s: %w", ls[i].ID, err)
		}
		if size+len(b) > exportPage && len(records) > 0 {
			return records, i, nil
		}
		size += len(b)
		records = append(records, string(b))
	}
	return records, 0, nil
}

// ImportResult says what an import did.
type ImportResult struct {
	Imported, Unchanged int
	// Skipped counts records of memories forgotten or purged after the
	// record was exported; SkippedNote says which, for a person ("forgotten
	// on 2026-03-01 (2)"), "" when none was.
	Skipped     int
	SkippedNote string
}

// maxImportBatch bounds one import call; the CLI sends files in batches.
const maxImportBatch = 5000

// Import stores exported records exactly. A record already stored with the
// same header and text changes nothing, so importing twice is harmless; a
// record of a stored memory with another header (a later export of it)
// replaces the header — unless the store forgot or purged the memory after
// the record was taken: a tombstone and a purge outrank an older record, so
// such a record is skipped and counted, and a purged text never comes back.
// Every record is checked before anything is written:
// one bad record fails the whole batch and names its line.
func (s *Store) Import(ctx context.Context, c Caller, records []string) (ImportResult, error) {
	if err := validateCaller(c); err != nil {
		return ImportResult{}, err
	}
	if err := requirePerson(c, "import"); err != nil {
		return ImportResult{}, err
	}
	if len(records) > maxImportBatch {
		return ImportResult{}, fmt.Errorf("%w: %d records in one import, at most %d: send them in batches", ErrInvalid, len(records), maxImportBatch)
	}
	admitted := make([]admission, 0, len(records))
	for i, r := range records {
		a, err := s.admitRecord(r)
		if err != nil {
			return ImportResult{}, fmt.Errorf("record %d: %w", i+1, err)
		}
		admitted = append(admitted, a)
	}
	res, err := doOp(ctx, s, func(now time.Time) (*changeOf[ImportResult], error) {
		return s.storeRecords(c, admitted, now), nil
	})
	if err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// admitRecord reads one exported record and admits it.
func (s *Store) admitRecord(r string) (admission, error) {
	var rec record
	dec := json.NewDecoder(strings.NewReader(r))
	if err := dec.Decode(&rec); err != nil {
		return admission{}, fmt.Errorf("%w: not a memory record: %v", ErrInvalid, err)
	}
	if err := screenRecord(rec.Header); err != nil {
		return admission{}, err
	}
	return s.admit(draft{header: rec.Header, text: rec.Text})
}

// screenRecord refuses a record whose stored fields beside the text (tags,
// domain, a tombstone's reason, a review note) hold a secret: an import is
// held to what a save is.
func screenRecord(h leaf.Header) error {
	found := append(screen.Field("tags", strings.Join(h.Tags, " ")), screen.Field("domain", h.Domain)...)
	found = append(found, screen.Field("review note", h.ReviewNote)...)
	if h.Tombstone != nil {
		found = append(found, screen.Field("reason", h.Tombstone.Reason)...)
	}
	if len(found) > 0 {
		return fmt.Errorf("%w: %s holds %s: secrets never go into the memory", ErrInvalid, h.ID, found[0])
	}
	return nil
}

// storeRecords is an import's change, which the writer builds: every
// record not already stored exactly as it is, the first of each id.
func (s *Store) storeRecords(c Caller, admitted []admission, now time.Time) *changeOf[ImportResult] {
	var res ImportResult
	ch := &changeOf[ImportResult]{facts: map[string][]facts.Fact{}}
	seen := map[string]bool{}
	skipped := map[string]int{}
	var order []string
	for _, a := range admitted {
		l := a.leaf
		if seen[l.ID] {
			continue
		}
		seen[l.ID] = true
		if why, ok := s.outranked(l); ok {
			if skipped[why] == 0 {
				order = append(order, why)
			}
			skipped[why]++
			res.Skipped++
			continue
		}
		if s.storedAs(l) {
			res.Unchanged++
			continue
		}
		e := s.newEntry(opImport, c, now)
		e.ID, e.Leaf, e.Text = l.ID, &l.Header, l.Text
		ch.entries = append(ch.entries, e)
		ch.leaves = append(ch.leaves, l)
		ch.facts[l.ID] = a.facts
		res.Imported++
	}
	for i, why := range order {
		order[i] = fmt.Sprintf("%s (%d)", why, skipped[why])
	}
	res.SkippedNote = strings.Join(order, ", ")
	ch.done = func(*journal.Journal) (ImportResult, error) { return res, nil }
	return ch
}

// outranked reports whether the store forgot or purged l's memory after l
// was recorded, and if so says which and when ("purged on 2026-03-02"). A
// record without the stored tombstone, with an older one, or not purged
// when the memory was, is older news than the store's.
func (s *Store) outranked(l *leaf.Leaf) (string, bool) {
	d, ok := s.byID[l.ID]
	if !ok {
		return "", false
	}
	stored := s.docs[d]
	t := stored.Tombstone
	if t == nil {
		return "", false
	}
	purged := stored.Status == leaf.StatusPurged
	switch {
	case l.Tombstone == nil:
	case purged && l.Status != leaf.StatusPurged:
	case l.Tombstone.At.Before(t.At):
	default:
		return "", false
	}
	if purged && t.PurgedAt != nil {
		return "purged on " + t.PurgedAt.UTC().Format(time.DateOnly), true
	}
	return "forgotten on " + t.At.UTC().Format(time.DateOnly), true
}

// storedAs reports whether l is stored already, header and all.
func (s *Store) storedAs(l *leaf.Leaf) bool {
	d, ok := s.byID[l.ID]
	if !ok {
		return false
	}
	// The id is derived from the text (checkRecord checks it), so a stored
	// memory with the same id has the same text and checksum, unless it was
	// purged — which its header says.
	stored := *s.docs[d]
	if onDisk(&stored) {
		stored.Checksum = l.Checksum
	}
	return headerEqual(stored.Header, l.Header)
}

// SyncRecords is one page of every memory in the store, as Export writes
// them, for the daemon's sync (pkg/gitsync) to publish. It is the daemon's
// own read, not a person's look across projects, so no read is logged.
func (s *Store) SyncRecords(offset int) (records []string, next int, err error) {
	if offset < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d is negative", ErrInvalid, offset)
	}
	return s.exportFrom(func(index.Group) bool { return true }, offset)
}

// MergeResult says what a sync's merge did.
type MergeResult struct {
	// Admitted counts the memories the merge stored or changed; Unchanged
	// the records the store already held as they are (or as their join with
	// what it holds); Purged the memories whose text it removed.
	Admitted, Unchanged, Purged int
	// Held counts the memories new to this store that wait for review: held
	// by the instruction screen as they were admitted, or still waiting on
	// the device they came from.
	Held int
	// Refused names each record that was not admitted, by its position in
	// the call, with why.
	Refused []Refusal
}

// Refusal is a record a merge did not admit.
type Refusal struct {
	Index  int
	Reason string
}

// Merge admits records another machine published (pkg/gitsync) through
// the same admission as an import — the record must be whole and
// consistent, and secrets are refused — and stores for each memory the
// join of what it holds with what arrived (leaf.Join): the rule that makes
// every machine end with the same memory whatever order versions came in.
// A record that fails admission is refused and named; the others are
// stored. What arrives asserted and reads like instructions aimed at
// agents is held for review, as an agent's save would be. A purge that
// arrives removes the text here as `ihmt purge` does: from the leaf file,
// the log, the snapshots and the summary tree.
func (s *Store) Merge(ctx context.Context, c Caller, records []string) (MergeResult, error) {
	if err := validateCaller(c); err != nil {
		return MergeResult{}, err
	}
	if err := requirePerson(c, "sync"); err != nil {
		return MergeResult{}, err
	}
	if len(records) > maxImportBatch {
		return MergeResult{}, fmt.Errorf("%w: %d records in one merge, at most %d: send them in batches", ErrInvalid, len(records), maxImportBatch)
	}
	var res MergeResult
	admitted := make([]admission, 0, len(records))
	for i, r := range records {
		a, err := s.admitRecord(r)
		if err != nil {
			res.Refused = append(res.Refused, Refusal{Index: i, Reason: err.Error()})
			continue
		}
		admitted = append(admitted, a)
	}
	var purged []string
	out, err := doOp(ctx, s, func(now time.Time) (*changeOf[MergeResult], error) {
		ch, p := s.joinRecords(c, admitted, now, res)
		purged = p
		return ch, nil
	})
	if err != nil {
		return MergeResult{}, fmt.Errorf("merge: %w", err)
	}
	for _, id := range purged {
		if _, err := s.treePurge(ctx, id); err != nil {
			return out, fmt.Errorf("memory %s is purged, but removing its words from the summary tree failed (the next start retries; ihmt rebuild also removes them): %w", id, err)
		}
	}
	return out, nil
}

// joinRecords is a merge's change, which the writer builds: for each
// memory, the join of the stored version and every version that arrived,
// when it differs from what is stored; and the ids whose text a purge
// removes.
func (s *Store) joinRecords(c Caller, admitted []admission, now time.Time, res MergeResult) (*changeOf[MergeResult], []string) {
	ch := &changeOf[MergeResult]{facts: map[string][]facts.Fact{}}
	joined := map[string]*leaf.Leaf{}
	extracted := map[string][]facts.Fact{} // by admit, which extracts a live record's facts
	var order []string
	for _, a := range admitted {
		l := *a.leaf
		if a.facts != nil {
			extracted[l.ID] = a.facts
		}
		if cur, ok := joined[l.ID]; ok {
			l = leaf.Join(*cur, l)
		} else {
			order = append(order, l.ID)
		}
		joined[l.ID] = &l
	}
	strip := map[string]bool{}
	var purged []string
	for _, id := range order {
		l := joined[id]
		var stored *leaf.Leaf
		if d, ok := s.byID[id]; ok {
			full, err := s.withText(s.docs[d])
			if err != nil {
				res.Refused = append(res.Refused, Refusal{Index: -1, Reason: fmt.Sprintf("memory %s: its stored leaf is unreadable, so nothing arriving can be joined with it: %v", id, err)})
				continue
			}
			stored = &full
			j := leaf.Join(full, *l)
			l = &j
		}
		// Admission (admitRecord) held what reads like instructions to
		// agents; a record is held here when it arrives so, new to this store.
		held := l.Trust == leaf.TrustPending && l.Status == leaf.StatusActive && (stored == nil || stored.Trust != leaf.TrustPending)
		if stored != nil && headerEqual(stored.Header, l.Header) {
			res.Unchanged++
			continue
		}
		if held {
			res.Held++
		}
		e := s.newEntry(opImport, c, now)
		e.ID, e.Detail = l.ID, "sync"
		if l.Status == leaf.StatusPurged && stored != nil && stored.Text != "" {
			e.Op, e.Leaves = opPurge, []leaf.Header{l.Header}
			strip[id] = true
			purged = append(purged, id)
			tokenize.Forget(stored.Text)
		} else {
			e.Leaf, e.Text = &l.Header, l.Text
		}
		ch.entries = append(ch.entries, e)
		ch.leaves = append(ch.leaves, l)
		if fs, ok := extracted[l.ID]; ok && l.Live() {
			ch.facts[l.ID] = fs // else replaceWith extracts them, if the memory is live
		}
		res.Admitted++
	}
	res.Purged = len(purged)
	ch.done = func(j *journal.Journal) (MergeResult, error) {
		if len(strip) == 0 {
			return res, nil
		}
		if _, err := j.Rewrite(stripText(strip)); err != nil {
			return res, fmt.Errorf("a purge arrived, but removing its text from the log failed (the next start retries): %w", err)
		}
		s.flushFiles()
		s.purgeSnapshots()
		return res, nil
	}
	return ch, purged
}

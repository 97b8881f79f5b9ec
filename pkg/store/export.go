package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
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
	if err != nil {
		s.mu.RUnlock()
		return nil, 0, err
	}
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
}

// maxImportBatch bounds one import call; the CLI sends files in batches.
const maxImportBatch = 5000

// Import stores exported records exactly. A record already stored with the
// same header and text changes nothing, so importing twice is harmless; a
// record of a stored memory with another header (a later export of it)
// replaces the header. Every record is checked before anything is written:
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
	ls := make([]*leaf.Leaf, 0, len(records))
	for i, r := range records {
		l, err := parseRecord(r)
		if err != nil {
			return ImportResult{}, fmt.Errorf("record %d: %w", i+1, err)
		}
		ls = append(ls, l)
	}
	v, err := s.do(ctx, func(now time.Time) (*change, error) {
		var res ImportResult
		ch := &change{}
		seen := map[string]bool{}
		for _, l := range ls {
			if seen[l.ID] {
				continue
			}
			seen[l.ID] = true
			if d, ok := s.byID[l.ID]; ok {
				// The id is derived from the text (parseRecord checks it),
				// so a stored memory with the same id has the same text
				// and checksum, unless it was purged — which its header
				// says.
				stored := *s.docs[d]
				if onDisk(&stored) {
					stored.Checksum = l.Checksum
				}
				if headerEqual(stored.Header, l.Header) {
					res.Unchanged++
					continue
				}
			}
			e := s.newEntry(opImport, c, now)
			e.ID, e.Leaf, e.Text = l.ID, &l.Header, l.Text
			ch.entries = append(ch.entries, e)
			ch.leaves = append(ch.leaves, l)
			res.Imported++
		}
		ch.done = func(*journal.Journal) (any, error) { return res, nil }
		return ch, nil
	})
	if err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	return v.(ImportResult), nil
}

// parseRecord reads and checks one exported record.
func parseRecord(r string) (*leaf.Leaf, error) {
	var rec record
	dec := json.NewDecoder(strings.NewReader(r))
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%w: not a memory record: %v", ErrInvalid, err)
	}
	l := &leaf.Leaf{Header: rec.Header, Text: rec.Text}
	switch {
	case !leaf.IsID(l.ID):
		return nil, fmt.Errorf("%w: id %q is not 16 hex digits", ErrInvalid, clip(l.ID, 40))
	case l.Scope != leaf.ScopeGlobal && l.Scope != leaf.ScopeProject:
		return nil, fmt.Errorf("%w: %s: unknown scope %q", ErrInvalid, l.ID, clip(l.Scope, 20))
	case l.Scope == leaf.ScopeProject && l.Project == "":
		return nil, fmt.Errorf("%w: %s: a project memory without a project", ErrInvalid, l.ID)
	case !slices.Contains([]string{leaf.TrustAsserted, leaf.TrustVerified, leaf.TrustPending, leaf.TrustRejected}, l.Trust):
		return nil, fmt.Errorf("%w: %s: unknown trust %q", ErrInvalid, l.ID, clip(l.Trust, 20))
	case l.RecordedAt.IsZero() || l.ValidFrom.IsZero():
		return nil, fmt.Errorf("%w: %s: valid_from and recorded_at are required", ErrInvalid, l.ID)
	}
	switch l.Status {
	case leaf.StatusActive, leaf.StatusForgotten:
		if err := leaf.ValidateText(l.Text); err != nil {
			return nil, fmt.Errorf("%s: %w", l.ID, err)
		}
		if found := screen.Secrets(l.Text); len(found) > 0 {
			return nil, fmt.Errorf("%w: %s holds %s: secrets never go into the memory", ErrInvalid, l.ID, found[0])
		}
		if leaf.Checksum(l.Text) != l.Checksum {
			return nil, fmt.Errorf("%w: %s: the text does not match its checksum", ErrInvalid, l.ID)
		}
		if leaf.IDOf(l.Header, l.Text) != l.ID {
			return nil, fmt.Errorf("%w: %s: the id does not match the scope, project and text", ErrInvalid, l.ID)
		}
	case leaf.StatusPurged:
		if l.Text != "" {
			return nil, fmt.Errorf("%w: %s: purged but holds text", ErrInvalid, l.ID)
		}
	case leaf.StatusSuperseded:
		if leaf.Checksum(l.Text) != l.Checksum || leaf.IDOf(l.Header, l.Text) != l.ID {
			return nil, fmt.Errorf("%w: %s: the text does not match its checksum and id", ErrInvalid, l.ID)
		}
	default:
		return nil, fmt.Errorf("%w: %s: unknown status %q", ErrInvalid, l.ID, clip(l.Status, 20))
	}
	if (l.Status == leaf.StatusForgotten || l.Status == leaf.StatusPurged) && l.Tombstone == nil {
		return nil, fmt.Errorf("%w: %s: %s without a tombstone", ErrInvalid, l.ID, l.Status)
	}
	if err := leaf.ValidateProject(l.Project); err != nil {
		return nil, fmt.Errorf("%s: %w", l.ID, err)
	}
	for _, k := range append(slices.Clone(l.Corrects), l.CorrectedBy...) {
		if !leaf.IsID(k.ID) {
			return nil, fmt.Errorf("%w: %s: a link to %q, not an id", ErrInvalid, l.ID, clip(k.ID, 40))
		}
	}
	return l, nil
}

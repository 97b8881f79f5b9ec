package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/ingest"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// IngestInput is one document to store as leaves.
type IngestInput struct {
	Caller Caller
	// Name is the document's absolute path; "" for text without one (a
	// long save, stdin). A named document ingested again supersedes its
	// older version.
	Name    string
	Content string
	// Type and Domain override detection.
	Type   string
	Domain string
	Tags   []string
	Scope  Scope
	// Date, optional, is when the document became true, for leaves that
	// carry no date of their own.
	Date string
}

// IngestStatus says what an ingest did.
type IngestStatus int

const (
	// Ingested: the leaves are durable.
	Ingested IngestStatus = iota + 1
	// Unchanged: the same document is stored; nothing was written.
	Unchanged
	// IngestPending: stored, held for review.
	IngestPending
	// IngestRefused: nothing was stored; Message says why.
	IngestRefused
)

// IngestResult is the outcome of an ingest.
type IngestResult struct {
	Status     IngestStatus
	Leaves     []leaf.Leaf // in document order
	Superseded []string    // leaves of the document's older version
	Type       string
	Domain     string
	Oversized  int
	Message    string
}

// longSave is the size over which a save is split like a document: one
// memory should be one idea, and a search hit should not be a whole paste.
const longSave = 2 * ingest.DefaultMaxBytes

// Ingest splits a document by its type — never cutting a logical block —
// and stores every block as a leaf, in one durable step.
func (s *Store) Ingest(ctx context.Context, in IngestInput) (IngestResult, error) {
	typ := ingest.Type(strings.ToLower(strings.TrimSpace(in.Type)))
	t, err := s.checkIntake(intake{
		caller: in.Caller,
		text:   in.Content,
		check:  func(text string) error { return checkDocument(in.Name, text, typ, in.Type) },
		date:   in.Date,
		scope:  in.Scope,
		domain: in.Domain,
		tags:   in.Tags,
	})
	if err != nil {
		return IngestResult{}, err
	}
	if t.refused != "" {
		return IngestResult{Status: IngestRefused, Message: t.refused}, nil
	}
	return s.ingest(ctx, document{terms: t, name: in.Name, text: in.Content, typ: typ})
}

// checkDocument checks a document to ingest, its name and the type it is
// said to be (asked, as the caller spelt it).
func checkDocument(name, text string, typ ingest.Type, asked string) error {
	if err := leaf.ValidateDocument(text); err != nil {
		return err
	}
	if len(name) > 4096 || !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return fmt.Errorf("%w: document name must be at most 4096 bytes of UTF-8 without control characters", ErrInvalid)
	}
	switch typ {
	case "", ingest.TypeCode, ingest.TypeNarrative, ingest.TypeTemporal, ingest.TypeClinical, ingest.TypeProcess, ingest.TypeGeneric:
		return nil
	}
	return fmt.Errorf("%w: unknown type %q: use code, narrative, temporal, clinical, process or generic", ErrInvalid, clip(asked, 20))
}

// document is a text to store as the leaves it splits into: an ingested
// file, or a save too long to be one memory (with no name).
type document struct {
	terms terms
	name  string
	text  string
	typ   ingest.Type // "": detect
}

// ingest splits an admitted document into leaves and stores them.
func (s *Store) ingest(ctx context.Context, doc document) (IngestResult, error) {
	det, blocks := ingest.Split(doc.name, doc.text, ingest.Options{Type: doc.typ, Domain: doc.terms.domain})
	res := IngestResult{Type: string(det.Type), Domain: det.Domain}
	digest := leaf.Checksum(doc.text)
	parts := make([]admission, 0, len(blocks))
	for i, b := range blocks {
		a, err := s.admit(doc.draft(b, i, len(blocks), digest, det.Domain))
		if err != nil {
			return IngestResult{}, fmt.Errorf("block %d of %d: %w", i+1, len(blocks), err)
		}
		if b.Oversized {
			res.Oversized++
		}
		parts = append(parts, a)
	}
	out, err := doOp(ctx, s, func(now time.Time) (*changeOf[IngestResult], error) {
		return s.storeDocument(doc, digest, parts, res, now)
	})
	if err != nil {
		return IngestResult{}, fmt.Errorf("ingest: %w", err)
	}
	return out, nil
}

// draft returns the draft of block i of n of the document: its own date
// and domain when it has them (the caller's domain wins), its title, and
// where in the document it is.
func (doc *document) draft(b ingest.Block, i, n int, digest, detected string) draft {
	d := doc.terms.draft(b.Text)
	d.dated = b.ValidFrom
	domain := b.Domain
	if doc.terms.domain != "" || domain == "" {
		domain = detected
	}
	if leaf.ValidateLabel("domain", domain) != nil {
		domain = ""
	}
	d.header.Domain = domain
	// The title and context are pieces of the document: copies, so the
	// headers kept in memory do not hold the whole document once the texts
	// are on disk (texts.go).
	d.header.Title = strings.Clone(clip(b.Title, 200))
	d.header.Source = &leaf.Source{Name: doc.name, Digest: digest, Part: i + 1, Parts: n, Type: string(b.Type), Context: strings.Clone(b.Context), Oversized: b.Oversized}
	return d
}

// storeDocument is a document's change, which the writer builds: nothing
// when the same document is stored, else its new leaves, the leaves of a
// superseded copy of it made current again, and the leaves of its older
// version made history.
func (s *Store) storeDocument(doc document, digest string, parts []admission, res IngestResult, now time.Time) (*changeOf[IngestResult], error) {
	if out, same := s.sameDocument(parts, res); same {
		return answer(out), nil
	}
	ch := &changeOf[IngestResult]{facts: map[string][]facts.Fact{}}
	trust, note := doc.terms.trust, doc.terms.note
	back, held, err := s.stageParts(ch, parts, doc.terms.caller, now)
	if err != nil {
		return nil, err
	}
	if held != "" {
		trust, note = leaf.TrustPending, held
	}
	if len(back) > 0 {
		e := s.newEntry(opSupersede, doc.terms.caller, now)
		e.ID, e.Leaves, e.Detail = back[0].ID, back, "an older version of "+doc.name+" is current again"
		ch.entries = append(ch.entries, e)
	}
	// An older version of the same named document becomes history —
	// unless the new one waits for review: until a person approves it,
	// the old version stays the one that answers.
	if doc.name != "" && trust != leaf.TrustPending {
		if res.Superseded, err = s.supersedeOlder(ch, doc, digest, now); err != nil {
			return nil, err
		}
	}
	ch.done = func(*journal.Journal) (IngestResult, error) {
		out := res
		out.Status = Ingested
		if trust == leaf.TrustPending {
			out.Status, out.Message = IngestPending, note
		}
		for _, p := range parts {
			out.Leaves = append(out.Leaves, *p.leaf)
		}
		return out, nil
	}
	return ch, nil
}

// sameDocument answers a document already stored, unless it is a version
// that a newer one superseded, which becomes current again: then it
// reports false.
func (s *Store) sameDocument(parts []admission, res IngestResult) (IngestResult, bool) {
	d, ok := s.byID[parts[0].leaf.ID]
	if !ok || s.docs[d].Status == leaf.StatusSuperseded {
		return IngestResult{}, false
	}
	out := res
	out.Status = Unchanged
	if ex := s.existing(s.docs[d]); ex.Status != Duplicate {
		out.Status, out.Message = IngestRefused, ex.Message
		if ex.Status == PendingReview {
			out.Status = IngestPending
		}
		return out, true
	}
	for _, p := range parts {
		if d, ok := s.byID[p.leaf.ID]; ok {
			out.Leaves = append(out.Leaves, s.shown(s.docs[d]))
		}
	}
	out.Message = "already stored: the same document, nothing written"
	return out, true
}

// stageParts stages a document's parts: a new part is settled and logged,
// a stored one taken as it is — made current again when superseded, which
// back lists. held is the note of the last new part settle held for
// review, "" when it held none.
func (s *Store) stageParts(ch *changeOf[IngestResult], parts []admission, c Caller, now time.Time) (back []leaf.Header, held string, err error) {
	for i := range parts {
		p := &parts[i]
		if d, ok := s.byID[p.leaf.ID]; ok {
			cp, err := s.withText(s.docs[d])
			if err != nil {
				return nil, "", err
			}
			if cp.Status == leaf.StatusSuperseded {
				cp.Status = leaf.StatusActive
				back = append(back, cp.Header)
				ch.leaves = append(ch.leaves, &cp)
			}
			p.leaf = &cp
			continue
		}
		if note := s.settle(p, c, now); note != "" {
			held = note
		}
		ch.facts[p.leaf.ID] = p.facts
		e := s.newEntry(opSave, c, now)
		e.ID, e.Leaf, e.Text = p.leaf.ID, &p.leaf.Header, p.leaf.Text
		ch.entries = append(ch.entries, e)
		ch.leaves = append(ch.leaves, p.leaf)
	}
	return back, held, nil
}

// supersedeOlder makes the active leaves of the named document's older
// versions history, and returns their ids.
func (s *Store) supersedeOlder(ch *changeOf[IngestResult], doc document, digest string, now time.Time) ([]string, error) {
	var old []leaf.Header
	var ids []string
	for _, id := range s.sources[sourceKey(doc.terms.scope, doc.terms.project, doc.name)] {
		l := s.docs[s.byID[id]]
		if l.Status != leaf.StatusActive || l.Source.Digest == digest || l.Trust == leaf.TrustPending {
			continue
		}
		cp, err := s.withText(l)
		if err != nil {
			return nil, err
		}
		cp.Status = leaf.StatusSuperseded
		old = append(old, cp.Header)
		ch.leaves = append(ch.leaves, &cp)
		ids = append(ids, cp.ID)
	}
	if len(old) > 0 {
		e := s.newEntry(opSupersede, doc.terms.caller, now)
		e.ID, e.Leaves, e.Detail = old[0].ID, old, "older version of "+doc.name
		ch.entries = append(ch.entries, e)
	}
	return ids, nil
}

// sourceKey indexes the leaves of a named document by where they belong:
// the same file ingested into two projects is two documents.
func sourceKey(scope, project, name string) string {
	return scope + "\x00" + project + "\x00" + name
}

// noteSource remembers which leaves a named document became. Callers hold
// s.mu or run before the store is shared.
func (s *Store) noteSource(l *leaf.Leaf) {
	if l.Source == nil || l.Source.Name == "" {
		return
	}
	k := sourceKey(l.Scope, l.Project, l.Source.Name)
	if !slices.Contains(s.sources[k], l.ID) {
		s.sources[k] = append(s.sources[k], l.ID)
	}
}

// saveLong stores a save too long for one memory as a document without a
// name: its leaves share one source and are listed in the result.
func (s *Store) saveLong(ctx context.Context, in SaveInput) (SaveResult, error) {
	if err := leaf.ValidateText(in.Content); err != nil {
		return SaveResult{}, err
	}
	if strings.TrimSpace(in.Replaces) != "" {
		return SaveResult{}, fmt.Errorf("%w: replaces links one memory, and this text (%d bytes) is long enough to become several: save the correction in under %d bytes", ErrInvalid, len(in.Content), longSave)
	}
	t, err := s.checkIntake(in.intake())
	if err != nil {
		return SaveResult{}, err
	}
	if t.refused != "" {
		return SaveResult{Status: Refused, Message: t.refused}, nil
	}
	r, err := s.ingest(ctx, document{terms: t, text: in.Content})
	if err != nil {
		return SaveResult{}, err
	}
	out := SaveResult{Message: r.Message}
	switch r.Status {
	case Ingested:
		out.Status = Saved
	case Unchanged:
		out.Status = Duplicate
	case IngestPending:
		out.Status = PendingReview
	default:
		out.Status = Refused
	}
	for _, l := range r.Leaves {
		out.IDs = append(out.IDs, l.ID)
	}
	if len(r.Leaves) > 0 {
		out.Leaf = r.Leaves[0]
	}
	if out.Status == Duplicate {
		out.Message = duplicate(out.Leaf).Message
	}
	return out, nil
}

package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/ingest"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
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

// opSupersede marks an older version's leaves.
const opSupersede = "supersede"

type part struct {
	leaf      *leaf.Leaf
	dateGiven bool
	facts     []facts.Fact
}

// Ingest splits a document by its type — never cutting a logical block —
// and stores every block as a leaf, in one durable step.
func (s *Store) Ingest(ctx context.Context, in IngestInput) (IngestResult, error) {
	if err := validateCaller(in.Caller); err != nil {
		return IngestResult{}, err
	}
	if err := leaf.ValidateDocument(in.Content); err != nil {
		return IngestResult{}, err
	}
	if len(in.Name) > 4096 || !utf8.ValidString(in.Name) || strings.IndexFunc(in.Name, unicode.IsControl) >= 0 {
		return IngestResult{}, fmt.Errorf("%w: document name must be at most 4096 bytes of UTF-8 without control characters", ErrInvalid)
	}
	typ := ingest.Type(strings.ToLower(strings.TrimSpace(in.Type)))
	switch typ {
	case "", ingest.TypeCode, ingest.TypeNarrative, ingest.TypeTemporal, ingest.TypeClinical, ingest.TypeProcess, ingest.TypeGeneric:
	default:
		return IngestResult{}, fmt.Errorf("%w: unknown type %q: use code, narrative, temporal, clinical, process or generic", ErrInvalid, clip(in.Type, 20))
	}
	if in.Domain != "" {
		if err := leaf.ValidateLabel("domain", in.Domain); err != nil {
			return IngestResult{}, err
		}
	}
	tags, err := validTags(in.Tags)
	if err != nil {
		return IngestResult{}, err
	}
	scope, project, origin, err := resolveScope(in.Caller, in.Scope)
	if err != nil {
		return IngestResult{}, err
	}
	caller, given, dateGiven := in.Caller, time.Time{}, false
	if given, dateGiven, err = parseDate(in.Date); err != nil {
		return IngestResult{}, err
	}
	if found := screen.Secrets(in.Content); len(found) > 0 {
		return IngestResult{Status: IngestRefused, Message: s.refuseSecret(caller, found)}, nil
	}
	trust, note := s.screenTrust(caller, in.Content)

	det, blocks := ingest.Split(in.Name, in.Content, ingest.Options{Type: typ, Domain: in.Domain})
	digest := leaf.Checksum(in.Content)
	res := IngestResult{Type: string(det.Type), Domain: det.Domain}
	parts := make([]part, 0, len(blocks))
	for i, b := range blocks {
		if err := leaf.ValidateText(b.Text); err != nil {
			return IngestResult{}, fmt.Errorf("block %d of %d: %w", i+1, len(blocks), err)
		}
		domain := b.Domain
		if in.Domain != "" || domain == "" {
			domain = det.Domain
		}
		if leaf.ValidateLabel("domain", domain) != nil {
			domain = ""
		}
		p := part{dateGiven: dateGiven, facts: s.extractFacts(b.Text)}
		vf := given
		switch {
		case !b.ValidFrom.IsZero():
			vf, p.dateGiven = b.ValidFrom, true
		case !dateGiven:
			vf, p.dateGiven = dates.Leading(b.Text)
		}
		if b.Oversized {
			res.Oversized++
		}
		// The title and context are pieces of the document: copies, so
		// the headers kept in memory do not hold the whole document once
		// the texts are on disk (texts.go).
		p.leaf = &leaf.Leaf{Header: leaf.Header{
			ValidFrom: vf, Scope: scope, Project: project, OriginProject: origin,
			Agent: caller.Agent, Session: caller.Session, Trust: trust, ReviewNote: note, Status: leaf.StatusActive,
			Domain: domain, Tags: tags, Title: strings.Clone(clip(b.Title, 200)), Checksum: leaf.Checksum(b.Text),
			Source: &leaf.Source{Name: in.Name, Digest: digest, Part: i + 1, Parts: len(blocks), Type: string(b.Type), Context: strings.Clone(b.Context), Oversized: b.Oversized},
		}, Text: b.Text}
		p.leaf.ID = leaf.IDOf(p.leaf.Header, b.Text)
		parts = append(parts, p)
	}

	v, err := s.do(ctx, func(now time.Time) (*change, error) {
		// The same document again: nothing to write — unless it is a
		// version that a newer one superseded, which becomes current again.
		if d, ok := s.byID[parts[0].leaf.ID]; ok && s.docs[d].Status != leaf.StatusSuperseded {
			out := res
			out.Status = Unchanged
			if ex := s.existing(s.docs[d]); ex.Status != Duplicate {
				out.Status, out.Message = IngestRefused, ex.Message
				if ex.Status == PendingReview {
					out.Status = IngestPending
				}
				return &change{done: func(*journal.Journal) (any, error) { return out, nil }}, nil
			}
			for _, p := range parts {
				if d, ok := s.byID[p.leaf.ID]; ok {
					out.Leaves = append(out.Leaves, s.shown(s.docs[d]))
				}
			}
			out.Message = "already stored: the same document, nothing written"
			return &change{done: func(*journal.Journal) (any, error) { return out, nil }}, nil
		}
		ch := &change{facts: map[string][]facts.Fact{}}
		var back []leaf.Header
		for i, p := range parts {
			if d, ok := s.byID[p.leaf.ID]; ok {
				cp, err := s.withText(s.docs[d])
				if err != nil {
					return nil, err
				}
				if cp.Status == leaf.StatusSuperseded {
					cp.Status = leaf.StatusActive
					back = append(back, cp.Header)
					ch.leaves = append(ch.leaves, &cp)
				}
				parts[i].leaf = &cp
				continue
			}
			p.leaf.RecordedAt = now
			if !p.dateGiven {
				p.leaf.ValidFrom = now
			}
			if p.leaf.Trust == leaf.TrustAsserted && !caller.IsPerson() {
				if held := s.correctsVerified(p.leaf, p.facts); held != "" {
					p.leaf.Trust, p.leaf.ReviewNote = leaf.TrustPending, held
					trust, note = leaf.TrustPending, held
				}
			}
			ch.facts[p.leaf.ID] = p.facts
			e := s.newEntry(opSave, caller, now)
			e.ID, e.Leaf, e.Text = p.leaf.ID, &p.leaf.Header, p.leaf.Text
			ch.entries = append(ch.entries, e)
			ch.leaves = append(ch.leaves, p.leaf)
		}
		if len(back) > 0 {
			e := s.newEntry(opSupersede, caller, now)
			e.ID, e.Leaves, e.Detail = back[0].ID, back, "an older version of "+in.Name+" is current again"
			ch.entries = append(ch.entries, e)
		}
		// An older version of the same named document becomes history —
		// unless the new one waits for review: until a person approves it,
		// the old version stays the one that answers.
		var old []leaf.Header
		if in.Name != "" && trust != leaf.TrustPending {
			for _, id := range s.sources[sourceKey(scope, project, in.Name)] {
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
				res.Superseded = append(res.Superseded, cp.ID)
			}
		}
		if len(old) > 0 {
			e := s.newEntry(opSupersede, caller, now)
			e.ID, e.Leaves, e.Detail = old[0].ID, old, "older version of "+in.Name
			ch.entries = append(ch.entries, e)
		}
		ch.done = func(*journal.Journal) (any, error) {
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
	})
	if err != nil {
		return IngestResult{}, fmt.Errorf("ingest: %w", err)
	}
	return v.(IngestResult), nil
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
	if strings.TrimSpace(in.Replaces) != "" {
		return SaveResult{}, fmt.Errorf("%w: replaces links one memory, and this text (%d bytes) is long enough to become several: save the correction in under %d bytes", ErrInvalid, len(in.Content), longSave)
	}
	r, err := s.Ingest(ctx, IngestInput{Caller: in.Caller, Content: in.Content, Domain: in.Domain, Tags: in.Tags, Scope: in.Scope, Date: in.Date})
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
	return out, nil
}

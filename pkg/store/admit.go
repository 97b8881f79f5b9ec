package store

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// A memory gets in one way. Save, Ingest and Import each turn what they
// were given into drafts — a save is one draft; an ingested document, and a
// save too long to be one memory, one per block; an import one per exported
// record — and admit turns every draft into the leaf the writer stores, its
// facts and its trust. A text a caller hands in (a save, a document) is
// first checked and screened as a whole by checkIntake, which settles the
// terms all its leaves are admitted on; at record time the writer finishes
// each new leaf with settle.
//
// So each rule about what may be stored has one home, whichever path a
// memory takes:
//   - a check of what a caller says (a field of a save or a document, its
//     text's secrets and trust): checkIntake;
//   - a check of a leaf as it will be stored, field by field: admit (and
//     checkRecord for an exported record, whose header is taken whole);
//   - a rule that needs the store as it stands at record time (a verified
//     value the memory would overturn, a link made at save time): settle.

// intake is a text a caller hands in to be remembered — a save, or a
// document to ingest — with what the caller says about it.
type intake struct {
	caller Caller
	text   string
	// check is what the text itself must be: one memory (leaf.ValidateText)
	// or a document with a well-formed name and type.
	check  func(text string) error
	date   string
	scope  Scope
	domain string
	tags   []string
	// stated: the caller states this memory itself (a save), rather than
	// handing in a document to keep. A person's own statement is verified.
	stated bool
}

// terms are what checkIntake settled for a caller's text: where its
// leaves belong, who wrote them, the date the caller gave and their trust
// — or, when refused is set, why nothing of it is stored.
type terms struct {
	caller                 Caller
	scope, project, origin string
	domain                 string
	tags                   []string
	date                   time.Time
	dateGiven              bool
	trust, note            string
	// refused is the answer to a text that holds a secret; the other fields
	// are then unset.
	refused string
}

// checkIntake checks what a caller hands in and screens its text as a
// whole, before it is cut into leaves: a secret is found wherever it
// falls, and one verdict on the text's trust covers all its leaves.
func (s *Store) checkIntake(in intake) (terms, error) {
	if err := validateCaller(in.caller); err != nil {
		return terms{}, err
	}
	if err := in.check(in.text); err != nil {
		return terms{}, err
	}
	t := terms{caller: in.caller, domain: in.domain}
	var err error
	if t.date, t.dateGiven, err = parseDate(in.date); err != nil {
		return terms{}, err
	}
	if t.scope, t.project, t.origin, err = resolveScope(in.caller, in.scope); err != nil {
		return terms{}, err
	}
	if in.domain != "" {
		if err := leaf.ValidateLabel("domain", in.domain); err != nil {
			return terms{}, err
		}
	}
	if t.tags, err = validTags(in.tags); err != nil {
		return terms{}, err
	}
	// A secret is refused before anything else happens to the text: it is
	// neither stored nor logged, and the answer never repeats it.
	found := append(screen.Secrets(in.text), screen.Field("domain", in.domain)...)
	if found = append(found, screen.Field("tags", strings.Join(in.tags, " "))...); len(found) > 0 {
		return terms{refused: s.refuseSecret(in.caller, found, !in.stated)}, nil
	}
	t.trust, t.note = s.screenTrust(in)
	return t, nil
}

// draft is one memory on its way in, as the path that received it
// proposes it: the header it knows so far and the text.
type draft struct {
	header leaf.Header
	text   string
	// terms are the caller's terms of a new memory; nil for an exported
	// record, whose header is kept exactly as it is once checked.
	terms *terms
	// dated is the date the text's piece carries itself (an ingested
	// block's), which wins over the caller's.
	dated time.Time
}

// draft returns the draft of a new memory holding text, on these terms.
func (t *terms) draft(text string) draft {
	return draft{terms: t, text: text, header: leaf.Header{
		Scope:         t.scope,
		Project:       t.project,
		OriginProject: t.origin,
		Agent:         t.caller.Agent,
		Session:       t.caller.Session,
		Trust:         t.trust,
		ReviewNote:    t.note,
		Status:        leaf.StatusActive,
		Domain:        t.domain,
		Tags:          t.tags,
	}}
}

// admission is a draft admitted: the leaf the writer stores, its facts,
// and whether its valid time is known (else the writer sets it to the
// record time).
type admission struct {
	leaf      *leaf.Leaf
	facts     []facts.Fact
	dateGiven bool
}

// admit is the one admission step: it turns a draft — a save, one block of
// an ingested document, or one exported record — into the leaf the writer
// stores, its facts and its trust. A new memory's header is completed here
// (when it became true, checksum, id) and its trust is its terms'; an
// exported record keeps its header, which must be whole and consistent.
// Facts are extracted here, in the caller's goroutine, so the writer never
// does, for a leaf that answers searches; the others' are extracted when
// they come to (a review, a restore).
//
// Every rule about a leaf as it is stored belongs here (see the top of
// this file), so it holds for Save, Ingest and Import at once.
func (s *Store) admit(d draft) (admission, error) {
	l := &leaf.Leaf{Header: d.header, Text: d.text}
	a := admission{leaf: l, dateGiven: true}
	if d.terms == nil {
		if err := checkRecord(l); err != nil {
			return admission{}, err
		}
		holdInstructions(l)
	} else {
		if err := leaf.ValidateText(l.Text); err != nil {
			return admission{}, err
		}
		l.ValidFrom, a.dateGiven = d.validFrom()
		l.Checksum = leaf.Checksum(l.Text)
		l.ID = leaf.ID(l.Header, l.Text)
	}
	if l.Live() {
		a.facts = s.extractFacts(l)
	}
	return a, nil
}

// validFrom is when a new memory became true: the date its piece carries,
// else the one its caller gave, else the date its text opens with; false
// when none is known.
func (d draft) validFrom() (time.Time, bool) {
	switch {
	case !d.dated.IsZero():
		return d.dated, true
	case d.terms.dateGiven:
		return d.terms.date, true
	}
	return dates.Leading(d.text)
}

// checkRecord checks an exported record before it is stored exactly: its
// header must be one a store could have written, and its text the one the
// header's checksum and id were derived from.
func checkRecord(l *leaf.Leaf) error {
	switch {
	case !leaf.IsID(l.ID):
		return fmt.Errorf("%w: id %q is not 16 hex digits", ErrInvalid, clip(l.ID, 40))
	case l.Scope != leaf.ScopeGlobal && l.Scope != leaf.ScopeProject:
		return fmt.Errorf("%w: %s: unknown scope %q", ErrInvalid, l.ID, clip(l.Scope, 20))
	case l.Scope == leaf.ScopeProject && l.Project == "":
		return fmt.Errorf("%w: %s: a project memory without a project", ErrInvalid, l.ID)
	case !slices.Contains([]string{leaf.TrustAsserted, leaf.TrustVerified, leaf.TrustPending, leaf.TrustRejected}, l.Trust):
		return fmt.Errorf("%w: %s: unknown trust %q", ErrInvalid, l.ID, clip(l.Trust, 20))
	case l.RecordedAt.IsZero() || l.ValidFrom.IsZero():
		return fmt.Errorf("%w: %s: valid_from and recorded_at are required", ErrInvalid, l.ID)
	}
	if err := checkRecordText(l); err != nil {
		return err
	}
	if (l.Status == leaf.StatusForgotten || l.Status == leaf.StatusPurged) && l.Tombstone == nil {
		return fmt.Errorf("%w: %s: %s without a tombstone", ErrInvalid, l.ID, l.Status)
	}
	if err := leaf.ValidateProject(l.Project); err != nil {
		return fmt.Errorf("%s: %w", l.ID, err)
	}
	for _, k := range append(slices.Clone(l.Corrects), l.CorrectedBy...) {
		if !leaf.IsID(k.ID) {
			return fmt.Errorf("%w: %s: a link to %q, not an id", ErrInvalid, l.ID, clip(k.ID, 40))
		}
	}
	for _, p := range l.Probable {
		if !leaf.IsID(p.ID) || p.Confidence < 0 || p.Confidence > 1 {
			return fmt.Errorf("%w: %s: a probable supersession of %q with confidence %v: want an id and 0 to 1", ErrInvalid, l.ID, clip(p.ID, 40), p.Confidence)
		}
	}
	return nil
}

// checkRecordText checks a record's text as its status has it: a memory
// that may answer again holds a text a save would accept; a purged one
// holds none.
func checkRecordText(l *leaf.Leaf) error {
	switch l.Status {
	case leaf.StatusActive, leaf.StatusForgotten:
		if err := leaf.ValidateText(l.Text); err != nil {
			return fmt.Errorf("%s: %w", l.ID, err)
		}
		if found := screen.Secrets(l.Text); len(found) > 0 {
			return fmt.Errorf("%w: %s holds %s: secrets never go into the memory", ErrInvalid, l.ID, found[0])
		}
		if leaf.Checksum(l.Text) != l.Checksum {
			return fmt.Errorf("%w: %s: the text does not match its checksum", ErrInvalid, l.ID)
		}
		if leaf.ID(l.Header, l.Text) != l.ID {
			return fmt.Errorf("%w: %s: the id does not match the scope, project and text", ErrInvalid, l.ID)
		}
	case leaf.StatusPurged:
		if l.Text != "" {
			return fmt.Errorf("%w: %s: purged but holds text", ErrInvalid, l.ID)
		}
	case leaf.StatusSuperseded:
		if leaf.Checksum(l.Text) != l.Checksum || leaf.ID(l.Header, l.Text) != l.ID {
			return fmt.Errorf("%w: %s: the text does not match its checksum and id", ErrInvalid, l.ID)
		}
	default:
		return fmt.Errorf("%w: %s: unknown status %q", ErrInvalid, l.ID, clip(l.Status, 20))
	}
	return nil
}

// settled is a copy of a save's leaf header as settle will leave its
// dates, for ordering a batch before it is staged.
func (r *saveReq) settled(now time.Time) *leaf.Leaf {
	l := leaf.Leaf{Header: r.leaf.Header}
	l.RecordedAt = now
	if !r.dateGiven {
		l.ValidFrom = now
	}
	return &l
}

// settle is admission's last step for a new memory, which the writer takes
// at record time because it needs the store as it stands then: it sets
// the record time (and the valid time, when none was known), and holds an
// agent's memory for review when one of its facts would overturn a value a
// person verified. It returns that hold's note, "" when it held nothing.
func (s *Store) settle(a *admission, c Caller, now time.Time) string {
	l := a.leaf
	l.RecordedAt = now
	if !a.dateGiven {
		l.ValidFrom = now
	}
	if l.Trust != leaf.TrustAsserted || c.IsPerson() {
		return ""
	}
	note := s.correctsVerified(l, a.facts)
	if note != "" {
		l.Trust, l.ReviewNote = leaf.TrustPending, note
	}
	return note
}

// correctsVerified returns why a new memory must wait for review when one
// of its facts contradicts a value a person verified; "" when none does.
// The writer calls it, so the timeline is stable without the lock.
func (s *Store) correctsVerified(l *leaf.Leaf, fs []facts.Fact) string {
	for _, f := range fs {
		if f.Subject == "" {
			continue
		}
		cur, ok := s.tl.Current(timeline.Key{Scope: partition(l), Subject: f.Subject, Attribute: f.Attribute}, timeline.View{})
		if !ok || sameValue(cur.Value, f.Value) {
			continue
		}
		if d, ok := s.byID[cur.Leaf]; ok && s.docs[d].Trust == leaf.TrustVerified {
			return fmt.Sprintf("held for review: it changes %s %s from %q, which a person verified (memory %s), to %q; the verified value stays current until a person approves",
				f.Subject, strings.ReplaceAll(f.Attribute, "_", " "), cur.Value, cur.Leaf, f.Value)
		}
	}
	return ""
}

func sameValue(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// resolveScope decides where a new memory belongs: the caller's project by
// default, else global; for a global memory saved from inside a project it
// also returns that project as provenance.
func resolveScope(c Caller, sc Scope) (scope, project, origin string, err error) {
	switch sc {
	case ScopeUnspecified:
		if c.Project != "" {
			return leaf.ScopeProject, c.Project, "", nil
		}
		return leaf.ScopeGlobal, "", "", nil
	case ScopeGlobal:
		return leaf.ScopeGlobal, "", c.Project, nil
	case ScopeProject:
		if c.Project == "" {
			return "", "", "", fmt.Errorf("%w: scope project needs a project: run inside a git repository or set IHMT_PROJECT", ErrInvalid)
		}
		return leaf.ScopeProject, c.Project, "", nil
	}
	return "", "", "", fmt.Errorf("%w: unknown scope %d: use global or project", ErrInvalid, sc)
}

func validTags(in []string) ([]string, error) {
	if len(in) > 32 {
		return nil, fmt.Errorf("%w: %d tags, at most 32 allowed", ErrInvalid, len(in))
	}
	var tags []string
	for _, t := range in {
		if err := leaf.ValidateLabel("tag", t); err != nil {
			return nil, err
		}
		tags = append(tags, strings.ToLower(t))
	}
	return tags, nil
}

func instructionsNote(reason string) string {
	return "held for review: it " + reason + ", which is how a prompt injection persists; a person must approve it"
}

// holdInstructions holds an imported record for review when its text reads
// like instructions to agents and it would otherwise answer: an export is
// a file anyone may have edited, and an import is one more way in, screened
// as a save is. Its id and checksum stay (neither covers its trust).
func holdInstructions(l *leaf.Leaf) {
	if l.Status != leaf.StatusActive || (l.Trust != leaf.TrustAsserted && l.Trust != leaf.TrustVerified) {
		return
	}
	if reason, ok := screen.Instructions(l.Text); ok {
		l.Trust, l.ReviewNote = leaf.TrustPending, instructionsNote(reason)
	}
}

// refuseSecret logs a refused secret by kind and position only, and
// returns the answer for the caller: for a document, how to ingest the
// rest of it, since one key in a test fixture refuses the whole file.
func (s *Store) refuseSecret(c Caller, found []screen.Finding, document bool) string {
	what := make([]string, len(found))
	for i, f := range found {
		what[i] = f.String()
	}
	s.log.Warn("refused a save holding a likely secret", "agent", c.Agent.Name, "session", c.Session, "found", strings.Join(what, "; "))
	if document {
		return fmt.Sprintf("Not stored: the document holds %s, and secrets never go into the memory, so nothing of it was stored. "+
			"To keep the rest, redact the secret (write where it is kept, or REDACTED, in its place) and ingest the document again; or leave the document out.",
			strings.Join(what, ", and "))
	}
	return fmt.Sprintf("Not saved: the text holds %s. Secrets never go into the memory: remove it (say where the secret is kept instead, e.g. \"the token is in 1Password\") and save again.",
		strings.Join(what, ", and "))
}

// screenTrust decides a new text's trust. What a person saves themselves
// is verified: they are the one who confirms facts. A document a person
// ingests is asserted, like an agent's save: keeping a file is not
// vouching for every sentence in it. An agent's text, and a document
// whoever ingests it (a file from the web reads the same to the agents
// it is replayed to), waits for review when it reads like instructions
// aimed at agents (how a prompt injection persists); an agent's, also
// when the person reviews everything.
func (s *Store) screenTrust(in intake) (trust, note string) {
	if in.caller.IsPerson() && in.stated {
		return leaf.TrustVerified, ""
	}
	if reason, ok := screen.Instructions(in.text); ok {
		return leaf.TrustPending, instructionsNote(reason)
	}
	if in.caller.IsPerson() {
		return leaf.TrustAsserted, "" // a document the person keeps, not a statement they confirmed
	}
	if s.reviewAll {
		return leaf.TrustPending, "held for review: the memory's config says review = all"
	}
	return leaf.TrustAsserted, ""
}

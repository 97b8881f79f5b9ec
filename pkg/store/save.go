package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// Scope is where a saved memory belongs.
type Scope int

const (
	// ScopeUnspecified saves into the caller's project, else global.
	ScopeUnspecified Scope = iota
	// ScopeGlobal is about the user, visible everywhere.
	ScopeGlobal
	// ScopeProject is about the caller's project, visible only there.
	ScopeProject
)

// SaveInput is one memory to store.
type SaveInput struct {
	Caller  Caller
	Content string
	// Date, optional, is when it became true: "YYYY-MM-DD" or RFC 3339.
	Date   string
	Scope  Scope
	Domain string
	Tags   []string
	// Replaces, optional, names the memory this one corrects: an id, or a
	// few words describing it.
	Replaces string
}

// SaveStatus says what a save did.
type SaveStatus int

const (
	// Saved: a new memory is durable.
	Saved SaveStatus = iota + 1
	// Duplicate: the same text in the same scope was stored before; the
	// earlier memory is returned and nothing was written.
	Duplicate
	// PendingReview: stored, but held for a person's review; it answers no
	// search until approved. Message says why.
	PendingReview
	// Refused: nothing was stored. Message says why.
	Refused
)

// Correction is an earlier memory a save superseded.
type Correction struct {
	OldID  string
	Notice string
}

// SaveResult is the outcome of a save.
type SaveResult struct {
	Status SaveStatus
	Leaf   leaf.Leaf
	// Message explains a refusal, a review hold or an unresolved replaces.
	Message string
	// Corrections lists the memories this save superseded.
	Corrections []Correction
	// Candidates are the memories `replaces` matched when it matched more
	// than one clearly; none was linked.
	Candidates []Hit
	// IDs lists every leaf a long save became (Leaf is the first).
	IDs []string
}

// The log's entry kinds.
const (
	opSave    = "save"
	opImport  = "import"
	opLink    = "link"
	opForget  = "forget"
	opRestore = "restore"
	opPurge   = "purge"
	opReview  = "review"
	opReadAll = "read_all"
)

// entry is one line of the log. A save or import entry carries the whole
// leaf, which is what makes the log sufficient to restore any leaf file;
// every other mutation carries the complete new header of each leaf it
// changed. The journal adds "prev" and "hash" to chain the entries.
type entry struct {
	Seq     int64         `json:"seq"`
	Time    time.Time     `json:"time"`
	Op      string        `json:"op"`
	ID      string        `json:"id,omitempty"`
	Agent   leaf.Agent    `json:"agent"`
	Session string        `json:"session,omitempty"`
	Project string        `json:"project,omitempty"`
	Leaf    *leaf.Header  `json:"leaf,omitempty"`
	Leaves  []leaf.Header `json:"leaves,omitempty"`
	// Detail is the operation's own words: a forget's reason, a review's
	// note, a scope=all query.
	Detail string `json:"detail,omitempty"`
	Text   string `json:"text,omitempty"`
}

func (s *Store) newEntry(op string, c Caller, now time.Time) entry {
	return entry{Time: now, Op: op, Agent: c.Agent, Session: c.Session, Project: c.Project}
}

type saveReq struct {
	leaf *leaf.Leaf
	// dateGiven is false when valid_from still has to default to the
	// record time, which only the writer assigns.
	dateGiven bool
	facts     []facts.Fact
	corrects  []string // ids resolved from replaces
	caller    Caller
	res       SaveResult // what prepare already knows (candidates, message)
	done      chan saveResp
}

type saveResp struct {
	res SaveResult
	err error
}

// Save validates in, then hands it to the single writer and waits until the
// memory is durable (or was already stored). Validation, screening and
// fact extraction happen here, in the caller's goroutine, so bad input never
// reaches the writer and costs the other writers nothing.
func (s *Store) Save(ctx context.Context, in SaveInput) (SaveResult, error) {
	if len(in.Content) > longSave {
		if err := leaf.ValidateText(in.Content); err != nil {
			return SaveResult{}, err
		}
		return s.saveLong(ctx, in)
	}
	req, err := s.prepare(in)
	if err != nil {
		return SaveResult{}, err
	}
	if req.res.Status == Refused {
		return req.res, nil
	}
	if err := s.submit(ctx, &request{save: req}); err != nil {
		return SaveResult{}, fmt.Errorf("save: %w", err)
	}
	// Once queued, the save completes even if the caller gives up: waiting
	// here for the outcome keeps "acknowledged" and "durable" the same thing.
	select {
	case r := <-req.done:
		return r.res, r.err
	case <-ctx.Done():
		return SaveResult{}, fmt.Errorf("save: %w (the save may still complete)", ctx.Err())
	}
}

// prepare validates a save and builds its leaf, everything but the clocks.
func (s *Store) prepare(in SaveInput) (*saveReq, error) {
	if err := validateCaller(in.Caller); err != nil {
		return nil, err
	}
	if err := leaf.ValidateText(in.Content); err != nil {
		return nil, err
	}
	validFrom, dateGiven, err := parseDate(in.Date)
	if err != nil {
		return nil, err
	}
	if !dateGiven {
		validFrom, dateGiven = dates.Leading(in.Content)
	}
	scope, project, origin, err := resolveScope(in.Caller, in.Scope)
	if err != nil {
		return nil, err
	}
	if in.Domain != "" {
		if err := leaf.ValidateLabel("domain", in.Domain); err != nil {
			return nil, err
		}
	}
	tags, err := validTags(in.Tags)
	if err != nil {
		return nil, err
	}
	req := &saveReq{caller: in.Caller, dateGiven: dateGiven, done: make(chan saveResp, 1)}

	// A secret is refused before anything else happens to the text: it is
	// neither stored nor logged, and the answer never repeats it.
	if found := screen.Secrets(in.Content); len(found) > 0 {
		req.res = SaveResult{Status: Refused, Message: s.refuseSecret(in.Caller, found)}
		return req, nil
	}
	trust, note := s.screenTrust(in.Caller, in.Content)
	req.leaf = &leaf.Leaf{
		Header: leaf.Header{
			ID:            leaf.ID(scope, project, in.Content),
			ValidFrom:     validFrom,
			Scope:         scope,
			Project:       project,
			OriginProject: origin,
			Agent:         in.Caller.Agent,
			Session:       in.Caller.Session,
			Trust:         trust,
			ReviewNote:    note,
			Status:        leaf.StatusActive,
			Domain:        in.Domain,
			Tags:          tags,
			Checksum:      leaf.Checksum(in.Content),
		},
		Text: in.Content,
	}
	req.facts = s.extractFacts(in.Content)
	if strings.TrimSpace(in.Replaces) != "" {
		if err := s.resolveReplaces(in, req); err != nil {
			return nil, err
		}
	}
	return req, nil
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

// refuseSecret logs a refused secret by kind and position only, and
// returns the answer for the caller.
func (s *Store) refuseSecret(c Caller, found []screen.Finding) string {
	what := make([]string, len(found))
	for i, f := range found {
		what[i] = f.String()
	}
	s.log.Warn("refused a save holding a likely secret", "agent", c.Agent.Name, "session", c.Session, "found", strings.Join(what, "; "))
	return fmt.Sprintf("Not saved: the text holds %s. Secrets never go into the memory: remove it (say where the secret is kept instead, e.g. \"the token is in 1Password\") and save again.",
		strings.Join(what, ", and "))
}

// screenTrust decides whether an agent's new text waits for review: when
// it reads like instructions aimed at agents (how a prompt injection
// persists), or when the person reviews everything. A person's own saves
// are theirs to make.
func (s *Store) screenTrust(c Caller, text string) (trust, note string) {
	if c.IsPerson() {
		return leaf.TrustAsserted, ""
	}
	if reason, ok := screen.Instructions(text); ok {
		return leaf.TrustPending, "held for review: it " + reason + ", which is how a prompt injection persists; a person must approve it"
	}
	if s.reviewAll {
		return leaf.TrustPending, "held for review: the memory's config says review = all"
	}
	return leaf.TrustAsserted, ""
}

// resolveReplaces turns `replaces` into the id of the memory to link, or
// into candidates when several match. It searches only what the caller may
// see, so a correction never links into another project.
func (s *Store) resolveReplaces(in SaveInput, req *saveReq) error {
	r := strings.TrimSpace(in.Replaces)
	if leaf.IsID(r) {
		old, err := s.Get(in.Caller, r, ScopeDefault)
		if err != nil {
			return fmt.Errorf("replaces: %w", err)
		}
		req.corrects = []string{r}
		followScope(in, req.leaf, old)
		return nil
	}
	res, err := s.Search(SearchInput{Caller: in.Caller, Query: r, Limit: maxCandidates})
	if err != nil {
		return fmt.Errorf("replaces: %w", err)
	}
	switch {
	case res.Verdict == Found:
		// Words that happen to match a global memory do not move this one
		// out of its project (only an explicit id does): the link is then
		// refused, and the answer says to save with scope global.
		req.corrects = []string{res.Hits[0].Leaf.ID}
	case len(res.Hits) > 0 && res.Verdict == Ambiguous:
		req.res.Candidates = res.Hits
		req.res.Message = fmt.Sprintf("Saved, but `replaces` matched %d memories about equally, so none was marked outdated: call mark_outdated(old_id, new_id) with the one this corrects.", len(res.Hits))
	default:
		req.res.Message = "Saved, but no memory matched `replaces`, so nothing was marked outdated: search for the old memory and call mark_outdated(old_id, new_id)."
	}
	return nil
}

// followScope puts a correction where what it corrects is: a correction of
// a global memory named by its id from inside a project, with no scope
// given, is global too — facts about the user do not belong to one project,
// and a project memory must not change the answer in every other project.
func followScope(in SaveInput, l *leaf.Leaf, old leaf.Leaf) {
	if in.Scope != ScopeUnspecified || old.Scope == l.Scope {
		return
	}
	l.Scope, l.Project, l.OriginProject = old.Scope, old.Project, in.Caller.Project
	l.ID = leaf.ID(l.Scope, l.Project, l.Text)
}

// commitSaves makes a batch of saves durable with a single log append and
// sync, then publishes it and answers every caller.
func (s *Store) commitSaves(batch []*saveReq, j *journal.Journal) {
	now := s.now().UTC()
	var (
		entries []entry
		fresh   []*saveReq
		inBatch = map[string]*saveReq{}
		linked  = map[string]*leaf.Leaf{} // corrected leaves, new versions
	)
	for _, r := range batch {
		l := r.leaf
		// Only the writer mutates byID and docs, so reading them here needs
		// no lock.
		if d, ok := s.byID[l.ID]; ok {
			r.done <- saveResp{res: s.existing(s.docs[d])}
			continue
		}
		if _, ok := inBatch[l.ID]; ok {
			// The same text twice in one batch: answered as a duplicate of
			// the first once the batch is durable, below.
			fresh = append(fresh, r)
			continue
		}
		l.RecordedAt = now
		if !r.dateGiven {
			l.ValidFrom = now
		}
		e := s.newEntry(opSave, r.caller, now)
		e.ID, e.Leaf, e.Text = l.ID, &l.Header, l.Text
		entries = append(entries, e)
		for _, id := range r.corrects {
			d, ok := s.byID[id]
			if !ok || id == l.ID {
				continue
			}
			old := linked[id]
			if old == nil {
				cp, err := s.withText(s.docs[d])
				if err != nil {
					r.res.Message = "Saved, but not linked: " + err.Error()
					continue
				}
				old = &cp
			}
			if err := sameTimeline(old, l); err != nil {
				r.res.Message = "Saved, but not linked: " + strings.TrimPrefix(err.Error(), ErrConflict.Error()+": ")
				continue
			}
			if old.Trust == leaf.TrustVerified && !r.caller.IsPerson() && l.Trust == leaf.TrustAsserted {
				l.Trust, l.ReviewNote = leaf.TrustPending, heldNote(id)
			}
			l.Corrects = append(l.Corrects, leaf.Link{ID: id, At: now})
			old.CorrectedBy = append(slices.Clone(old.CorrectedBy), leaf.Link{ID: l.ID, At: now})
			linked[id] = old
			le := s.newEntry(opLink, r.caller, now)
			le.ID, le.Leaves = id, []leaf.Header{old.Header}
			entries = append(entries, le)
		}
		if l.Trust == leaf.TrustAsserted && !r.caller.IsPerson() {
			if note := s.correctsVerified(l, r.facts); note != "" {
				l.Trust, l.ReviewNote = leaf.TrustPending, note
			}
		}
		inBatch[l.ID] = r
		fresh = append(fresh, r)
	}
	if len(entries) == 0 {
		return
	}
	if err := s.append(j, entries); err != nil {
		for _, r := range fresh {
			r.done <- saveResp{err: err}
		}
		return
	}
	var written []*leaf.Leaf
	s.mu.Lock()
	for _, r := range fresh {
		if inBatch[r.leaf.ID] == r {
			s.publishWith(r.leaf, r.facts)
			written = append(written, r.leaf)
		}
	}
	for _, old := range linked {
		s.replace(old)
		written = append(written, old)
	}
	results := make(map[string]SaveResult, len(inBatch))
	for id, r := range inBatch {
		res := r.res
		res.Leaf = *r.leaf
		res.Status = Saved
		if r.leaf.Trust == leaf.TrustPending {
			res.Status, res.Message = PendingReview, r.leaf.ReviewNote
		} else {
			res.Corrections = s.correctionsBy(r.leaf)
		}
		results[id] = res
	}
	s.mu.Unlock()
	// Queue the leaf files before acknowledging, so a Flush after an
	// acknowledgement covers them.
	s.leaves.push(written)
	for _, r := range fresh {
		if first := inBatch[r.leaf.ID]; first == r {
			r.done <- saveResp{res: results[r.leaf.ID]}
		} else {
			r.done <- saveResp{res: SaveResult{Status: Duplicate, Leaf: *first.leaf}}
		}
	}
}

// existing answers a save whose text is already stored: a duplicate, or a
// refusal when the memory was forgotten, so forgetting sticks.
func (s *Store) existing(stored *leaf.Leaf) SaveResult {
	full := s.shown(stored)
	l := &full
	switch {
	case l.Status == leaf.StatusActive && l.Trust == leaf.TrustRejected:
		return SaveResult{Status: Refused, Leaf: *l, Message: fmt.Sprintf("Not saved: this exact memory (%s) was rejected by the user in review (%s). Do not save it again.", l.ID, l.ReviewNote)}
	case l.Status == leaf.StatusActive && l.Trust == leaf.TrustPending:
		return SaveResult{Status: PendingReview, Leaf: *l, Message: "already stored and still " + l.ReviewNote}
	case l.Tombstone == nil || l.Status == leaf.StatusActive:
		return SaveResult{Status: Duplicate, Leaf: *l}
	}
	msg := fmt.Sprintf("Not saved: this exact memory (%s) was forgotten on %s by %s (reason: %q). A person can bring it back with `ihmt restore %s`.",
		l.ID, l.Tombstone.At.Format(time.DateOnly), l.Tombstone.By.Name, l.Tombstone.Reason, l.ID)
	if l.Status == leaf.StatusPurged {
		msg = fmt.Sprintf("Not saved: this exact memory (%s) was forgotten on %s (reason: %q) and its text purged by a person.",
			l.ID, l.Tombstone.At.Format(time.DateOnly), l.Tombstone.Reason)
	}
	return SaveResult{Status: Refused, Leaf: *l, Message: msg}
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

// correctionsBy lists the memories l now supersedes, with the notice their
// readers will see. Callers hold s.mu.
func (s *Store) correctionsBy(l *leaf.Leaf) []Correction {
	var out []Correction
	seen := map[string]bool{l.ID: true}
	add := func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		st := s.tl.Status(id, timeline.View{})
		if !st.Outdated || !slices.Contains(st.Successors, l.ID) {
			return
		}
		notice := strings.Join(st.Notices, " ")
		if notice == "" {
			notice = s.linkNotice(l)
		}
		out = append(out, Correction{OldID: id, Notice: notice})
	}
	for _, c := range l.Corrects {
		add(c.ID)
	}
	// The value each of its facts replaced: what was current as the memory
	// knew it just before this save. (Looking at one entry per key, not the
	// key's whole history, keeps a save's cost flat as a timeline grows.)
	before := timeline.View{KnownAt: l.RecordedAt.Add(-time.Nanosecond)}
	for _, e := range s.tl.Entries(l.ID) {
		if prev, ok := s.tl.Current(e.Key, before); ok {
			add(prev.Leaf)
		}
	}
	return out
}

// linkNotice is the notice of a memory outdated by an explicit link to l.
func (s *Store) linkNotice(l *leaf.Leaf) string {
	full := s.shown(l)
	return fmt.Sprintf("OUTDATED: corrected on %s by memory %s: %s", l.ValidFrom.Format(time.DateOnly), l.ID, Excerpt(full.Text))
}

func sameValue(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
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

// saveReq is one save on its way to the writer: its admission (the leaf,
// its facts, whether it is dated) and what prepare already knows.
type saveReq struct {
	admission
	corrects []string // ids resolved from replaces
	caller   Caller
	res      SaveResult // what prepare already knows (candidates, message)
	done     chan saveResp
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

// prepare admits a save: its checks, screening, leaf and facts, and the
// memory its replaces names; everything but the clocks, which only the
// writer sets.
func (s *Store) prepare(in SaveInput) (*saveReq, error) {
	t, err := s.checkIntake(in.intake())
	if err != nil {
		return nil, err
	}
	req := &saveReq{caller: in.Caller, done: make(chan saveResp, 1)}
	if t.refused != "" {
		req.res = SaveResult{Status: Refused, Message: t.refused}
		return req, nil
	}
	if req.admission, err = s.admit(t.draft(in.Content)); err != nil {
		return nil, err
	}
	valid := req.leaf.ValidFrom
	if !req.dateGiven {
		valid = s.now()
	}
	s.inferSuccession(req.leaf, valid, req.facts)
	if strings.TrimSpace(in.Replaces) != "" {
		if err := s.resolveReplaces(in, req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// intake is what a save hands in to admission.
func (in SaveInput) intake() intake {
	return intake{caller: in.Caller, text: in.Content, check: leaf.ValidateText, date: in.Date, scope: in.Scope, domain: in.Domain, tags: in.Tags, stated: true}
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
	res, err := s.Search(SearchInput{Caller: in.Caller, Query: r, Limit: verdict.MaxCandidates})
	if err != nil {
		return fmt.Errorf("replaces: %w", err)
	}
	// A link needs one clear candidate: a near tie between two current
	// memories is the caller's choice, even when the search would answer
	// found, because linking the wrong one hides a memory.
	tied := 1
	for tied < len(res.Hits) && res.Hits[tied].Current && verdict.NearTie(res.Hits[0].Score, res.Hits[tied].Score) {
		tied++
	}
	switch {
	case res.Verdict == Found && tied == 1:
		// Words that happen to match a global memory do not move this one
		// out of its project (only an explicit id does): the link is then
		// refused, and the answer says to save with scope global.
		req.corrects = []string{res.Hits[0].Leaf.ID}
	case len(res.Hits) > 0 && res.Verdict != NotFound:
		if res.Verdict == Found {
			res.Hits = res.Hits[:tied]
		}
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
	l.ID = leaf.ID(l.Header, l.Text)
}

// saveBatch is a batch of saves staged for the log.
type saveBatch struct {
	now     time.Time
	entries []entry
	fresh   []*saveReq            // the saves to answer once durable
	first   map[string]*saveReq   // by leaf id, the save that writes it
	linked  map[string]*leaf.Leaf // corrected leaves, new versions
}

// stageSaves answers the saves of texts already stored and stages the
// others: their log entries, their links to what they correct, and their
// settling at record time. Only the writer mutates byID and docs, so
// reading them here needs no lock.
func (s *Store) stageSaves(batch []*saveReq, now time.Time) *saveBatch {
	b := &saveBatch{now: now, first: map[string]*saveReq{}, linked: map[string]*leaf.Leaf{}}
	for _, r := range batch {
		l := r.leaf
		if d, ok := s.byID[l.ID]; ok {
			r.done <- saveResp{res: s.existing(s.docs[d])}
			continue
		}
		b.fresh = append(b.fresh, r)
		if _, ok := b.first[l.ID]; ok {
			// The same text twice in one batch: answered as a duplicate of
			// the first once the batch is durable.
			continue
		}
		b.first[l.ID] = r
		e := s.newEntry(opSave, r.caller, now)
		e.ID, e.Leaf, e.Text = l.ID, &l.Header, l.Text
		b.entries = append(b.entries, e)
		s.linkCorrections(b, r)
		s.settle(&r.admission, r.caller, now)
	}
	return b
}

// linkCorrections links a save to the memories its replaces resolved to,
// staging their new versions and log entries. An agent's correction of a
// verified memory waits for review.
func (s *Store) linkCorrections(b *saveBatch, r *saveReq) {
	l := r.leaf
	for _, id := range r.corrects {
		d, ok := s.byID[id]
		if !ok || id == l.ID {
			continue
		}
		old := b.linked[id]
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
		l.Corrects = append(l.Corrects, leaf.Link{ID: id, At: b.now})
		old.CorrectedBy = append(slices.Clone(old.CorrectedBy), leaf.Link{ID: l.ID, At: b.now})
		b.linked[id] = old
		le := s.newEntry(opLink, r.caller, b.now)
		le.ID, le.Leaves = id, []leaf.Header{old.Header}
		b.entries = append(b.entries, le)
	}
}

// publishSaves publishes a durable batch and returns the leaves whose files
// to write and each new leaf's answer.
func (s *Store) publishSaves(b *saveBatch) (written []*leaf.Leaf, results map[string]SaveResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range b.fresh {
		if b.first[r.leaf.ID] == r {
			s.publishWith(r.leaf, r.facts)
			written = append(written, r.leaf)
		}
	}
	for _, old := range b.linked {
		s.replace(old)
		written = append(written, old)
	}
	results = make(map[string]SaveResult, len(b.first))
	for id, r := range b.first {
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
	return written, results
}

// duplicate answers a save of a text stored as l.
func duplicate(l leaf.Leaf) SaveResult {
	return SaveResult{Status: Duplicate, Leaf: l, Message: "already stored on " + l.RecordedAt.Format(time.DateOnly) + "; nothing written"}
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
		return duplicate(*l)
	}
	msg := fmt.Sprintf("Not saved: this exact memory (%s) was forgotten on %s by %s (reason: %q). A person can bring it back with `ihmt restore %s`.",
		l.ID, l.Tombstone.At.Format(time.DateOnly), l.Tombstone.By.Name, l.Tombstone.Reason, l.ID)
	if l.Status == leaf.StatusPurged {
		msg = fmt.Sprintf("Not saved: this exact memory (%s) was forgotten on %s (reason: %q) and its text purged by a person.",
			l.ID, l.Tombstone.At.Format(time.DateOnly), l.Tombstone.Reason)
	}
	return SaveResult{Status: Refused, Leaf: *l, Message: msg}
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
	return fmt.Sprintf("OUTDATED: corrected on %s by memory %s: %s", l.ValidFrom.Format(time.DateOnly), l.ID, excerpt(full.Text))
}

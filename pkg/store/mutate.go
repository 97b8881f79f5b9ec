package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Errors of the operations beyond save and search.
var (
	// ErrConflict: the memory is not in a state that allows the operation
	// (restoring a memory that was never forgotten, say); nothing changed.
	ErrConflict = errors.New("not allowed in the memory's current state")
	// ErrPermission: only the person may do this (review, restore, purge,
	// import), not an agent; nothing changed.
	ErrPermission = leaf.ErrPermission
)

// requirePerson refuses an operation that is the person's to make. The
// person is whoever runs the ihmt command line: an agent reaches the
// memory through ihmt-mcp, which never offers these operations and never
// passes a client off as the CLI.
func requirePerson(c Caller, what string) error {
	if c.IsPerson() {
		return nil
	}
	return fmt.Errorf("%w: %s is the user's decision; ask them to run `ihmt %s`", ErrPermission, what, what)
}

// heldNote is the review note of an agent's correction of a verified memory.
func heldNote(verified string) string {
	return "held for review: it corrects verified memory " + verified + ", which stays current until a person approves"
}

// sameTimeline refuses a link across partitions: a project memory that
// "corrects" a global one would change the answer in every other project.
func sameTimeline(old, nw *leaf.Leaf) error {
	if partition(old) == partition(nw) {
		return nil
	}
	return fmt.Errorf("%w: memory %s is %s and memory %s is %s; a correction must be in the same scope as what it corrects (save it again with scope %q)",
		ErrConflict, old.ID, where(old), nw.ID, where(nw), old.Scope)
}

func where(l *leaf.Leaf) string {
	if l.Scope == leaf.ScopeGlobal {
		return "global"
	}
	return "in project " + l.Project
}

// corrects reports whether from reaches to by following CorrectedBy links:
// linking to → from would then close a cycle, leaving both outdated.
func (s *Store) reaches(from, to string) bool {
	seen := map[string]bool{}
	queue := []string{from}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if id == to {
			return true
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if d, ok := s.byID[id]; ok {
			for _, k := range s.docs[d].CorrectedBy {
				queue = append(queue, k.ID)
			}
		}
	}
	return false
}

// lookup returns a copy of a stored memory the caller may see under scope,
// with its text: the copy is what a change writes back. Only the writer
// calls it, so it reads without the lock.
func (s *Store) lookup(c Caller, id string, scope SearchScope) (*leaf.Leaf, error) {
	if !leaf.IsID(id) {
		return nil, fmt.Errorf("%w: %q is not a memory id (16 hex digits)", ErrInvalid, clip(id, 40))
	}
	vis, _, err := s.visible(c, scope)
	if err != nil {
		return nil, err
	}
	d, ok := s.byID[id]
	if !ok || !vis(s.groupOf(s.docs[d])) {
		return nil, fmt.Errorf("%w: no memory %s in %s", ErrNotFound, id, scopeName(scope))
	}
	cp, err := s.withText(s.docs[d])
	if err != nil {
		return nil, err
	}
	return &cp, nil
}

// LinkResult is the outcome of MarkOutdated.
type LinkResult struct {
	Old, New leaf.Leaf
	Notice   string
	// PendingReview: the old memory is verified, so the correction waits
	// for a person before it takes effect.
	PendingReview bool
}

// MarkOutdated records that newID corrects oldID. Both must be visible to
// the caller. Linking the same pair again changes nothing.
func (s *Store) MarkOutdated(ctx context.Context, c Caller, oldID, newID string) (LinkResult, error) {
	if err := validateCaller(c); err != nil {
		return LinkResult{}, err
	}
	res, err := doOp(ctx, s, func(now time.Time) (*changeOf[LinkResult], error) {
		old, err := s.lookup(c, oldID, ScopeDefault)
		if err != nil {
			return nil, fmt.Errorf("old memory: %w", err)
		}
		nw, err := s.lookup(c, newID, ScopeDefault)
		if err != nil {
			return nil, fmt.Errorf("new memory: %w", err)
		}
		if oldID == newID {
			return nil, fmt.Errorf("%w: a memory cannot correct itself", ErrInvalid)
		}
		for _, l := range []*leaf.Leaf{old, nw} {
			if !l.Live() && l.Trust != leaf.TrustPending {
				return nil, fmt.Errorf("%w: memory %s is %s; only active memories can be linked", ErrConflict, l.ID, stateName(l))
			}
		}
		if err := sameTimeline(old, nw); err != nil {
			return nil, err
		}
		if s.reaches(newID, oldID) {
			return nil, fmt.Errorf("%w: memory %s already corrects %s (directly or through others); linking back would leave both outdated", ErrConflict, oldID, newID)
		}
		linked := func(*journal.Journal) (LinkResult, error) {
			return LinkResult{Old: *old, New: *nw, Notice: s.linkNotice(nw), PendingReview: nw.Trust == leaf.TrustPending}, nil
		}
		if slices.ContainsFunc(old.CorrectedBy, func(k leaf.Link) bool { return k.ID == newID }) {
			return &changeOf[LinkResult]{done: linked}, nil
		}
		if old.Trust == leaf.TrustVerified && !c.IsPerson() {
			if nw.Trust == leaf.TrustVerified {
				return nil, fmt.Errorf("%w: both memories were verified by the user, so only they can say which one is outdated: ask them to run `ihmt mark-outdated %s %s`", ErrPermission, oldID, newID)
			}
			if nw.Trust == leaf.TrustAsserted {
				nw.Trust, nw.ReviewNote = leaf.TrustPending, heldNote(oldID)
			}
		}
		old.CorrectedBy = append(slices.Clone(old.CorrectedBy), leaf.Link{ID: newID, At: now})
		nw.Corrects = append(slices.Clone(nw.Corrects), leaf.Link{ID: oldID, At: now})
		e := s.newEntry(opLink, c, now)
		e.ID, e.Leaves = oldID, []leaf.Header{old.Header, nw.Header}
		return &changeOf[LinkResult]{entries: []entry{e}, leaves: []*leaf.Leaf{old, nw}, done: linked}, nil
	})
	if err != nil {
		return LinkResult{}, err
	}
	return res, nil
}

// Forget tombstones a memory the caller may see: it leaves every search and
// fact timeline, and saving the same text again is refused.
func (s *Store) Forget(ctx context.Context, c Caller, id, reason string) (leaf.Leaf, error) {
	if err := validateCaller(c); err != nil {
		return leaf.Leaf{}, err
	}
	reason = strings.TrimSpace(reason)
	if err := validateReason(reason); err != nil {
		return leaf.Leaf{}, err
	}
	if reason == "" {
		reason = "no reason given"
	}
	return s.changeLeaf(ctx, c, id, ScopeDefault, func(l *leaf.Leaf, now time.Time) (entry, error) {
		if l.Status != leaf.StatusActive {
			return entry{}, fmt.Errorf("%w: memory %s is already %s", ErrConflict, id, stateName(l))
		}
		if l.Trust == leaf.TrustVerified && !c.IsPerson() {
			return entry{}, fmt.Errorf("%w: the user verified memory %s, so only they can forget it: ask them to run `ihmt forget %s`", ErrPermission, id, id)
		}
		l.Status = leaf.StatusForgotten
		l.Tombstone = &leaf.Tombstone{At: now, By: c.Agent, Session: c.Session, Reason: reason}
		e := s.newEntry(opForget, c, now)
		e.Detail = reason
		return e, nil
	})
}

// Restore brings back a forgotten memory. A purged one cannot come back:
// its text is gone.
func (s *Store) Restore(ctx context.Context, c Caller, id string) (leaf.Leaf, error) {
	if err := validateCaller(c); err != nil {
		return leaf.Leaf{}, err
	}
	if err := requirePerson(c, "restore"); err != nil {
		return leaf.Leaf{}, err
	}
	return s.changeLeaf(ctx, c, id, ScopeAll, func(l *leaf.Leaf, now time.Time) (entry, error) {
		switch l.Status {
		case leaf.StatusForgotten:
		case leaf.StatusPurged:
			return entry{}, fmt.Errorf("%w: memory %s was purged; its text is gone, so save it again instead", ErrConflict, id)
		default:
			return entry{}, fmt.Errorf("%w: memory %s is not forgotten", ErrConflict, id)
		}
		l.Status, l.Tombstone = leaf.StatusActive, nil
		return s.newEntry(opRestore, c, now), nil
	})
}

// PurgeResult says what a purge removed.
type PurgeResult struct {
	Leaf       leaf.Leaf
	LeafBytes  int
	LogEntries int
	// TreeFiles counts the summary tree's files the purge deleted or
	// rewrote (the memory's branch and those above it, the root, the
	// catalog).
	TreeFiles int
	Message   string // what was removed and what stays, for a person
}

// Purge removes a forgotten memory's text from its leaf file, from every
// log entry and from the summary tree's files (its branch's entry and
// every title, excerpt and keyword drawn from it above); the header, the
// tombstone and the purge itself stay on record. The tree is cleaned after
// the purge is durable; a crash in between is finished at the next start.
func (s *Store) Purge(ctx context.Context, c Caller, id string) (PurgeResult, error) {
	if err := validateCaller(c); err != nil {
		return PurgeResult{}, err
	}
	if err := requirePerson(c, "purge"); err != nil {
		return PurgeResult{}, err
	}
	res, err := doOp(ctx, s, func(now time.Time) (*changeOf[PurgeResult], error) {
		l, err := s.lookup(c, id, ScopeAll)
		if err != nil {
			return nil, err
		}
		if l.Status != leaf.StatusForgotten {
			if l.Status == leaf.StatusPurged {
				return nil, fmt.Errorf("%w: memory %s is already purged", ErrConflict, id)
			}
			return nil, fmt.Errorf("%w: memory %s is not forgotten: run `ihmt forget %s --reason …` first", ErrConflict, id, id)
		}
		n := len(l.Text)
		tokenize.Forget(l.Text) // no copy of the text stays in memory: see replaceWith for the store's own
		l.Status, l.Text = leaf.StatusPurged, ""
		tomb := *l.Tombstone
		tomb.PurgedAt = &now
		l.Tombstone = &tomb
		e := s.newEntry(opPurge, c, now)
		e.ID, e.Leaves = id, []leaf.Header{l.Header}
		return &changeOf[PurgeResult]{entries: []entry{e}, leaves: []*leaf.Leaf{l}, done: func(j *journal.Journal) (PurgeResult, error) {
			// The purge entry is durable; now remove the text from the log.
			// If this is cut short, the next start finishes it.
			changed, err := j.Rewrite(stripText(map[string]bool{id: true}))
			if err != nil {
				return PurgeResult{}, fmt.Errorf("the memory is purged, but removing its text from the log failed (the next start retries): %w", err)
			}
			// Answer once the leaf file and the snapshots no longer hold
			// the text either.
			s.flushFiles()
			s.purgeSnapshots()
			return PurgeResult{Leaf: *l, LeafBytes: n, LogEntries: changed}, nil
		}}, nil
	})
	if err != nil {
		return PurgeResult{}, err
	}
	ps, err := s.treePurge(ctx, id)
	if err != nil {
		return PurgeResult{}, fmt.Errorf("the memory is purged, but removing its words from the summary tree failed (the next start retries; ihmt rebuild also removes them): %w", err)
	}
	res.TreeFiles = ps.Files()
	res.Message = fmt.Sprintf("Purged %s: removed %d bytes of text from its leaf file and from %d log entries, and its words from %d files of the summary tree; its header, tombstone and this purge stay on record.",
		id, res.LeafBytes, res.LogEntries, res.TreeFiles)
	return res, nil
}

// stripText returns a log edit that drops the text of entries about ids.
func stripText(ids map[string]bool) func([]byte) ([]byte, error) {
	return func(line []byte) ([]byte, error) {
		var head struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		if json.Unmarshal(line, &head) != nil || !ids[head.ID] || head.Text == "" {
			return line, nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return line, nil
		}
		delete(m, "text")
		return json.Marshal(m)
	}
}

// Decision is a person's review verdict.
type Decision int

const (
	// Approve makes a memory verified.
	Approve Decision = iota + 1
	// Reject makes it unfindable.
	Reject
)

// Review records a person's decision on any memory they can see in any
// project: approving a pending or asserted memory makes it verified (and a
// held correction takes effect); rejecting makes it never returned.
func (s *Store) Review(ctx context.Context, c Caller, id string, d Decision, note string) (leaf.Leaf, error) {
	if err := validateCaller(c); err != nil {
		return leaf.Leaf{}, err
	}
	note = strings.TrimSpace(note)
	if err := validateReason(note); err != nil {
		return leaf.Leaf{}, err
	}
	if d != Approve && d != Reject {
		return leaf.Leaf{}, fmt.Errorf("%w: unknown review decision %d: approve or reject", ErrInvalid, d)
	}
	if err := requirePerson(c, "review"); err != nil {
		return leaf.Leaf{}, err
	}
	return s.changeLeaf(ctx, c, id, ScopeAll, func(l *leaf.Leaf, now time.Time) (entry, error) {
		if l.Status != leaf.StatusActive {
			return entry{}, fmt.Errorf("%w: memory %s is %s", ErrConflict, id, stateName(l))
		}
		e := s.newEntry(opReview, c, now)
		if d == Approve {
			l.Trust = leaf.TrustVerified
			e.Detail = "approve"
		} else {
			l.Trust = leaf.TrustRejected
			e.Detail = "reject"
		}
		l.ReviewNote = note
		if note != "" {
			e.Detail += ": " + note
		}
		return e, nil
	})
}

// changeLeaf runs a one-leaf header change through the writer: edit gets a
// copy of memory id as the caller may see it under scope, changes it and
// returns the log entry that records the change. Its errors are returned as
// they are: the caller's RPC already names the operation.
func (s *Store) changeLeaf(ctx context.Context, c Caller, id string, scope SearchScope, edit func(l *leaf.Leaf, now time.Time) (entry, error)) (leaf.Leaf, error) {
	changed, err := doOp(ctx, s, func(now time.Time) (*changeOf[leaf.Leaf], error) {
		l, err := s.lookup(c, id, scope)
		if err != nil {
			return nil, err
		}
		e, err := edit(l, now)
		if err != nil {
			return nil, err
		}
		e.ID, e.Leaves = l.ID, []leaf.Header{l.Header}
		return &changeOf[leaf.Leaf]{entries: []entry{e}, leaves: []*leaf.Leaf{l}, done: func(*journal.Journal) (leaf.Leaf, error) { return *l, nil }}, nil
	})
	if err != nil {
		return leaf.Leaf{}, err
	}
	return changed, nil
}

// PendingReview lists the memories waiting for a person, newest first, in
// every project: it is the person's list.
func (s *Store) PendingReview(c Caller, limit int) ([]leaf.Leaf, error) {
	if err := requirePerson(c, "review"); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 50
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []leaf.Leaf
	for i := len(s.docs) - 1; i >= 0 && len(out) < limit; i-- {
		if l := s.docs[i]; l.Trust == leaf.TrustPending && l.Status == leaf.StatusActive {
			out = append(out, s.shown(l))
		}
	}
	return out, nil
}

func stateName(l *leaf.Leaf) string {
	if l.Status != leaf.StatusActive {
		return l.Status
	}
	return l.Trust
}

func validateReason(r string) error {
	if err := leaf.ValidateText(r); err != nil && r != "" {
		return fmt.Errorf("reason: %w", err)
	}
	if n := len([]rune(r)); n > 1000 {
		return fmt.Errorf("%w: reason is %d characters, at most 1000", ErrInvalid, n)
	}
	// The reason is kept in the tombstone and the log for good.
	if found := screen.Field("reason", r); len(found) > 0 {
		return fmt.Errorf("%w: the reason holds %s: secrets never go into the memory; say why without it", ErrInvalid, found[0])
	}
	return nil
}

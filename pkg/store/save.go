package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
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
}

// SaveStatus says what a save did.
type SaveStatus int

const (
	// Saved: a new memory is durable.
	Saved SaveStatus = iota + 1
	// Duplicate: the same text in the same scope was stored before; the
	// earlier memory is returned and nothing was written.
	Duplicate
)

// SaveResult is the outcome of a save.
type SaveResult struct {
	Status SaveStatus
	Leaf   leaf.Leaf
}

// The log's entry kinds.
const opSave = "save"

// entry is one line of the log. A save entry carries the whole leaf, which
// is what makes the log sufficient to restore any leaf file.
type entry struct {
	Seq     int64        `json:"seq"`
	Time    time.Time    `json:"time"`
	Op      string       `json:"op"`
	ID      string       `json:"id"`
	Agent   leaf.Agent   `json:"agent"`
	Session string       `json:"session,omitempty"`
	Project string       `json:"project,omitempty"`
	Leaf    *leaf.Header `json:"leaf,omitempty"`
	Text    string       `json:"text,omitempty"`
}

type saveReq struct {
	leaf *leaf.Leaf
	// dateGiven is false when valid_from still has to default to the
	// record time, which only the writer assigns.
	dateGiven bool
	done      chan saveResp
}

type saveResp struct {
	res SaveResult
	err error
}

// Save validates in, then hands it to the single writer and waits until the
// memory is durable (or was already stored). Validation happens here, in the
// caller's goroutine, so bad input never reaches the writer and costs the
// other writers nothing.
func (s *Store) Save(ctx context.Context, in SaveInput) (SaveResult, error) {
	l, dateGiven, err := s.prepare(in)
	if err != nil {
		return SaveResult{}, err
	}
	req := &saveReq{leaf: l, dateGiven: dateGiven, done: make(chan saveResp, 1)}
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return SaveResult{}, fmt.Errorf("save: %w", ErrClosed)
	}
	select {
	case s.reqs <- req:
		s.closeMu.RUnlock()
	case <-ctx.Done():
		s.closeMu.RUnlock()
		return SaveResult{}, fmt.Errorf("save: %w", ctx.Err())
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
func (s *Store) prepare(in SaveInput) (*leaf.Leaf, bool, error) {
	if err := validateCaller(in.Caller); err != nil {
		return nil, false, err
	}
	if err := leaf.ValidateText(in.Content); err != nil {
		return nil, false, err
	}
	validFrom, dateGiven, err := parseDate(in.Date)
	if err != nil {
		return nil, false, err
	}
	if !dateGiven {
		validFrom, dateGiven = dates.Leading(in.Content)
	}
	var scope, project string
	switch in.Scope {
	case ScopeUnspecified:
		scope = leaf.ScopeGlobal
		if in.Caller.Project != "" {
			scope, project = leaf.ScopeProject, in.Caller.Project
		}
	case ScopeGlobal:
		scope = leaf.ScopeGlobal
	case ScopeProject:
		if in.Caller.Project == "" {
			return nil, false, fmt.Errorf("%w: scope project needs a project: run inside a git repository or set IHMT_PROJECT", ErrInvalid)
		}
		scope, project = leaf.ScopeProject, in.Caller.Project
	default:
		return nil, false, fmt.Errorf("%w: unknown scope %d: use global or project", ErrInvalid, in.Scope)
	}
	if in.Domain != "" {
		if err := leaf.ValidateLabel("domain", in.Domain); err != nil {
			return nil, false, err
		}
	}
	if len(in.Tags) > 32 {
		return nil, false, fmt.Errorf("%w: %d tags, at most 32 allowed", ErrInvalid, len(in.Tags))
	}
	var tags []string
	for _, t := range in.Tags {
		if err := leaf.ValidateLabel("tag", t); err != nil {
			return nil, false, err
		}
		tags = append(tags, strings.ToLower(t))
	}
	l := &leaf.Leaf{
		Header: leaf.Header{
			ID:        leaf.ID(scope, project, in.Content),
			ValidFrom: validFrom,
			Scope:     scope,
			Project:   project,
			Agent:     in.Caller.Agent,
			Session:   in.Caller.Session,
			Trust:     leaf.TrustAsserted,
			Status:    leaf.StatusActive,
			Domain:    in.Domain,
			Tags:      tags,
			Checksum:  leaf.Checksum(in.Content),
		},
		Text: in.Content,
	}
	return l, dateGiven, nil
}

// writeLoop is the single writer. It runs until Close, then drains what was
// already queued so no accepted save is dropped.
func (s *Store) writeLoop(j *journal.Journal) {
	defer s.leaves.close()
	defer func() {
		if err := j.Close(); err != nil {
			s.writerErr = err
		}
	}()
	for {
		var first *saveReq
		select {
		case first = <-s.reqs:
		case <-s.closing:
			// Drain: every request accepted before Close is in reqs by now
			// (see closeMu), and no more can arrive.
			for {
				select {
				case r := <-s.reqs:
					s.commit([]*saveReq{r}, j)
				default:
					return
				}
			}
		}
		batch := []*saveReq{first}
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-s.reqs:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		s.commit(batch, j)
	}
}

// commit makes one batch durable with a single log append and sync, then
// publishes it and answers every caller.
func (s *Store) commit(batch []*saveReq, j *journal.Journal) {
	now := s.now().UTC()
	// Only the writer changes entries, so it may read it unlocked; the new
	// count is published under the lock together with the memories.
	seq := s.entries
	var (
		lines   [][]byte
		fresh   []*saveReq
		inBatch = map[string]*saveReq{}
	)
	for _, r := range batch {
		l := r.leaf
		// Only the writer mutates byID, so reading it here needs no lock.
		if d, ok := s.byID[l.ID]; ok {
			r.done <- saveResp{res: SaveResult{Status: Duplicate, Leaf: *s.docs[d]}}
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
		seq++
		e := entry{Seq: seq, Time: now, Op: opSave, ID: l.ID, Agent: l.Agent, Session: l.Session, Project: l.Project, Leaf: &l.Header, Text: l.Text}
		line, err := json.Marshal(e)
		if err != nil {
			seq--
			r.done <- saveResp{err: fmt.Errorf("encode log entry: %w", err)}
			continue
		}
		lines = append(lines, line)
		inBatch[l.ID] = r
		fresh = append(fresh, r)
	}
	if len(lines) == 0 {
		return
	}
	if err := j.Append(lines); err != nil {
		err = fmt.Errorf("save not stored: %w (check free disk space and permissions of %s)", err, s.dir)
		s.log.Error("log append failed", "entries", len(lines), "err", err)
		for _, r := range fresh {
			r.done <- saveResp{err: err}
		}
		return
	}
	var written []*leaf.Leaf
	s.mu.Lock()
	s.entries = seq
	for _, r := range fresh {
		if inBatch[r.leaf.ID] == r {
			s.publish(r.leaf)
			written = append(written, r.leaf)
		}
	}
	s.mu.Unlock()
	// Queue the leaf files before acknowledging, so a Flush after an
	// acknowledgement covers them.
	s.leaves.push(written)
	for _, r := range fresh {
		if first := inBatch[r.leaf.ID]; first == r {
			r.done <- saveResp{res: SaveResult{Status: Saved, Leaf: *r.leaf}}
		} else {
			r.done <- saveResp{res: SaveResult{Status: Duplicate, Leaf: *first.leaf}}
		}
	}
}

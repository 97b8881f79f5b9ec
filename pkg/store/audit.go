package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
)

// LogFilter selects log entries.
type LogFilter struct {
	Agent   string
	Session string
	// Since, optional, is the caller's date ("YYYY-MM-DD" or RFC 3339):
	// entries before it are left out.
	Since string
	// Limit keeps the newest entries: 100 when not positive, at most
	// maxLogLimit.
	Limit int
	// Scope is which memories' entries are listed, as for a search (see
	// logVisible); ScopeAll is a read into every project, and logged.
	Scope SearchScope
}

// maxLogLimit bounds one listing of the log, which a reply carries whole.
const maxLogLimit = 10000

// LogEntry is one mutation as people read it.
type LogEntry struct {
	Seq     int64
	Time    time.Time
	Op      string
	IDs     []string
	Agent   Agent
	Session string
	Project string
	Summary string
}

// Log lists the log entries matching f, oldest first; matched counts every
// entry that matched before the limit kept the newest ones. It is the
// person's to read, and follows the scope rule of every other read: by
// default the entries about global memories and the caller's project;
// another project's only with ScopeAll, which is logged first.
func (s *Store) Log(c Caller, f LogFilter) (entries []LogEntry, matched int, err error) {
	var since time.Time
	if f.Since != "" {
		if since, err = dates.Parse(f.Since); err != nil {
			return nil, 0, fmt.Errorf("%w: since: %v", ErrInvalid, err)
		}
	}
	if err := requirePerson(c, "log"); err != nil {
		return nil, 0, err
	}
	if err := s.recordReadAll(c, f.Scope, "log"); err != nil {
		return nil, 0, err
	}
	if f.Limit <= 0 {
		f.Limit = 100
	}
	f.Limit = min(f.Limit, maxLogLimit)
	err = journal.Read(filepath.Join(s.dir, logName), func(line []byte) error {
		var e entry
		if json.Unmarshal(line, &e) != nil {
			return nil // Verify reports damage; a listing skips it
		}
		if (f.Agent != "" && e.Agent.Name != f.Agent) || (f.Session != "" && e.Session != f.Session) || e.Time.Before(since) ||
			!logVisible(e, c, f.Scope) {
			return nil
		}
		matched++
		entries = append(entries, summarize(e))
		if len(entries) > f.Limit {
			entries = entries[1:]
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read log: %w", err)
	}
	return entries, matched, nil
}

// logVisible reports whether an entry may be listed to c under scope: every
// memory it is about must be one a search in that scope could see; an
// entry about none (a scope=all read, a recovery) by where its caller was.
func logVisible(e entry, c Caller, scope SearchScope) bool {
	if scope == ScopeAll {
		return true
	}
	see := func(sc, project string) bool {
		global := sc == leaf.ScopeGlobal || sc == "" && project == ""
		switch scope {
		case ScopeOnlyGlobal:
			return global
		case ScopeOnlyProject:
			return !global && project == c.Project
		}
		return global || project == c.Project
	}
	about := 0
	if e.Leaf != nil {
		about++
		if !see(e.Leaf.Scope, e.Leaf.Project) {
			return false
		}
	}
	for _, h := range e.Leaves {
		about++
		if !see(h.Scope, h.Project) {
			return false
		}
	}
	if about == 0 {
		return e.Project == "" || e.Project == c.Project
	}
	return true
}

func summarize(e entry) LogEntry {
	out := LogEntry{Seq: e.Seq, Time: e.Time, Op: e.Op, Agent: e.Agent, Session: e.Session, Project: e.Project}
	if e.ID != "" {
		out.IDs = append(out.IDs, e.ID)
	}
	for _, h := range e.Leaves {
		if h.ID != e.ID {
			out.IDs = append(out.IDs, h.ID)
		}
	}
	switch e.Op {
	case opSave, opImport:
		if e.Leaf != nil {
			where := e.Leaf.Scope
			if e.Leaf.Project != "" {
				where += " " + e.Leaf.Project
			}
			text := excerpt(e.Text)
			if e.Text == "" {
				text = "(text purged)"
			}
			out.Summary = fmt.Sprintf("%s, %s: %s", where, e.Leaf.Trust, text)
		}
	case opLink:
		if len(out.IDs) > 1 {
			out.Summary = fmt.Sprintf("%s corrected by %s", out.IDs[0], out.IDs[1])
		} else if len(e.Leaves) == 1 && len(e.Leaves[0].CorrectedBy) > 0 {
			out.Summary = fmt.Sprintf("%s corrected by %s", e.ID, e.Leaves[0].CorrectedBy[len(e.Leaves[0].CorrectedBy)-1].ID)
		}
	case opReadAll:
		out.Summary = "read across every project: " + e.Detail
	default:
		out.Summary = e.Detail
	}
	return out
}

// AuditReport is the outcome of VerifyAudit.
type AuditReport struct {
	journal.Report
	Path string
}

// VerifyAudit walks the log's hash chain, and checks that every text still
// in the log matches the checksum its entry recorded, that a text is
// missing only where a purge is on record (the chain leaves texts out, so
// that purging does not break it), that the log still reaches its anchor
// (entries cut from its end, or a log emptied, are named), and that every
// memory the leaves hold has its entry in the log.
func (s *Store) VerifyAudit() (AuditReport, error) {
	path := filepath.Join(s.dir, logName)
	purged := map[string]bool{}
	logged := map[string]bool{}
	err := journal.Read(path, func(line []byte) error {
		var e struct {
			Op string `json:"op"`
			ID string `json:"id"`
		}
		if json.Unmarshal(line, &e) == nil {
			purged[e.ID] = purged[e.ID] || e.Op == opPurge
			logged[e.ID] = logged[e.ID] || e.Op == opSave || e.Op == opImport
		}
		return nil
	})
	if err != nil {
		return AuditReport{}, fmt.Errorf("verify log: %w", err)
	}
	rep, err := journal.Verify(path, func(line []byte) error {
		var e struct {
			Op   string       `json:"op"`
			ID   string       `json:"id"`
			Leaf *leaf.Header `json:"leaf"`
			Text *string      `json:"text"`
		}
		if json.Unmarshal(line, &e) != nil || e.Leaf == nil {
			return nil
		}
		switch {
		case e.Text == nil && e.Leaf.Status != leaf.StatusPurged && !purged[e.ID]:
			return fmt.Errorf("its text was removed, but no purge of %s is on record", e.ID)
		case e.Text != nil && leaf.Checksum(*e.Text) != e.Leaf.Checksum:
			return fmt.Errorf("its text no longer matches the checksum recorded with it")
		}
		return nil
	})
	if err != nil {
		return AuditReport{}, fmt.Errorf("verify log: %w", err)
	}
	if rep.Anchor == "missing" {
		rep.Problems = append(rep.Problems, journal.Problem{Line: rep.Entries, Kind: "removed",
			Detail: fmt.Sprintf("the log's anchor %s is missing, so entries cut from the log's end cannot be counted (the leaves are checked below)", journal.AnchorPath(path))})
	}
	rep.Problems = append(rep.Problems, s.unlogged(logged, rep.Entries)...)
	return AuditReport{Report: rep, Path: path}, nil
}

// unlogged reports the memories whose leaves exist but whose save or import
// entry the log no longer holds: what a log cut short, or emptied, lost,
// named even when the anchor went with it.
func (s *Store) unlogged(logged map[string]bool, entries int64) []journal.Problem {
	s.mu.RLock()
	var missing []*leaf.Leaf
	for _, l := range s.docs {
		if !logged[l.ID] {
			missing = append(missing, l)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(missing, func(a, b *leaf.Leaf) int { return a.RecordedAt.Compare(b.RecordedAt) })
	var out []journal.Problem
	for i, l := range missing {
		if i == 10 {
			out = append(out, journal.Problem{Line: entries + 1, Kind: "removed",
				Detail: fmt.Sprintf("and %d more memories whose log entries are missing", len(missing)-i)})
			break
		}
		out = append(out, journal.Problem{Line: entries + 1, Kind: "removed",
			Detail: fmt.Sprintf("memory %s (recorded %s) has a leaf file, but its entry is missing from the log", l.ID, l.RecordedAt.UTC().Format(time.RFC3339))})
	}
	return out
}

// recordReadAll logs a read that looks into every project — widening is
// the one read a person may want to audit — before anything is returned.
// Reads in a narrower scope are not logged.
func (s *Store) recordReadAll(c Caller, scope SearchScope, what string) error {
	wait, err := s.startReadAll(c, scope, what)
	if err != nil {
		return err
	}
	return wait()
}

// startReadAll starts logging a scope=all read and returns the wait for it:
// the entry is durable in the log when the wait returns nil. A search
// starts it, ranks meanwhile, and waits before it answers, so its own
// fsync overlaps the ranking instead of preceding it; the guarantee is the
// same as recordReadAll's — nothing read is returned unless the read is in
// the log, durably. A query the screen refuses is refused at once, before
// anything is read (the error). Reads in a narrower scope are not logged.
func (s *Store) startReadAll(c Caller, scope SearchScope, what string) (wait func() error, err error) {
	if scope != ScopeAll {
		return func() error { return nil }, nil
	}
	// What is logged stays in the log: a query holding a secret is refused
	// rather than written down.
	if found := screen.Field("query", what); len(found) > 0 {
		return nil, fmt.Errorf("%w: the query holds %s, and a scope=all read is logged: search without the secret", ErrInvalid, found[0])
	}
	done := s.readLog.add(s, pendingRead{c: c, what: strings.TrimSpace(what), done: make(chan error, 1)})
	return func() error {
		if err := <-done; err != nil {
			return fmt.Errorf("record a scope=all search: %w", err)
		}
		return nil
	}, nil
}

// readLog batches the records of scope=all reads: while one batch is in
// the writer (its append and fsync), the reads that arrive meanwhile wait
// for the next, which takes them all in one operation — one fsync for many
// concurrent reads instead of one each, and the writer's saves are not held
// behind a queue of single-entry operations.
type readLog struct {
	mu      sync.Mutex
	pending []pendingRead
	running bool // a goroutine is committing batches (flush)
}

// pendingRead is one read waiting to be logged; done gets the outcome.
type pendingRead struct {
	c    Caller
	what string
	done chan error
}

// add queues a read and makes sure a flush runs.
func (r *readLog) add(s *Store, p pendingRead) <-chan error {
	r.mu.Lock()
	r.pending = append(r.pending, p)
	start := !r.running
	r.running = true
	r.mu.Unlock()
	if start {
		go r.flush(s)
	}
	return p.done
}

// flush commits the queued reads, a batch at a time, until none is left.
func (r *readLog) flush(s *Store) {
	for {
		r.mu.Lock()
		batch := r.pending
		r.pending = nil
		if len(batch) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		_, err := s.do(context.Background(), func(now time.Time) (*change, error) {
			entries := make([]entry, len(batch))
			for i, p := range batch {
				entries[i] = s.newEntry(opReadAll, p.c, now)
				entries[i].Detail = p.what
			}
			return &change{entries: entries}, nil
		})
		for _, p := range batch {
			p.done <- err
		}
	}
}

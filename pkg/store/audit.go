package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
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
// entry that matched before the limit kept the newest ones. The log spans
// every project, so it is the person's to read.
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
	if f.Limit <= 0 {
		f.Limit = 100
	}
	f.Limit = min(f.Limit, maxLogLimit)
	err = journal.Read(filepath.Join(s.dir, logName), func(line []byte) error {
		var e entry
		if json.Unmarshal(line, &e) != nil {
			return nil // Verify reports damage; a listing skips it
		}
		if (f.Agent != "" && e.Agent.Name != f.Agent) || (f.Session != "" && e.Session != f.Session) || e.Time.Before(since) {
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
// in the log matches the checksum its entry recorded, and that a text is
// missing only where a purge is on record (the chain leaves texts out, so
// that purging does not break it).
func (s *Store) VerifyAudit() (AuditReport, error) {
	path := filepath.Join(s.dir, logName)
	purged := map[string]bool{}
	err := journal.Read(path, func(line []byte) error {
		var e struct {
			Op string `json:"op"`
			ID string `json:"id"`
		}
		if json.Unmarshal(line, &e) == nil && e.Op == opPurge {
			purged[e.ID] = true
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
	return AuditReport{Report: rep, Path: path}, nil
}

// recordReadAll logs a read that looks into every project — widening is
// the one read a person may want to audit — before anything is returned.
// Reads in a narrower scope are not logged.
func (s *Store) recordReadAll(c Caller, scope SearchScope, what string) error {
	if scope != ScopeAll {
		return nil
	}
	// What is logged stays in the log: a query holding a secret is refused
	// rather than written down.
	if found := screen.Field("query", what); len(found) > 0 {
		return fmt.Errorf("%w: the query holds %s, and a scope=all read is logged: search without the secret", ErrInvalid, found[0])
	}
	_, err := s.do(context.Background(), func(now time.Time) (*change, error) {
		e := s.newEntry(opReadAll, c, now)
		e.Detail = strings.TrimSpace(what)
		return &change{entries: []entry{e}}, nil
	})
	if err != nil {
		return fmt.Errorf("record a scope=all search: %w", err)
	}
	return nil
}

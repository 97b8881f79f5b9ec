package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// LogFilter selects log entries.
type LogFilter struct {
	Agent   string
	Session string
	Since   time.Time
	Limit   int // default 100
}

// LogEntry is one mutation as people read it.
type LogEntry struct {
	Seq     int64
	Time    time.Time
	Op      string
	IDs     []string
	Agent   leaf.Agent
	Session string
	Project string
	Summary string
}

// Log lists the log entries matching f, oldest first; matched counts every
// entry that matched before the limit kept the newest ones.
func (s *Store) Log(f LogFilter) (entries []LogEntry, matched int, err error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	err = journal.Read(filepath.Join(s.dir, logName), func(line []byte) error {
		var e entry
		if json.Unmarshal(line, &e) != nil {
			return nil // Verify reports damage; a listing skips it
		}
		if (f.Agent != "" && e.Agent.Name != f.Agent) || (f.Session != "" && e.Session != f.Session) || e.Time.Before(f.Since) {
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
			text := Excerpt(e.Text)
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
		out.Summary = fmt.Sprintf("searched every project for %q", e.Detail)
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
// in the log matches the checksum its entry recorded.
func (s *Store) VerifyAudit() (AuditReport, error) {
	path := filepath.Join(s.dir, logName)
	rep, err := journal.Verify(path, func(line []byte) error {
		var e struct {
			Leaf *leaf.Header `json:"leaf"`
			Text *string      `json:"text"`
		}
		if json.Unmarshal(line, &e) != nil || e.Leaf == nil || e.Text == nil {
			return nil
		}
		if leaf.Checksum(*e.Text) != e.Leaf.Checksum {
			return fmt.Errorf("its text no longer matches the checksum recorded with it")
		}
		return nil
	})
	if err != nil {
		return AuditReport{}, fmt.Errorf("verify log: %w", err)
	}
	return AuditReport{Report: rep, Path: path}, nil
}

// recordReadAll logs a search that looked into every project: widening is
// the one read a person may want to audit.
func (s *Store) recordReadAll(ctx context.Context, c Caller, query string) error {
	_, err := s.do(ctx, func(now time.Time) (*change, error) {
		e := s.newEntry(opReadAll, c, now)
		e.Detail = strings.TrimSpace(query)
		return &change{entries: []entry{e}}, nil
	})
	if err != nil {
		return fmt.Errorf("record a scope=all search: %w", err)
	}
	return nil
}

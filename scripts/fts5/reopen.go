package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The reopen is a process of its own, as ihmtd's restart is: its start,
// the open and the first answer are timed from outside, and its resident
// size is its own, not the runner's (which has held the whole corpus).

// answered is the line the child prints once its first answer is in.
const answered = "answered"

// reopen starts this program again on the loaded database and times it
// from the start until it has answered its first question; it then reads
// the child's search sample and resident size.
func (r *runner) reopen(ctx context.Context, path string, memories int) *Reopen {
	ro := &Reopen{Memories: memories}
	qfile := filepath.Join(r.dir, "reopen-queries.json")
	b, _ := json.Marshal(r.plan.Reopen)
	if err := os.WriteFile(qfile, b, 0o600); err != nil {
		ro.Error = err.Error()
		return ro
	}
	progress("reopen: a new process opens the %d-memory database and answers %d questions", memories, len(r.plan.Reopen.Timed))
	cmd := exec.CommandContext(ctx, r.exe, "-reopen", path, "-queries", qfile, "-project", r.plan.Project, "-limit", fmt.Sprint(r.plan.Limit))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		ro.Error = err.Error()
		return ro
	}
	t := time.Now()
	if err := cmd.Start(); err != nil {
		ro.Error = fmt.Sprintf("start %s: %v", r.exe, err)
		return ro
	}
	child, err := readChild(bufio.NewReader(out), func() { ro.FirstAnswerS = time.Since(t).Seconds() })
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("reopen process: %w", werr)
	}
	if err != nil {
		ro.Error = err.Error()
		return ro
	}
	ro.Search, ro.RSSMiB, ro.MaxRSSMiB = child.Search, child.RSSMiB, child.MaxRSSMiB
	ro.Search.Memories = memories
	return ro
}

// childReport is what the reopen process prints after its answered line.
type childReport struct {
	Search    SearchAt `json:"search"`
	RSSMiB    float64  `json:"rss_mib"`
	MaxRSSMiB float64  `json:"max_rss_mib"`
	Error     string   `json:"error,omitempty"`
}

// readChild reads the child's output: the answered line (first is called
// as it arrives), then its report as one JSON line.
func readChild(out *bufio.Reader, first func()) (childReport, error) {
	var c childReport
	line, err := out.ReadString('\n')
	if strings.TrimSpace(line) != answered {
		if err == nil {
			err = fmt.Errorf("expected %q, got %q", answered, strings.TrimSpace(line))
		}
		return c, fmt.Errorf("reopen process before its first answer: %w", err)
	}
	first()
	rest, err := out.ReadString('\n')
	if err != nil && rest == "" {
		return c, fmt.Errorf("reopen process gave no report: %w", err)
	}
	if err := json.Unmarshal([]byte(rest), &c); err != nil {
		return c, fmt.Errorf("reopen report %q: %w", strings.TrimSpace(rest), err)
	}
	if c.Error != "" {
		return c, errors.New(c.Error)
	}
	return c, nil
}

// childMain is the reopen process: open the database as a tool starting up
// would, answer the first question, say so, then run the sample.
func childMain(ctx context.Context, path, qfile, project string, limit int) error {
	b, err := os.ReadFile(qfile)
	if err != nil {
		return err
	}
	var s Searches
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("queries %s: %w", qfile, err)
	}
	if len(s.Warm)+len(s.Timed) == 0 {
		return errors.New("no questions to answer")
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no database to reopen: %w", err)
	}
	db, err := openDB(ctx, path, 1)
	if err != nil {
		return err
	}
	defer db.Close()
	first := ""
	if len(s.Warm) > 0 {
		first = s.Warm[0]
	} else {
		first = s.Timed[0]
	}
	if _, err := search(ctx, db, first, ScopeDefault, project, limit); err != nil {
		return fmt.Errorf("first answer: %w", err)
	}
	fmt.Println(answered)
	var c childReport
	c.Search = searchSample(ctx, db, &s, ScopeDefault, project, limit)
	if v, ok := selfStatus("VmRSS"); ok {
		c.RSSMiB = mib(v)
	}
	if v, ok := selfStatus("VmHWM"); ok {
		c.MaxRSSMiB = mib(v)
	}
	return json.NewEncoder(os.Stdout).Encode(c)
}

package shim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
	"github.com/ihmt-dev/ihmt/proto/ihmt/v1/markup"
)

// The session family: scratch notes for this session only. The daemon
// holds them, so they survive the agent compacting its context (this
// process keeps running); they are never saved to long-term memory and no
// other session sees them.

func (s *server) addSessionTools(srv *mcp.Server) {
	no := false
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "note",
		Title: "Note for this session",
		Description: "Keep a short note for this session only (a finding, a plan step, a value to reuse): it survives context compaction and is gone when the session ends. " +
			"Not long-term memory: use save_memory for what later sessions need. Secrets are refused.",
		Annotations: &mcp.ToolAnnotations{Title: "Note", ReadOnlyHint: false, IdempotentHint: false, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.note))
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "recall",
		Title:       "Recall this session's notes",
		Description: "Search this session's notes and digested outputs. Returns found (use hits[0]), ambiguous (call again with a clue that tells the candidates apart) or not_found (this session noted nothing like it).",
		Annotations: &mcp.ToolAnnotations{Title: "Recall", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.recall))
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "digest_output",
		Title: "Digest a command output",
		Description: "Condense a long command output (a build, a test run, a log) into a short digest: first lines, every error or failure line with context, test totals (go test, pytest, jest/vitest, cargo, JUnit/Maven), last lines. " +
			"The full text is kept for this session: recall finds any line of it later.",
		Annotations: &mcp.ToolAnnotations{Title: "Digest output", ReadOnlyHint: false, IdempotentHint: false, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.digestOutput))
}

// holder keeps the session's attach stream open for as long as this
// process lives, from the first session or project call on: the daemon
// keeps a session's notes while its stream is up, and lets them go a
// grace period after it breaks for good. A stream and not a heartbeat:
// the daemon learns of an exit the moment the socket closes, without this
// process waking up to say it is still there.
type holder struct{ once sync.Once }

func (h *holder) ensure(c *client.Client, caller *ihmtv1.Caller, log *slog.Logger) {
	h.once.Do(func() {
		attach := &ihmtv1.Caller{AgentName: caller.GetAgentName(), AgentVersion: caller.GetAgentVersion(), SessionId: caller.GetSessionId(), Project: caller.GetProject()}
		go h.run(c, attach, log)
	})
}

// run re-attaches whenever the stream breaks (a restarted daemon, say),
// waiting longer each time it breaks quickly.
func (h *holder) run(c *client.Client, caller *ihmtv1.Caller, log *slog.Logger) {
	wait := 100 * time.Millisecond
	for {
		began := time.Now()
		err := c.Attach(context.Background(), caller, nil)
		log.Debug("session stream ended; attaching again", "err", err, "session", caller.GetSessionId())
		if time.Since(began) > time.Minute {
			wait = 100 * time.Millisecond
		}
		time.Sleep(wait)
		wait = min(2*wait, 10*time.Second)
	}
}

// NoteArgs are note's arguments.
type NoteArgs struct {
	Text string `json:"text" jsonschema:"the note: self-contained, a few lines"`
}

// Usage is what this session holds against its limits.
type Usage struct {
	Entries      int   `json:"entries" jsonschema:"notes and digested outputs this session holds"`
	Bytes        int64 `json:"bytes"`
	BytesLimit   int64 `json:"bytes_limit"`
	DroppedNow   int   `json:"dropped_now" jsonschema:"oldest entries dropped by this call to stay within the limits"`
	DroppedTotal int   `json:"dropped_total"`
}

// NoteResult is note's structured result.
type NoteResult struct {
	ID    string   `json:"id"`
	Usage Usage    `json:"usage"`
	Notes []string `json:"notes"`
}

func usage(u *ihmtv1.SessionUsage) Usage {
	return Usage{Entries: int(u.GetNotes()), Bytes: u.GetBytes(), BytesLimit: u.GetBytesLimit(), DroppedNow: int(u.GetDroppedNow()), DroppedTotal: int(u.GetDroppedTotal())}
}

// usageText says what the session holds, and what was dropped for room.
func usageText(u Usage) string {
	t := fmt.Sprintf("this session holds %s, %s of %s", plural(u.Entries, "entry", "entries"), kib(u.Bytes), kib(u.BytesLimit))
	if u.DroppedNow > 0 {
		t += fmt.Sprintf("; the oldest %s dropped to make room", plural(u.DroppedNow, "entry was", "entries were"))
	}
	return t
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func kib(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

func (s *server) note(ctx context.Context, caller *ihmtv1.Caller, args NoteArgs) (*mcp.CallToolResult, NoteResult, error) {
	s.hold.ensure(s.cfg.Client, caller, s.cfg.Logger)
	resp, err := s.cfg.Client.Note(ctx, &ihmtv1.NoteRequest{Caller: caller, Text: args.Text})
	if err != nil {
		return nil, NoteResult{}, sessionError("note", err)
	}
	out := NoteResult{ID: resp.GetId(), Usage: usage(resp.GetUsage()), Notes: s.notes()}
	return reply(fmt.Sprintf("Noted as %s (%s). recall finds it for the rest of this session.", out.ID, usageText(out.Usage)), out.Notes), out, nil
}

// RecallArgs are recall's arguments.
type RecallArgs struct {
	Query string `json:"query" jsonschema:"what to look for in this session's notes and outputs"`
	Clue  string `json:"clue,omitempty" jsonschema:"a detail that tells apart the candidates of an ambiguous answer"`
	Limit int    `json:"limit,omitempty" jsonschema:"hits to return, 1-20 (default: the best and at most two rivals)"`
}

// RecallHit is one note, or some lines of an output.
type RecallHit struct {
	ID        string  `json:"id"`
	Kind      string  `json:"kind" jsonschema:"note or output"`
	Label     string  `json:"label,omitempty"`
	FirstLine int     `json:"first_line,omitempty"`
	LastLine  int     `json:"last_line,omitempty"`
	Text      string  `json:"text"`
	NotedAt   string  `json:"noted_at"`
	Score     float64 `json:"score"`
}

// RecallResult is recall's structured result.
type RecallResult struct {
	Status     string      `json:"status" jsonschema:"found, ambiguous or not_found"`
	Confidence float64     `json:"confidence"`
	Hits       []RecallHit `json:"hits"`
	Candidates []RecallHit `json:"candidates"`
	Message    string      `json:"message"`
	NextStep   string      `json:"next_step"`
	Searched   int         `json:"searched"`
	Notes      []string    `json:"notes"`
}

var recallNext = map[string]string{
	"found":     "Use hits[0]; it is this session's own note, not long-term memory.",
	"ambiguous": "Call recall again with a clue that tells the candidates apart.",
	"not_found": "This session noted nothing like it: do not invent it.",
}

func (s *server) recall(ctx context.Context, caller *ihmtv1.Caller, args RecallArgs) (*mcp.CallToolResult, RecallResult, error) {
	s.hold.ensure(s.cfg.Client, caller, s.cfg.Logger)
	resp, err := s.cfg.Client.Recall(ctx, &ihmtv1.RecallRequest{Caller: caller, Query: args.Query, Clue: args.Clue, Limit: int32(args.Limit)})
	if err != nil {
		return nil, RecallResult{}, sessionError("recall", err)
	}
	out := RecallResult{
		Status: ihmtv1.SearchStatusName(resp.GetStatus()), Confidence: resp.GetConfidence(), Message: resp.GetMessage(),
		Searched: int(resp.GetSearched()), Hits: recallHits(resp.GetHits()), Candidates: recallHits(resp.GetCandidates()), Notes: s.notes(),
	}
	out.NextStep = recallNext[out.Status]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", out.Status, out.Message)
	for i, h := range out.Hits {
		b.WriteString("\n\n" + strings.TrimSuffix(markup.Quote(fmt.Sprintf("[%d] %s", i+1, hitPlace(h)), strings.TrimRight(h.Text, "\n"), markup.Prose), "\n"))
	}
	for _, h := range out.Candidates {
		fmt.Fprintf(&b, "\n- %s: %s", hitPlace(h), markup.Line(ihmtv1.Excerpt(h.Text, rivalExcerptRunes)))
	}
	b.WriteString("\n" + out.NextStep)
	return reply(b.String(), out.Notes), out, nil
}

func hitPlace(h RecallHit) string {
	if h.Kind == "output" {
		return fmt.Sprintf("%s · output %q lines %d-%d · %s", h.ID, h.Label, h.FirstLine, h.LastLine, h.NotedAt)
	}
	return fmt.Sprintf("%s · note · %s", h.ID, h.NotedAt)
}

func recallHits(hs []*ihmtv1.RecallHit) []RecallHit {
	out := []RecallHit{}
	for _, h := range hs {
		r := RecallHit{ID: h.GetId(), Kind: h.GetKind(), Label: markup.Line(h.GetLabel()), Text: markup.Neutralize(h.GetText(), markup.Prose), NotedAt: rfc3339(h.GetNotedAt()), Score: round3(h.GetScore())}
		if r.Kind == "output" {
			r.FirstLine, r.LastLine = int(h.GetFirstLine()), int(h.GetLastLine())
		}
		out = append(out, r)
	}
	return out
}

// DigestArgs are digest_output's arguments.
type DigestArgs struct {
	Text  string `json:"text" jsonschema:"the command output, whole"`
	Label string `json:"label,omitempty" jsonschema:"what it is, e.g. the command (default: output)"`
}

// DigestResult is digest_output's structured result.
type DigestResult struct {
	ID       string   `json:"id"`
	Digest   string   `json:"digest"`
	Lines    int      `json:"lines"`
	Failures int      `json:"failures" jsonschema:"error or failure lines found"`
	Totals   []string `json:"totals" jsonschema:"test totals recognised"`
	Usage    Usage    `json:"usage"`
	Notes    []string `json:"notes"`
}

func (s *server) digestOutput(ctx context.Context, caller *ihmtv1.Caller, args DigestArgs) (*mcp.CallToolResult, DigestResult, error) {
	s.hold.ensure(s.cfg.Client, caller, s.cfg.Logger)
	resp, err := s.cfg.Client.DigestOutput(ctx, &ihmtv1.DigestOutputRequest{Caller: caller, Text: args.Text, Label: args.Label})
	if err != nil {
		return nil, DigestResult{}, sessionError("digest_output", err)
	}
	out := DigestResult{
		ID: resp.GetId(), Digest: resp.GetDigest(), Lines: int(resp.GetLines()), Failures: int(resp.GetFailures()),
		Totals: resp.GetTotals(), Usage: usage(resp.GetUsage()), Notes: s.notes(),
	}
	if out.Totals == nil {
		out.Totals = []string{}
	}
	msg := fmt.Sprintf("%sKept whole as %s (%s): recall finds any line of it.", out.Digest, out.ID, usageText(out.Usage))
	return reply(msg, out.Notes), out, nil
}

// sessionError is toolError for the session and project families, whose
// not-found is about a path or a session, not a memory.
func sessionError(tool string, err error) error {
	if errors.Is(err, client.ErrNotFound) {
		return fmt.Errorf("%s: %s. Check the path (relative to the project root) and call again", tool, strings.TrimPrefix(err.Error(), client.ErrNotFound.Error()+": "))
	}
	return toolError(tool, err)
}

// Package shim is ihmt-mcp: the MCP server an agent launches over stdio,
// one per session. It keeps no memory state of its own — every tool call
// becomes one call to ihmtd — so any number of agents can share one memory
// through one writer.
//
// It tells the daemon who is asking (the MCP client's name and version and a
// per-session id) and for which project (the client's roots, else the git
// top level of its working directory; IHMT_PROJECT overrides). initialize
// never waits on the daemon: the first tool call dials it, and starts it if
// nobody answers.
//
// The shim must stay small and quick to start, so it depends only on the
// client, the generated API and the MCP SDK — never on the engine (a test
// enforces this).
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
	"github.com/ihmt-dev/ihmt/client/project"
	"github.com/ihmt-dev/ihmt/pkg/instructions"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Instructions is the guidance the server gives the model at initialize:
// the one text `ihmt mcp install` also writes into agents' instruction files.
var Instructions = instructions.Text

// Config is what the shim needs.
type Config struct {
	// Client reaches the daemon; it should have AutoStart set.
	Client *client.Client
	// ProjectOverride is IHMT_PROJECT, if set.
	ProjectOverride string
	// Dir is the working directory, used to find the project when the MCP
	// client offers no roots.
	Dir string
	// SessionID names this session in every memory it writes.
	SessionID string
	// Logger writes to stderr: stdout belongs to the protocol.
	Logger *slog.Logger
}

// NewServer returns the MCP server with IHMT's tools.
func NewServer(cfg Config) *mcp.Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &server{cfg: cfg}
	srv := mcp.NewServer(&mcp.Implementation{Name: "ihmt", Title: "IHMT long-term memory", Version: version.Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       cfg.Logger,
		// Tools only: no logging capability, which the SDK would add by default.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) {
			s.forgetProject()
		},
	})
	no := false
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "search_memory",
		Title: "Search long-term memory",
		// The description is what the model reads when choosing a tool; it
		// says when to call it and what each verdict asks of the caller.
		Description: "Search the user's long-term memory (shared by all their agents) before answering anything that may depend on earlier sessions: preferences, set-up, decisions, people, corrections. " +
			"Returns status found (answer from the first result; relay its notices), ambiguous (do not guess: ask the user, or search again with a clue), or not_found (nothing stored matches: say so).",
		Annotations: &mcp.ToolAnnotations{Title: "Search memory", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, s.search)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "save_memory",
		Title: "Save to long-term memory",
		Description: "Save one durable fact so every later session of every agent can find it: a decision and why, how the machine is set up, a preference, a person, a correction. " +
			"Write it self-contained, with date (YYYY-MM-DD) when it became true if not today. Use scope=\"global\" for facts about the user (preferences, environment, people); the default is the current project. " +
			"When it corrects an earlier memory, pass replaces (its id, or a few words describing it). Never save secrets: they are refused.",
		// Saving is additive and saving the same text twice stores it once.
		Annotations: &mcp.ToolAnnotations{Title: "Save memory", ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, s.save)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "mark_outdated",
		Title: "Mark a memory outdated",
		// Needed when save_memory's replaces matched several memories: the
		// model picks the right one from the candidates it was given.
		Description: "Record that memory new_id corrects memory old_id: the old one stays as history and is never again ranked above the new one. Use it after save_memory returned candidates for replaces, or when search shows a memory that a newer one contradicts.",
		Annotations: &mcp.ToolAnnotations{Title: "Mark outdated", ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, s.markOutdated)
	yes := true
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "forget_memory",
		Title:       "Forget a memory",
		Description: "Forget a memory the user wants gone, by id, with the reason: it leaves every search, and saving the same text again is refused. Only when the user asks; to correct a memory, save the correction with replaces instead.",
		Annotations: &mcp.ToolAnnotations{Title: "Forget memory", ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &yes, OpenWorldHint: &no},
	}, s.forget)
	return srv
}

type server struct {
	cfg Config

	mu            sync.Mutex
	project       string
	projectNote   string
	projectKnown  bool
	rootsGen      int // bumped when the client says its roots changed
	versionWarned bool
}

// SaveArgs are save_memory's arguments.
type SaveArgs struct {
	Content  string   `json:"content" jsonschema:"the fact to remember, self-contained (who or what, the decision and why)"`
	Date     string   `json:"date,omitempty" jsonschema:"when it became true: YYYY-MM-DD (or RFC 3339); omit when it is true from today"`
	Scope    string   `json:"scope,omitempty" jsonschema:"global (about the user: preferences, environment, people) or project (this codebase; the default inside a project)"`
	Domain   string   `json:"domain,omitempty" jsonschema:"optional dotted subject area, e.g. software.go or personal"`
	Tags     []string `json:"tags,omitempty" jsonschema:"optional labels"`
	Replaces string   `json:"replaces,omitempty" jsonschema:"the memory this corrects: its id, or a few words describing it"`
}

// SaveResult is save_memory's structured result.
type SaveResult struct {
	ID          string       `json:"id"`
	IDs         []string     `json:"ids,omitempty" jsonschema:"every memory a long text became, in order"`
	Status      string       `json:"status" jsonschema:"saved, duplicate, pending_review or refused"`
	Scope       string       `json:"scope"`
	Project     string       `json:"project"`
	ValidFrom   string       `json:"valid_from"`
	RecordedAt  string       `json:"recorded_at"`
	Corrections []Correction `json:"corrections"`
	Candidates  []Candidate  `json:"candidates"`
	Message     string       `json:"message,omitempty"`
	Notes       []string     `json:"notes" jsonschema:"things to tell the user about this session"`
}

// Correction names a memory this save superseded.
type Correction struct {
	OldID  string `json:"old_id"`
	Notice string `json:"notice"`
}

// SearchArgs are search_memory's arguments.
type SearchArgs struct {
	Query   string `json:"query" jsonschema:"what to look for, in the user's words"`
	Clue    string `json:"clue,omitempty" jsonschema:"a detail that tells apart the candidates of an ambiguous answer"`
	Scope   string `json:"scope,omitempty" jsonschema:"default (global + this project), project, global, or all (every project: only when the user asks)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"results to return, 1-50 (default: the best and at most two rivals)"`
	Detail  string `json:"detail,omitempty" jsonschema:"compact (default: best memory in full, rivals as one line) or full (every result in full, with ids)"`
	AsOf    string `json:"as_of,omitempty" jsonschema:"answer as things stood on this date (YYYY-MM-DD), e.g. for 'where did I live in 2024?'"`
	KnownAt string `json:"known_at,omitempty" jsonschema:"answer with what the memory had recorded by this date (YYYY-MM-DD)"`
}

// SearchResult is search_memory's structured result.
type SearchResult struct {
	Status     string      `json:"status" jsonschema:"found, ambiguous or not_found"`
	Confidence float64     `json:"confidence"`
	Results    []Result    `json:"results"`
	Candidates []Candidate `json:"candidates"`
	Coverage   Coverage    `json:"coverage"`
	Searched   string      `json:"searched" jsonschema:"what the search could see, e.g. global + project github.com/org/repo"`
	Message    string      `json:"message"`
	NextStep   string      `json:"next_step" jsonschema:"what to do with this answer"`
	Notes      []string    `json:"notes" jsonschema:"things to tell the user about this session"`
}

// nextStep tells the model what each verdict asks of it. It is in the
// structured result too, since some clients show the model only that.
var nextStep = map[string]string{
	"found":     "Answer from results[0]: say when it was saved and where it came from, and relay its notices.",
	"ambiguous": "Do not guess: ask the user which one is meant, or call search_memory again with a clue that tells the candidates apart.",
	"not_found": "The memory holds no answer to this: say so plainly, and do not invent one.",
}

// Result is one memory in a search answer.
type Result struct {
	ID         string   `json:"id"`
	Content    string   `json:"content"`
	Truncated  bool     `json:"truncated,omitempty" jsonschema:"content was clipped: search again with detail=full for all of it"`
	ValidFrom  string   `json:"valid_from"`
	RecordedAt string   `json:"recorded_at"`
	Scope      string   `json:"scope"`
	Project    string   `json:"project"`
	Agent      string   `json:"agent"`
	Session    string   `json:"session"`
	Trust      string   `json:"trust"`
	Current    bool     `json:"current"`
	Notices    []string `json:"notices"`
	Score      float64  `json:"score"`
	TreePath   []string `json:"tree_path,omitempty" jsonschema:"the summary branches above it, root first (only with detail full)"`
}

// Candidate is a memory offered for a choice, not as an answer.
type Candidate struct {
	ID        string `json:"id"`
	Excerpt   string `json:"excerpt"`
	ValidFrom string `json:"valid_from,omitempty"`
}

// Coverage says how much of the store a search examined.
type Coverage struct {
	Exhaustive    bool  `json:"exhaustive"`
	NodesRead     int64 `json:"nodes_read"`
	LeavesScored  int64 `json:"leaves_scored"`
	LeavesVisible int64 `json:"leaves_visible"`
	ViaTree       bool  `json:"via_tree"`
}

func (s *server) save(ctx context.Context, req *mcp.CallToolRequest, args SaveArgs) (*mcp.CallToolResult, SaveResult, error) {
	// Gather every input before any side effect: on the 2026-07-28 protocol
	// asking for roots re-invokes this handler.
	caller, ask := s.caller(ctx, req)
	if ask != nil {
		return ask, SaveResult{}, nil
	}
	scope, err := saveScope(args.Scope)
	if err != nil {
		return nil, SaveResult{}, err
	}
	resp, err := s.cfg.Client.Save(ctx, &ihmtv1.SaveRequest{
		Caller: caller, Content: args.Content, Date: args.Date, Scope: scope, Domain: args.Domain, Tags: args.Tags, Replaces: args.Replaces,
	})
	if err != nil {
		return nil, SaveResult{}, toolError("save_memory", err)
	}
	m := resp.GetMemory()
	out := SaveResult{
		ID:          resp.GetId(),
		IDs:         resp.GetIds(),
		Status:      saveStatus(resp.GetStatus()),
		Scope:       scopeName(m.GetScope()),
		Project:     m.GetProject(),
		ValidFrom:   client.FormatTime(m.GetValidFrom().AsTime()),
		RecordedAt:  m.GetRecordedAt().AsTime().UTC().Format(time.RFC3339),
		Corrections: []Correction{},
		Candidates:  []Candidate{},
		Message:     resp.GetMessage(),
		Notes:       s.notes(),
	}
	if m == nil {
		out.ValidFrom, out.RecordedAt = "", ""
	}
	for _, c := range resp.GetCorrections() {
		out.Corrections = append(out.Corrections, Correction{OldID: c.GetOldId(), Notice: c.GetNotice()})
	}
	for _, c := range resp.GetCandidates() {
		out.Candidates = append(out.Candidates, Candidate{ID: c.GetId(), Excerpt: c.GetExcerpt(), ValidFrom: client.FormatTime(c.GetValidFrom().AsTime())})
	}
	var b strings.Builder
	switch resp.GetStatus() {
	case ihmtv1.SaveStatus_SAVE_STATUS_DUPLICATE:
		fmt.Fprintf(&b, "Already stored as %s (%s, recorded %s); nothing written.", out.ID, client.Where(m), out.RecordedAt[:10])
	case ihmtv1.SaveStatus_SAVE_STATUS_REFUSED:
		fmt.Fprintf(&b, "refused: %s", out.Message)
	case ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW:
		fmt.Fprintf(&b, "pending_review: stored as %s but %s. Tell the user it waits for their review (`ihmt review`); only they may approve it, so do not run that yourself.", out.ID, out.Message)
	default:
		fmt.Fprintf(&b, "Saved as %s (%s, valid from %s).", out.ID, client.Where(m), out.ValidFrom)
	}
	if len(out.IDs) > 1 {
		fmt.Fprintf(&b, " The text was long, so it was stored as %d memories split at block boundaries: %s.", len(out.IDs), strings.Join(out.IDs, ", "))
	}
	for _, c := range out.Corrections {
		fmt.Fprintf(&b, "\nSuperseded %s: %s", c.OldID, c.Notice)
	}
	if len(out.Candidates) > 0 {
		b.WriteString("\n" + out.Message)
		for _, c := range out.Candidates {
			fmt.Fprintf(&b, "\n- %s (%s): %s", c.ID, c.ValidFrom, c.Excerpt)
		}
	}
	writeNotes(&b, out.Notes)
	return text(b.String()), out, nil
}

// MarkArgs are mark_outdated's arguments.
type MarkArgs struct {
	OldID string `json:"old_id" jsonschema:"the memory that is no longer true"`
	NewID string `json:"new_id" jsonschema:"the memory that corrects it"`
}

// MarkResult is mark_outdated's structured result.
type MarkResult struct {
	OldID         string   `json:"old_id"`
	NewID         string   `json:"new_id"`
	Notice        string   `json:"notice"`
	PendingReview bool     `json:"pending_review"`
	Notes         []string `json:"notes"`
}

func (s *server) markOutdated(ctx context.Context, req *mcp.CallToolRequest, args MarkArgs) (*mcp.CallToolResult, MarkResult, error) {
	caller, ask := s.caller(ctx, req)
	if ask != nil {
		return ask, MarkResult{}, nil
	}
	resp, err := s.cfg.Client.MarkOutdated(ctx, &ihmtv1.MarkOutdatedRequest{Caller: caller, OldId: args.OldID, NewId: args.NewID})
	if err != nil {
		return nil, MarkResult{}, toolError("mark_outdated", err)
	}
	out := MarkResult{OldID: args.OldID, NewID: args.NewID, Notice: resp.GetNotice(), PendingReview: resp.GetPendingReview(), Notes: s.notes()}
	msg := fmt.Sprintf("Linked: %s now reads as outdated, superseded by %s.", args.OldID, args.NewID)
	if out.PendingReview {
		msg = fmt.Sprintf("pending_review: %s is a memory the user verified, so the correction %s waits for their review (`ihmt review`; only they may approve it); until then the old value stays current.", args.OldID, args.NewID)
	}
	var b strings.Builder
	b.WriteString(msg)
	writeNotes(&b, out.Notes)
	return text(b.String()), out, nil
}

// ForgetArgs are forget_memory's arguments.
type ForgetArgs struct {
	ID     string `json:"id" jsonschema:"the memory to forget"`
	Reason string `json:"reason" jsonschema:"why, in the user's words; kept in the tombstone"`
}

// ForgetResult is forget_memory's structured result.
type ForgetResult struct {
	ID          string   `json:"id"`
	Status      string   `json:"status"`
	ForgottenAt string   `json:"forgotten_at"`
	Notes       []string `json:"notes"`
}

func (s *server) forget(ctx context.Context, req *mcp.CallToolRequest, args ForgetArgs) (*mcp.CallToolResult, ForgetResult, error) {
	caller, ask := s.caller(ctx, req)
	if ask != nil {
		return ask, ForgetResult{}, nil
	}
	resp, err := s.cfg.Client.Forget(ctx, &ihmtv1.ForgetRequest{Caller: caller, Id: args.ID, Reason: args.Reason})
	if err != nil {
		return nil, ForgetResult{}, toolError("forget_memory", err)
	}
	m := resp.GetMemory()
	out := ForgetResult{ID: m.GetId(), Status: m.GetStatus(), ForgottenAt: m.GetTombstone().GetForgottenAt().AsTime().UTC().Format(time.RFC3339), Notes: s.notes()}
	var b strings.Builder
	fmt.Fprintf(&b, "Forgotten: %s no longer answers any search, and saving the same text again is refused. The user (only they) can undo it with `ihmt restore %s`.", out.ID, out.ID)
	writeNotes(&b, out.Notes)
	return text(b.String()), out, nil
}

func (s *server) search(ctx context.Context, req *mcp.CallToolRequest, args SearchArgs) (*mcp.CallToolResult, SearchResult, error) {
	caller, ask := s.caller(ctx, req)
	if ask != nil {
		return ask, SearchResult{}, nil
	}
	scope, err := searchScope(args.Scope)
	if err != nil {
		return nil, SearchResult{}, err
	}
	full := false
	switch args.Detail {
	case "", "compact":
	case "full":
		full = true
	default:
		return nil, SearchResult{}, fmt.Errorf("detail %q is not one of compact, full", args.Detail)
	}
	if args.Limit < 0 || args.Limit > 50 {
		return nil, SearchResult{}, fmt.Errorf("limit %d is out of range: use 1 to 50", args.Limit)
	}
	resp, err := s.cfg.Client.Search(ctx, &ihmtv1.SearchRequest{
		Caller: caller, Query: args.Query, Clue: args.Clue, Scope: scope, Limit: int32(args.Limit), AsOf: args.AsOf, KnownAt: args.KnownAt,
	})
	if err != nil {
		return nil, SearchResult{}, toolError("search_memory", err)
	}
	out := SearchResult{
		Status:     searchStatus(resp.GetStatus()),
		Confidence: resp.GetConfidence(),
		Results:    []Result{},
		Candidates: []Candidate{},
		Coverage: Coverage{
			Exhaustive:    resp.GetCoverage().GetExhaustive(),
			NodesRead:     resp.GetCoverage().GetNodesRead(),
			LeavesScored:  resp.GetCoverage().GetLeavesScored(),
			LeavesVisible: resp.GetCoverage().GetLeavesVisible(),
			ViaTree:       resp.GetCoverage().GetViaTree(),
		},
		Searched: resp.GetScopeDescription(),
		Message:  resp.GetMessage(),
	}
	for i, r := range resp.GetResults() {
		if !full && args.Limit == 0 && i == compactResults {
			// Compact: the answer and two rivals, as in the text. Asking
			// for a limit, or for detail=full, gets them all.
			break
		}
		m := r.GetMemory()
		notices := r.GetNotices()
		if notices == nil {
			notices = []string{}
		}
		// Compact answers clip long memories in the structured content too:
		// some clients hand the model only that, and five pasted documents
		// would flood its context.
		content, truncated := m.GetContent(), false
		if !full {
			limit := rivalMaxRunes
			if i == 0 {
				limit = compactMaxRunes
			}
			content, truncated = clipContent(content, limit)
		}
		var path []string
		if full {
			path = r.GetTreePath()
		}
		out.Results = append(out.Results, Result{
			ID: m.GetId(), Content: content, Truncated: truncated, ValidFrom: client.FormatTime(m.GetValidFrom().AsTime()),
			RecordedAt: m.GetRecordedAt().AsTime().UTC().Format(time.RFC3339), Scope: scopeName(m.GetScope()),
			Project: m.GetProject(), Agent: agentName(m.GetAgent()), Session: m.GetSessionId(), Trust: trustName(m.GetTrust()),
			Current: r.GetCurrent(), Notices: notices, Score: round3(r.GetScore()), TreePath: path,
		})
	}
	for _, c := range resp.GetCandidates() {
		out.Candidates = append(out.Candidates, Candidate{ID: c.GetId(), Excerpt: c.GetExcerpt(), ValidFrom: client.FormatTime(c.GetValidFrom().AsTime())})
	}
	out.NextStep = nextStep[out.Status]
	out.Notes = s.notes()
	var b strings.Builder
	renderSearch(&b, out, full)
	writeNotes(&b, out.Notes)
	return text(b.String()), out, nil
}

// compactMaxRunes bounds the best memory's text in a compact answer, and
// rivalMaxRunes each other result's: enough for any ordinary memory, while
// pasted documents cannot flood the model's context.
const (
	compactMaxRunes = 6000
	rivalMaxRunes   = 600
	compactResults  = 3
)

// clipContent cuts s to n runes, saying so.
func clipContent(s string, n int) (string, bool) {
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	return string(r[:n]) + fmt.Sprintf("… [%d more characters: search again with detail=\"full\"]", len(r)-n), true
}

// renderSearch writes the answer for the model: the verdict first, then the
// best memory in full with its provenance, then at most two rivals as one
// line each (compact), or every result in full (full).
func renderSearch(b *strings.Builder, out SearchResult, full bool) {
	switch out.Status {
	case "not_found":
		fmt.Fprintf(b, "not_found: %s", out.Message)
		for _, c := range out.Candidates {
			fmt.Fprintf(b, "\nNear miss (not an answer): %s (%s) %s", c.ID, c.ValidFrom, c.Excerpt)
		}
		b.WriteString("\n" + out.NextStep)
		return
	case "ambiguous":
		fmt.Fprintf(b, "ambiguous: %s", out.Message)
		for _, c := range out.Candidates {
			fmt.Fprintf(b, "\n- %s (%s): %s", c.ID, c.ValidFrom, c.Excerpt)
		}
		b.WriteString("\n" + out.NextStep)
		return
	}
	fmt.Fprintf(b, "found (confidence %.2f; searched %s):", out.Confidence, out.Searched)
	for i, r := range out.Results {
		if !full && i >= 3 {
			break
		}
		if i == 0 || full {
			fmt.Fprintf(b, "\n\n[%d] %s · %s · by %s · %s · id %s\n", i+1, r.ValidFrom, whereResult(r), r.Agent, r.Trust, r.ID)
			if len(r.TreePath) > 0 {
				fmt.Fprintf(b, "(in: %s)\n", strings.Join(r.TreePath, " › "))
			}
			b.WriteString(r.Content)
			for _, n := range r.Notices {
				fmt.Fprintf(b, "\nNOTICE: %s", n)
			}
			continue
		}
		if i == 1 {
			b.WriteString("\n\nAlso matching:")
		}
		fmt.Fprintf(b, "\n[%d] %s · %s · id %s: %s", i+1, r.ValidFrom, whereResult(r), r.ID, excerpt(r.Content, 120))
	}
	if full {
		how := "through the index"
		if out.Coverage.ViaTree {
			how = "through the summary tree"
		}
		fmt.Fprintf(b, "\n\ncoverage: exhaustive=%v, %d of %d visible memories scored %s", out.Coverage.Exhaustive, out.Coverage.LeavesScored, out.Coverage.LeavesVisible, how)
	}
}

// notes returns what the user should know about this session: a project
// that could not be determined, a daemon of another version (once). They go
// into the structured result as well as the text, because some clients
// (Claude Code) give the model only the structured content.
func (s *server) notes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	notes := []string{}
	if s.projectNote != "" {
		notes = append(notes, s.projectNote)
	}
	if !s.versionWarned {
		if m := s.cfg.Client.VersionMismatch(); m != "" {
			s.versionWarned = true
			s.cfg.Logger.Warn("version mismatch", "detail", m)
			notes = append(notes, "tell the user: "+m)
		}
	}
	return notes
}

func writeNotes(b *strings.Builder, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(b, "\nNote: %s", n)
	}
}

// caller identifies this session, resolving the project on first use. If
// the project needs the client's roots on the 2026-07-28 protocol, it
// returns the result that asks for them; the SDK calls the handler again
// with the answer.
func (s *server) caller(ctx context.Context, req *mcp.CallToolRequest) (*ihmtv1.Caller, *mcp.CallToolResult) {
	c := &ihmtv1.Caller{AgentName: "unknown-mcp-client", SessionId: s.cfg.SessionID}
	if info := req.ClientInfo(); info != nil && info.Name != "" {
		c.AgentName, c.AgentVersion = info.Name, info.Version
	}
	if c.AgentName == ihmtv1.PersonAgent {
		// An MCP client is an agent, whatever it calls itself: the person's
		// name is the CLI's alone.
		c.AgentName += " (via MCP)"
	}
	s.mu.Lock()
	known, p, gen := s.projectKnown, s.project, s.rootsGen
	s.mu.Unlock()
	if known {
		c.Project = p
		return c, nil
	}
	var roots []string
	if s.cfg.ProjectOverride == "" {
		var ask bool
		roots, ask = s.roots(ctx, req)
		if ask {
			return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}
		}
	}
	key, err := project.Detect(s.cfg.ProjectOverride, roots, s.cfg.Dir)
	note := ""
	if err != nil {
		s.cfg.Logger.Warn("cannot determine the project; using global memories only", "err", err)
		note = fmt.Sprintf("the project could not be determined (%v); this session sees global memories only. Set IHMT_PROJECT to fix it.", err)
		key = ""
	}
	s.mu.Lock()
	// Cache it unless the roots changed while it was being worked out; the
	// next call then works it out again from the new roots.
	if s.rootsGen == gen {
		s.project, s.projectNote, s.projectKnown = key, note, true
	}
	s.mu.Unlock()
	s.cfg.Logger.Info("session project", "project", key, "agent", c.AgentName, "session", c.SessionId)
	c.Project = key
	return c, nil
}

// roots returns the client's root URIs. Roots are deprecated by SEP-2577
// but still what Claude Code and others use to say which project a session
// is in; when they go, the working directory and IHMT_PROJECT remain.
//
// On protocols before 2026-07-28 it
// asks the client directly (a client without roots simply answers with an
// error, and the working directory is used); on 2026-07-28 it must ask
// through an input request, and only if the client declared roots.
func (s *server) roots(ctx context.Context, req *mcp.CallToolRequest) (uris []string, ask bool) {
	var res *mcp.ListRootsResult
	if req.ProtocolVersion() >= "2026-07-28" {
		caps := req.ClientCapabilities()
		if caps == nil || caps.RootsV2 == nil {
			return nil, false
		}
		r, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
		if !ok {
			return nil, true
		}
		res = r
	} else {
		// Ask only a client that declared roots. The SDK cannot tell an
		// empty "roots": {} from no roots at all (its issue #607), so
		// listChanged, which roots-capable clients set, stands for it; a
		// client that declares neither is never sent a request it did not
		// offer to answer (Codex, for one), and its working directory is used.
		caps := req.ClientCapabilities()
		if caps == nil || (!caps.Roots.ListChanged && caps.RootsV2 == nil) {
			return nil, false
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		r, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			s.cfg.Logger.Debug("client offers no roots; using the working directory", "err", err)
			return nil, false
		}
		res = r
	}
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return uris, false
}

func (s *server) forgetProject() {
	s.mu.Lock()
	s.projectKnown = false
	s.rootsGen++
	s.mu.Unlock()
}

// toolError turns a client error into the text the model sees: what went
// wrong and what to do next.
func toolError(tool string, err error) error {
	switch {
	case errors.Is(err, client.ErrInvalid):
		return fmt.Errorf("%s refused: %s. Fix the arguments and call again", tool, strings.TrimPrefix(err.Error(), client.ErrInvalid.Error()+": "))
	case errors.Is(err, client.ErrNotFound):
		return fmt.Errorf("%s: %s. Search for the memory to get its id, then call again", tool, strings.TrimPrefix(err.Error(), client.ErrNotFound.Error()+": "))
	case errors.Is(err, client.ErrConflict):
		return fmt.Errorf("%s: %s", tool, strings.TrimPrefix(err.Error(), client.ErrConflict.Error()+": "))
	case errors.Is(err, client.ErrPermission):
		return fmt.Errorf("%s: %s. Tell the user; do not run the command yourself", tool, strings.TrimPrefix(err.Error(), client.ErrPermission.Error()+": "))
	case errors.Is(err, client.ErrUnavailable):
		return fmt.Errorf("%s failed: the IHMT memory daemon is not reachable (%v). Tell the user; the memory is unavailable until it runs", tool, err)
	}
	return fmt.Errorf("%s failed: %v", tool, err)
}

func saveScope(s string) (ihmtv1.Scope, error) {
	switch s {
	case "":
		return ihmtv1.Scope_SCOPE_UNSPECIFIED, nil
	case "global":
		return ihmtv1.Scope_SCOPE_GLOBAL, nil
	case "project":
		return ihmtv1.Scope_SCOPE_PROJECT, nil
	}
	return 0, fmt.Errorf("scope %q is not one of global, project", s)
}

func searchScope(s string) (ihmtv1.SearchScope, error) {
	switch s {
	case "", "default":
		return ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED, nil
	case "project":
		return ihmtv1.SearchScope_SEARCH_SCOPE_PROJECT, nil
	case "global":
		return ihmtv1.SearchScope_SEARCH_SCOPE_GLOBAL, nil
	case "all":
		return ihmtv1.SearchScope_SEARCH_SCOPE_ALL, nil
	}
	return 0, fmt.Errorf("scope %q is not one of default, project, global, all", s)
}

func saveStatus(s ihmtv1.SaveStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "SAVE_STATUS_"))
}

func searchStatus(s ihmtv1.SearchStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "SEARCH_STATUS_"))
}

func scopeName(s ihmtv1.Scope) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "SCOPE_"))
}

func trustName(t ihmtv1.Trust) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "TRUST_"))
}

func agentName(a *ihmtv1.Agent) string {
	if a.GetVersion() == "" {
		return a.GetName()
	}
	return a.GetName() + " " + a.GetVersion()
}

func whereResult(r Result) string {
	if r.Scope == "project" {
		return "project " + r.Project
	}
	return "global"
}

// excerpt is the opening of a text on one line.
func excerpt(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "…"
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

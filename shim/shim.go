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
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/client/instructions"
	"github.com/ihmt-dev/ihmt/client/project"
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
	// Tools are the tool families served (memory, session, project); nil
	// means all three (see toolbox.go).
	Tools []string
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
	}, withCaller(s, s.search))
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "save_memory",
		Title: "Save to long-term memory",
		Description: "Save one durable fact so every later session of every agent can find it: a decision and why, how the machine is set up, a preference, a person, a correction. " +
			"Write it self-contained. Pass date (YYYY-MM-DD) whenever the text speaks of a time other than now — a meeting, a past change, a note copied from a log: without it the memory is dated at the save and reads as the current value, overriding facts that are really newer. Use scope=\"global\" for facts about the user (preferences, environment, people); the default is the current project. " +
			"When it corrects an earlier memory, pass replaces (its id, or a few words describing it). Never save secrets: they are refused.",
		// Saving is additive and saving the same text twice stores it once.
		Annotations: &mcp.ToolAnnotations{Title: "Save memory", ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.save))
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "mark_outdated",
		Title: "Mark a memory outdated",
		// Needed when save_memory's replaces matched several memories: the
		// model picks the right one from the candidates it was given.
		Description: "Record that memory new_id corrects memory old_id: the old one stays as history and is never again ranked above the new one. Use it after save_memory returned candidates for replaces, or when search shows a memory that a newer one contradicts.",
		Annotations: &mcp.ToolAnnotations{Title: "Mark outdated", ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.markOutdated))
	yes := true
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "forget_memory",
		Title:       "Forget a memory",
		Description: "Forget a memory the user wants gone, by id, with the reason: it leaves every search, and saving the same text again is refused. Only when the user asks; to correct a memory, save the correction with replaces instead.",
		Annotations: &mcp.ToolAnnotations{Title: "Forget memory", ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &yes, OpenWorldHint: &no},
	}, withCaller(s, s.forget))
	s.addToolbox(srv)
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
	rootDir       string // where the project tools work (project.RootDir)
	hold          holder // the session's attach stream (session_tools.go)
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
	rootDir, _ := project.RootDir(roots, s.cfg.Dir)
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
		s.rootDir = rootDir
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

// withCaller is what every tool does first: identify the session and its
// project. When the project needs the client's roots on the 2026-07-28
// protocol, it answers with the request for them and the SDK calls the tool
// again with the answer — so a handler gathers every input before its first
// side effect, and runs once.
func withCaller[In, Out any](s *server, h func(context.Context, *ihmtv1.Caller, In) (*mcp.CallToolResult, Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
		caller, ask := s.caller(ctx, req)
		if ask != nil {
			var none Out
			return ask, none, nil
		}
		return h(ctx, caller, args)
	}
}

// reply is a tool's text: what it has to say, then the session's notes.
func reply(msg string, notes []string) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString(msg)
	for _, n := range notes {
		fmt.Fprintf(&b, "\nNote: %s", n)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
}

// rfc3339 is a record time as the tools show it.
func rfc3339(ts *timestamppb.Timestamp) string { return ts.AsTime().UTC().Format(time.RFC3339) }

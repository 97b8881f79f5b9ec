package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/client/project"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// `ihmt context` is what the agents' hooks run: memory that arrives without
// being asked. At a session start it prints the store's briefing for the
// project of the hook's working directory (ContextService.Brief); with each
// prompt it searches the prompt (MemoryService.Search) and prints only a
// confident found answer — one or two memories, with their dates and
// OUTDATED notices — never an ambiguous or not-found one, and never a
// memory this session was already given.
//
// A hook must never hold up or break a session: whatever goes wrong (no
// daemon, a malformed input, a refused query), the command prints nothing on
// stdout, says why on stderr, and exits 0. It waits at most hookTimeout,
// starting ihmtd if none runs, so that the next prompt finds it up.

// The events a hook reports, as Claude Code and Codex name them (the
// opencode plugin uses the same names): the two ihmt handles, whatever a
// client calls them.
const (
	eventStart  = "SessionStart"
	eventPrompt = "UserPromptSubmit"
)

// hookTimeout bounds one hook's call: a session start waits for it.
const hookTimeout = 2 * time.Second

// maxHookInput bounds what a hook reads on stdin: a prompt and its fields.
const maxHookInput = 1 << 20

// hookInputWait bounds the wait for the hook's JSON on stdin. An agent may
// write its JSON and keep stdin open, so the hook reads one JSON value and
// goes on; one that writes nothing at all in this time gets nothing.
const hookInputWait = time.Second

// hookMaxChars bounds what a hook prints for the model, per client,
// whatever the budget in tokens says (ids and dates cost more than four
// characters a token). Claude Code cuts a hook's output at 10,000
// characters; Codex, opencode, Gemini CLI and Copilot CLI document no cap
// that low (Copilot's is 10 MiB), so they get the same one, with room for
// the JSON around the text.
var hookMaxChars = map[string]int{"claude": 9000, "codex": 9000, "opencode": 9000, "gemini": 9000, "copilot": 9000}

// hookTokenCap is the budget in tokens a client's cap leaves: the store's
// estimate is four characters a token, and the fence adds a few per line.
func hookTokenCap(client string) int {
	return hookMaxChars[client] * 3 / 4 / 4
}

// hookInput is what a client sends a command hook on stdin; unknown fields
// are ignored. Claude Code, Codex and Gemini CLI send snake_case fields
// (the opencode plugin sends the same); Copilot CLI sends camelCase ones
// (sessionId) and no event name to the hooks IHMT installs, which say it
// with --event.
type hookInput struct {
	SessionID      string `json:"session_id"`
	SessionIDCamel string `json:"sessionId"`
	Cwd            string `json:"cwd"`
	// Event is the client's name for the event, until readHookInput
	// translates it to eventStart or eventPrompt.
	Event  string `json:"hook_event_name"`
	Source string `json:"source"` // startup, resume, clear, compact (Copilot: new)
	Prompt string `json:"prompt"`
}

// hookClient is what ihmt knows of one client's hooks.
type hookClient struct {
	// agent is the name the hook calls the daemon as: not the person, so
	// that it has an agent's rights.
	agent string
	// events maps the client's event names to eventStart and eventPrompt.
	events map[string]string
}

// claudeEvents are Claude Code's names, which Codex and opencode share.
var claudeEvents = map[string]string{eventStart: eventStart, eventPrompt: eventPrompt}

// hookClients are the clients `--hook` knows.
var hookClients = map[string]hookClient{
	"claude":   {"claude-code-hook", claudeEvents},
	"codex":    {"codex-hook", claudeEvents},
	"opencode": {"opencode-hook", claudeEvents},
	// Gemini CLI 0.61: SessionStart, and BeforeAgent once a prompt is
	// submitted (its docs/hooks/reference.md).
	"gemini": {"gemini-cli-hook", map[string]string{eventStart: eventStart, "BeforeAgent": eventPrompt}},
	// Copilot CLI 1.0.102 names its events sessionStart and
	// userPromptSubmitted, but sends their names only to hooks configured
	// under the PascalCase names it also accepts (Claude Code's).
	"copilot": {"copilot-cli-hook", map[string]string{eventStart: eventStart, eventPrompt: eventPrompt, "sessionStart": eventStart, "userPromptSubmitted": eventPrompt}},
}

// hookClientList names the --hook clients for people.
const hookClientList = "claude, codex, opencode, gemini or copilot"

func cmdContext(e *env, args []string) error {
	fs, asJSON := e.flags("context", "")
	hook := fs.String("hook", "", "run as CLIENT's hook ("+hookClientList+"): read its JSON on stdin, print its format, never fail")
	event := fs.String("event", "", "start or prompt (default: the hook input's hook_event_name, else start)")
	prompt := fs.String("prompt", "", "the prompt to search, for --event prompt without a hook")
	maxTokens := fs.Int("max-tokens", 0, "the budget in tokens (default: config.toml's [context], else 800 at a start, 300 per prompt)")
	noStart := fs.Bool("no-start", false, "do not start ihmtd when none runs")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	if *hook != "" {
		if _, ok := hookClients[*hook]; !ok {
			return usageError{fmt.Sprintf("unknown --hook %q: use %s", *hook, hookClientList)}
		}
	}
	in := hookInput{Prompt: *prompt}
	begin := time.Now()
	if *hook != "" {
		if err := readHookInput(os.Stdin, *hook, &in, hookInputWait); err != nil {
			return e.hookFailed(err)
		}
		if in.Prompt == "" {
			in.Prompt = *prompt
		}
	}
	switch *event {
	case "":
	case "start":
		in.Event = eventStart
	case "prompt":
		in.Event = eventPrompt
	default:
		return usageError{fmt.Sprintf("unknown --event %q: use start or prompt", *event)}
	}
	if in.Event == "" {
		in.Event = eventStart
	}
	h := hookRun{e: e, client: *hook, in: in, maxTokens: *maxTokens, autoStart: !*noStart, deadline: begin.Add(hookTimeout)}
	out, err := h.run()
	if err != nil {
		if *hook != "" {
			return e.hookFailed(err)
		}
		return err
	}
	return h.print(out, *asJSON)
}

// hookFailed reports why a hook injects nothing, on stderr, and succeeds:
// the session goes on without memory rather than not at all.
func (e *env) hookFailed(err error) error {
	fmt.Fprintf(e.stderr, "ihmt context: nothing injected: %v\n", err)
	return nil
}

// readHookInput reads the hook's JSON: one JSON value, however long the
// agent keeps stdin open after it, bounded in size and in time (wait).
// Nothing at all on a closed stdin is a run by hand.
func readHookInput(r io.Reader, client string, in *hookInput, wait time.Duration) error {
	type read struct {
		raw json.RawMessage
		n   int64
		err error
	}
	got := make(chan read, 1)
	go func() {
		lr := &io.LimitedReader{R: r, N: maxHookInput + 1}
		var raw json.RawMessage
		err := json.NewDecoder(lr).Decode(&raw)
		got <- read{raw, maxHookInput + 1 - lr.N, err}
	}()
	var x read
	select {
	case x = <-got:
	case <-time.After(wait):
		return fmt.Errorf("no hook input within %s: the agent must write its JSON on stdin", wait)
	}
	switch {
	case x.err == io.EOF:
		return nil // run by hand: the working directory, a session start
	case x.err != nil && x.n > maxHookInput:
		return fmt.Errorf("the hook's input is over %d bytes", maxHookInput)
	case x.err != nil:
		return fmt.Errorf("the hook's input is not JSON (%v): run it from the agent's hook, or without --hook", x.err)
	}
	if err := json.Unmarshal(x.raw, in); err != nil {
		return fmt.Errorf("the hook's input is not JSON (%v): run it from the agent's hook, or without --hook", err)
	}
	if in.SessionID == "" {
		in.SessionID = in.SessionIDCamel
	}
	if in.Event != "" {
		ev, ok := hookClients[client].events[in.Event]
		if !ok {
			return fmt.Errorf("hook event %q is not one ihmt handles for %s (%s): remove it from the agent's hooks", clipRunes(in.Event, 40), client, strings.Join(slices.Sorted(maps.Keys(hookClients[client].events)), ", "))
		}
		in.Event = ev
	}
	if in.Event == "" && client == "copilot" && in.Prompt != "" {
		in.Event = eventPrompt // Copilot's userPromptSubmitted sends a prompt; its sessionStart an initialPrompt
	}
	if client == "gemini" {
		in.Prompt = withoutHookContext(in.Prompt)
	}
	return nil
}

// withoutHookContext is a Gemini CLI prompt without the hooks' context it
// prepends: run with -p, Gemini CLI puts the session-start hooks' text
// before the person's prompt, as "<hook_context>…</hook_context>\n\n", and
// hands the BeforeAgent hook that — the briefing is not what to search.
// Gemini CLI escapes "<" and ">" in a hook's text, so the first closing tag
// is the block's own.
func withoutHookContext(prompt string) string {
	const open, end = "<hook_context>", "</hook_context>"
	for {
		rest := strings.TrimLeft(prompt, " \t\r\n")
		if !strings.HasPrefix(rest, open) {
			return prompt
		}
		i := strings.Index(rest, end)
		if i < 0 {
			return prompt
		}
		prompt = rest[i+len(end):]
	}
}

// hookRun is one run of `ihmt context`.
type hookRun struct {
	e         *env
	client    string // the --hook client, or ""
	in        hookInput
	maxTokens int
	autoStart bool
	// deadline is when the hook must have answered: hookTimeout from its
	// start, whatever reading its input took.
	deadline time.Time
}

// injection is what a run prints: the text for the model and what it holds.
type injection struct {
	Event   string   `json:"event"`
	Project string   `json:"project"`
	Text    string   `json:"text"`
	Tokens  int      `json:"tokens"`
	IDs     []string `json:"ids"`
	LeftOut int      `json:"left_out"`
	// Skipped says why a prompt injected nothing (not found, ambiguous,
	// already given, off).
	Skipped string `json:"skipped,omitempty"`
}

func (h *hookRun) run() (injection, error) {
	cwd := h.in.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	key, err := project.Detect(h.e.proj, nil, cwd)
	if err != nil {
		return injection{}, fmt.Errorf("determine the project of %s: %w (set IHMT_PROJECT)", cwd, err)
	}
	agent := hookClients[h.client].agent
	if agent == "" {
		agent = ihmtv1.PersonAgent
	}
	session := h.in.SessionID
	if session == "" {
		session = client.NewSessionID()
	}
	if h.deadline.IsZero() {
		h.deadline = time.Now().Add(hookTimeout)
	}
	c, err := client.New(client.Options{Socket: h.e.socket, AutoStart: h.autoStart, StartTimeout: max(time.Until(h.deadline), time.Millisecond),
		Caller: &ihmtv1.Caller{AgentName: agent, AgentVersion: version.Version, SessionId: clipRunes(session, 120), Project: key}})
	if err != nil {
		return injection{}, err
	}
	defer c.Close()
	ctx, cancel := context.WithDeadline(h.e.ctx, h.deadline)
	defer cancel()
	seen := openSeen(c.Socket(), h.client, h.in.SessionID)
	out := injection{Event: h.in.Event, Project: key, IDs: []string{}}
	if h.in.Event == eventPrompt {
		err = h.prompt(ctx, c, seen, &out)
	} else {
		err = h.start(ctx, c, seen, &out)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return out, fmt.Errorf("ihmtd did not answer within %s (a large store still opening?): %w; `ihmt doctor` says more", hookTimeout, err)
		}
		return out, err
	}
	return out, nil
}

// start is a session start: the briefing. A new conversation (startup,
// clear, compact) starts its record of what it was given afresh; a resumed
// one keeps it.
func (h *hookRun) start(ctx context.Context, c *client.Client, seen *seenFile, out *injection) error {
	budget, err := h.budget(ctx, c, func(s *ihmtv1.SettingsResponse) int { return int(s.GetStartTokens()) })
	if err != nil {
		return err
	}
	b, err := c.Brief(ctx, &ihmtv1.BriefRequest{MaxTokens: int32(budget)})
	if err != nil {
		return err
	}
	var shown []*ihmtv1.BriefItem
	out.Text, shown = fenceBriefing(b, hookMaxChars[h.client])
	out.Tokens, out.LeftOut = estimateTokens(out.Text), int(b.GetLeftOut())+len(b.GetItems())-len(shown)
	for _, it := range shown {
		out.IDs = append(out.IDs, it.GetId())
	}
	if h.in.Source != "resume" {
		seen.reset()
	}
	seen.add(out.IDs)
	return nil
}

func (h *hookRun) print(out injection, asJSON bool) error {
	if asJSON && h.client == "" {
		return h.e.printJSON(out)
	}
	if out.Text == "" {
		if out.Skipped != "" && h.client == "" {
			fmt.Fprintf(h.e.stderr, "nothing to inject: %s\n", out.Skipped)
		}
		return nil
	}
	switch h.client {
	case "claude", "codex", "gemini":
		// All three read hookSpecificOutput.additionalContext for these
		// two events and add it to the model's context (Gemini CLI to the
		// prompt, as <hook_context>).
		return writeHookJSON(h.e.stdout, map[string]any{
			"hookSpecificOutput": map[string]string{"hookEventName": h.clientEvent(out.Event), "additionalContext": out.Text},
		})
	case "copilot":
		// Copilot CLI reads additionalContext at the top level, for both.
		return writeHookJSON(h.e.stdout, map[string]string{"additionalContext": out.Text})
	}
	_, err := io.WriteString(h.e.stdout, out.Text)
	return err
}

// clientEvent is the client's name for an event ihmt handles, as its hook
// output must echo it.
func (h *hookRun) clientEvent(event string) string {
	if h.client == "gemini" && event == eventPrompt {
		return "BeforeAgent"
	}
	return event
}

// writeHookJSON prints a hook's JSON answer. Not HTML-escaped: the fence
// writes "&lt;", which "\u0026lt;" would make six times longer against
// the client's cap.
func writeHookJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// seenFile records which memories one agent session was given, so that a
// prompt never injects one twice. It lives in the runtime directory beside
// the daemon's socket — private to the user (0700), gone at logout on
// systems that clear it — and not in the store: it is a session's
// scratch, not memory, and the daemon keeps no per-session state. One small
// file per session, named by a hash of the client and session id; files
// untouched for seenMaxAge are removed whenever a session starts.
type seenFile struct {
	path string // "" when there is no session to record
	ids  map[string]bool
}

const seenMaxAge = 7 * 24 * time.Hour

func openSeen(socket, hookClient, session string) *seenFile {
	s := &seenFile{ids: map[string]bool{}}
	if session == "" {
		return s
	}
	sum := sha256.Sum256([]byte(hookClient + "\x00" + session))
	s.path = filepath.Join(filepath.Dir(socket), "sessions", hex.EncodeToString(sum[:16]))
	if data, err := os.ReadFile(s.path); err == nil {
		for _, id := range strings.Fields(string(data)) {
			s.ids[id] = true
		}
	}
	return s
}

// reset forgets what the session was given (its context was cleared or
// compacted), and removes other sessions' files grown old.
func (s *seenFile) reset() {
	if s.path == "" {
		return
	}
	clear(s.ids)
	os.Remove(s.path)
	dir := filepath.Dir(s.path)
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if fi, err := en.Info(); err == nil && time.Since(fi.ModTime()) > seenMaxAge {
			os.Remove(filepath.Join(dir, en.Name()))
		}
	}
}

// add records ids as given. A failure to record only means a later prompt
// may repeat one; it never fails the hook.
func (s *seenFile) add(ids []string) {
	if s.path == "" || len(ids) == 0 {
		return
	}
	for _, id := range ids {
		s.ids[id] = true
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(strings.Join(ids, "\n") + "\n")
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

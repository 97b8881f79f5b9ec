package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/daemon"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

const contextProject = "github.com/acme/shop"

// startContextDaemon is startTestDaemon that also returns the store
// directory, where config.toml goes.
func startContextDaemon(t *testing.T) (sock, data string) {
	t.Helper()
	sock, data = testenv.Socket(t), filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Config{Paths: paths.Paths{Data: data, Socket: sock}, Logger: slog.New(slog.DiscardHandler)})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("daemon did not stop")
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var out, errb bytes.Buffer
		if Run(context.Background(), []string{"--socket", sock, "daemon", "status"}, &out, &errb) == exitOK {
			return sock, data
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not serving: %s %s", out.String(), errb.String())
		}
	}
}

// hookRun runs the real ihmt binary as an agent's hook would: the hook's
// JSON on stdin, IHMT_PROJECT fixed, HOME and IHMT_HOME private to the test.
func runHook(t *testing.T, bin, sock string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--socket", sock}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "IHMT_HOME=" + filepath.Join(home, "store"), "IHMT_PROJECT=" + contextProject, "PATH=" + os.Getenv("PATH")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", bin, err)
	}
	return code, out.String(), errb.String()
}

func hookJSON(t *testing.T, session, event, source, prompt string) string {
	b, err := json.Marshal(map[string]string{"session_id": session, "cwd": t.TempDir(), "hook_event_name": event, "source": source, "prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// clientHook is what client sends the hook IHMT installs for it, for
// event (eventStart or eventPrompt), as that client writes it: its stdin and
// the arguments after `context`. Gemini CLI names the prompt's event
// BeforeAgent and, run with -p, puts the session-start hooks' text before
// the prompt; Copilot CLI writes camelCase fields and no event name (the
// installed command says it with --event).
func clientHook(t *testing.T, client, session, event, source, prompt string) (stdin string, args []string) {
	t.Helper()
	args = []string{"context", "--hook", client}
	var v map[string]any
	switch client {
	case "gemini":
		v = map[string]any{"session_id": session, "transcript_path": "/tmp/chat.jsonl", "cwd": t.TempDir(), "hook_event_name": event, "timestamp": "2026-12-07T22:13:48.856Z"}
		if event == eventStart {
			v["source"] = source
		} else {
			v["hook_event_name"] = "BeforeAgent"
			v["prompt"] = "<hook_context>IHMT memory for " + contextProject + " (what the briefing says: Valencia, Marta)</hook_context>\n\n" + prompt
		}
	case "copilot":
		v = map[string]any{"sessionId": session, "timestamp": 1796681598511, "cwd": t.TempDir()}
		if event == eventStart {
			v["source"], v["initialPrompt"] = "new", "hello"
			args = append(args, "--event", "start")
		} else {
			v["prompt"] = prompt
			args = append(args, "--event", "prompt")
		}
	default:
		return hookJSON(t, session, event, source, prompt), args
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), args
}

// hookClientNames are the clients `ihmt context --hook` serves.
var hookClientNames = []string{"claude", "codex", "opencode", "gemini", "copilot"}

// additionalContext reads what a Claude Code, Codex or Gemini CLI hook
// printed; "" for nothing at all.
func additionalContext(t *testing.T, out, event string) string {
	t.Helper()
	if strings.TrimSpace(out) == "" {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("hook output is not the clients' JSON (%v): %q", err, out)
	}
	if v.HookSpecificOutput.HookEventName != event {
		t.Fatalf("hookEventName %q, want %q", v.HookSpecificOutput.HookEventName, event)
	}
	return v.HookSpecificOutput.AdditionalContext
}

// TestContextHook runs `ihmt context --hook` as each client's hooks run it,
// over a real socket: the briefing at a start, and per prompt only a
// confident found answer, once a session.
func TestContextHook(t *testing.T) {
	bin := testenv.Built(t).CLI
	sock, data := startContextDaemon(t)
	saveIn := func(proj string, args ...string) string {
		var out, errb bytes.Buffer
		if code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", proj, "save", "--json"}, args...), &out, &errb); code != 0 {
			t.Fatalf("save %q: %d %s", args, code, errb.String())
		}
		var v struct{ ID string }
		json.Unmarshal(out.Bytes(), &v)
		return v.ID
	}
	save := func(args ...string) string { return saveIn(contextProject, args...) }
	port := save("--scope", "project", "--date", "2025-06-01", "The shop's staging database listens on port 5433, not the default.")
	save("--scope", "project", "Marta Ruiz designs the checkout pages of the shop.")
	save("--scope", "project", "Marta Gil keeps the books of the shop's invoices.")
	save("--scope", "global", "--date", "2025-03-10", "I live in Valencia now.")
	saveIn("github.com/acme/other", "--scope", "project", "The other project's staging database listens on port 6544.")

	const portPrompt = "which port does the staging database listen on?"
	tests := []struct {
		name, client, session, event, source, prompt string
		want, not                                    []string // in what is injected; want nil: nothing injected
	}{
		{"start claude", "claude", "s-start", "SessionStart", "startup", "", []string{"Valencia", "search_memory", contextProject}, []string{"6544"}},
		{"start codex", "codex", "s-start", "SessionStart", "startup", "", []string{"Valencia"}, []string{"6544"}},
		{"start opencode", "opencode", "s-start", "SessionStart", "startup", "", []string{"Valencia"}, nil},
		{"start gemini", "gemini", "s-start", "SessionStart", "startup", "", []string{"Valencia", contextProject}, []string{"6544"}},
		{"start copilot", "copilot", "s-start", "SessionStart", "new", "", []string{"Valencia", contextProject}, []string{"6544"}},
		{"confident prompt", "claude", "s-prompt", "UserPromptSubmit", "", portPrompt, []string{"5433", port, "2025-06-01"}, []string{"6544"}},
		{"the same memory again in that session", "claude", "s-prompt", "UserPromptSubmit", "", portPrompt, nil, nil},
		{"another session gets it", "codex", "s-prompt", "UserPromptSubmit", "", portPrompt, []string{"5433"}, nil},
		{"gemini prompt, behind its hook context", "gemini", "s-prompt", "UserPromptSubmit", "", portPrompt, []string{"5433", port}, []string{"6544"}},
		{"gemini, the same memory again", "gemini", "s-prompt", "UserPromptSubmit", "", portPrompt, nil, nil},
		{"gemini, its hook context alone", "gemini", "s-ctx", "UserPromptSubmit", "", "", nil, nil},
		{"copilot prompt", "copilot", "s-prompt", "UserPromptSubmit", "", portPrompt, []string{"5433", port}, []string{"6544"}},
		{"copilot, ambiguous", "copilot", "s-amb", "UserPromptSubmit", "", "what does Marta do?", nil, nil},
		{"ambiguous prompt", "claude", "s-amb", "UserPromptSubmit", "", "what does Marta do?", nil, nil},
		{"not found prompt", "claude", "s-nf", "UserPromptSubmit", "", "what colour is the office's front door?", nil, nil},
		{"empty prompt", "claude", "s-empty", "UserPromptSubmit", "", "   ", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin, args := clientHook(t, tt.client, tt.session, tt.event, tt.source, tt.prompt)
			code, out, errs := runHook(t, bin, sock, stdin, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			got := hookText(t, tt.client, out, tt.event)
			if tt.want == nil {
				if got != "" {
					t.Fatalf("injected, and must not be:\n%s", got)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("injection lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("injection holds %q (another project's):\n%s", n, got)
				}
			}
		})
	}

	// A memory given in the briefing is not given again with a prompt; a
	// compaction starts the record afresh (positive control).
	start := hookJSON(t, "s-brief", "SessionStart", "startup", "")
	if _, out, _ := runHook(t, bin, sock, start, "context", "--hook", "claude"); !strings.Contains(additionalContext(t, out, "SessionStart"), port) {
		t.Fatalf("the briefing lacks the port memory:\n%s", out)
	}
	if _, out, _ := runHook(t, bin, sock, hookJSON(t, "s-brief", "UserPromptSubmit", "", portPrompt), "context", "--hook", "claude"); out != "" {
		t.Fatalf("a memory from the briefing was injected again:\n%s", out)
	}

	// The switch: prompt = false in config.toml turns the per-prompt
	// injection off, at the next prompt, without a restart.
	writeFile(t, filepath.Join(data, "config.toml"), "[context]\nprompt = false\n")
	if _, out, _ := runHook(t, bin, sock, hookJSON(t, "s-off", "UserPromptSubmit", "", portPrompt), "context", "--hook", "claude"); out != "" {
		t.Fatalf("per-prompt injection is off, yet:\n%s", out)
	}
	writeFile(t, filepath.Join(data, "config.toml"), "[context]\nprompt_tokens = 10\n")
	if code, out, errs := runHook(t, bin, sock, hookJSON(t, "s-bad", "UserPromptSubmit", "", portPrompt), "context", "--hook", "claude"); code != 0 || out != "" || !strings.Contains(errs, "prompt_tokens = 10") {
		t.Fatalf("a bad setting: exit %d, out %q, stderr %q; want 0, nothing, the setting named", code, out, errs)
	}
	writeFile(t, filepath.Join(data, "config.toml"), "[context]\nprompt = true\nstart_tokens = 150\n")
	if _, out, _ := runHook(t, bin, sock, hookJSON(t, "s-on", "UserPromptSubmit", "", portPrompt), "context", "--hook", "claude"); !strings.Contains(out, "5433") {
		t.Fatalf("per-prompt injection back on, yet nothing:\n%s", out)
	}
}

// TestContextHookNeverFails: whatever goes wrong, a hook exits 0, prints
// nothing for the model and says why on stderr.
func TestContextHookNeverFails(t *testing.T) {
	bin := testenv.Built(t).CLI
	down := filepath.Join(testenv.SocketDir(t), "none.sock")
	tests := []struct {
		name, client, stdin, sock string
		args                      []string
		why                       string
	}{
		{"daemon down", "claude", hookJSON(t, "s", "SessionStart", "startup", ""), down, []string{"--no-start"}, "no daemon is running"},
		{"daemon down, a prompt", "claude", hookJSON(t, "s", "UserPromptSubmit", "", "which port?"), down, []string{"--no-start"}, "no daemon is running"},
		{"not JSON", "claude", "{garbage", down, nil, "not JSON"},
		{"an event ihmt does not handle", "claude", `{"hook_event_name":"PreToolUse"}`, down, nil, "PreToolUse"},
		{"gemini: daemon down, a prompt", "gemini", `{"session_id":"s","hook_event_name":"BeforeAgent","prompt":"which port?"}`, down, []string{"--no-start"}, "no daemon is running"},
		{"gemini: empty stdin, daemon down", "gemini", "", down, []string{"--no-start"}, "no daemon is running"},
		{"gemini: not JSON", "gemini", `{"hook_event_name":"BeforeAgent",`, down, nil, "not JSON"},
		{"gemini: an event ihmt does not handle", "gemini", `{"hook_event_name":"AfterModel"}`, down, nil, "AfterModel"},
		{"gemini: over the input bound", "gemini", `{"prompt":"` + strings.Repeat("x", maxHookInput) + `"}`, down, nil, "over"},
		{"copilot: daemon down, a prompt", "copilot", `{"sessionId":"s","prompt":"which port?"}`, down, []string{"--no-start", "--event", "prompt"}, "no daemon is running"},
		{"copilot: not JSON", "copilot", "\x00\xff", down, []string{"--event", "start"}, "not JSON"},
		{"copilot: an event ihmt does not handle", "copilot", `{"hook_event_name":"postToolUse"}`, down, nil, "postToolUse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runHook(t, bin, tt.sock, tt.stdin, append([]string{"context", "--hook", tt.client}, tt.args...)...)
			if code != 0 || out != "" || !strings.Contains(errs, tt.why) || !strings.Contains(errs, "nothing injected") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0, nothing, a reason with %q", code, out, errs, tt.why)
			}
		})
	}
	// Positive control: without --hook the same failure is an error.
	if code, _, errs := runHook(t, bin, down, "", "context", "--no-start"); code == 0 || !strings.Contains(errs, "no daemon") {
		t.Fatalf("by hand, daemon down: exit %d, %q; want a failure that says so", code, errs)
	}
	if code, _, errs := runHook(t, bin, down, "", "context", "--hook", "vim"); code != exitUsage || !strings.Contains(errs, "use "+hookClientList) {
		t.Fatalf("an unknown client: exit %d, %q", code, errs)
	}
}

// TestReadHookInputClients: each client's stdin, as it writes it, read into
// the event and prompt ihmt acts on; and what is refused, with its benign
// twin accepted.
func TestReadHookInputClients(t *testing.T) {
	tests := []struct {
		name, client, stdin string
		event, session, why string // why: the error, "" when accepted
		prompt              string
	}{
		{"claude start", "claude", `{"session_id":"a","hook_event_name":"SessionStart","source":"startup"}`, eventStart, "a", "", ""},
		{"claude prompt", "claude", `{"session_id":"a","hook_event_name":"UserPromptSubmit","prompt":"which port?"}`, eventPrompt, "a", "", "which port?"},
		{"claude, Gemini's event name", "claude", `{"hook_event_name":"BeforeAgent","prompt":"x"}`, "", "", "BeforeAgent", ""},
		{"gemini start", "gemini", `{"session_id":"g","hook_event_name":"SessionStart","source":"resume","transcript_path":"/t","timestamp":"2026-12-07T22:13:48Z"}`, eventStart, "g", "", ""},
		{"gemini prompt", "gemini", `{"session_id":"g","hook_event_name":"BeforeAgent","prompt":"which port?"}`, eventPrompt, "g", "", "which port?"},
		{"gemini prompt behind two hook contexts", "gemini", `{"hook_event_name":"BeforeAgent","prompt":"<hook_context>IHMT memory &lt;x&gt;</hook_context>\n\n<hook_context>other</hook_context>\n\nwhich port?"}`, eventPrompt, "", "", "\n\nwhich port?"},
		{"gemini prompt with an unclosed hook context", "gemini", `{"hook_event_name":"BeforeAgent","prompt":"<hook_context>which port?"}`, eventPrompt, "", "", "<hook_context>which port?"},
		{"gemini prompt that mentions a hook context later", "gemini", `{"hook_event_name":"BeforeAgent","prompt":"why <hook_context></hook_context>?"}`, eventPrompt, "", "", "why <hook_context></hook_context>?"},
		{"gemini, an event ihmt does not hook", "gemini", `{"hook_event_name":"BeforeTool"}`, "", "", "BeforeTool", ""},
		{"gemini, Claude's prompt event", "gemini", `{"hook_event_name":"UserPromptSubmit","prompt":"x"}`, "", "", "UserPromptSubmit", ""},
		{"copilot start", "copilot", `{"sessionId":"c","timestamp":1796681598511,"cwd":"/p","source":"new","initialPrompt":"hi"}`, "", "c", "", ""},
		{"copilot prompt, no event name", "copilot", `{"sessionId":"c","timestamp":1796681598593,"cwd":"/p","prompt":"which port?"}`, eventPrompt, "c", "", "which port?"},
		{"copilot, PascalCase payload", "copilot", `{"session_id":"c","hook_event_name":"UserPromptSubmit","prompt":"which port?"}`, eventPrompt, "c", "", "which port?"},
		{"copilot camelCase event", "copilot", `{"hook_event_name":"userPromptSubmitted","prompt":"x"}`, eventPrompt, "", "", "x"},
		{"copilot, an event ihmt does not hook", "copilot", `{"hook_event_name":"preToolUse"}`, "", "", "preToolUse", ""},
		{"empty stdin", "gemini", ``, "", "", "", ""},
		{"malformed JSON", "copilot", `{"sessionId":`, "", "", "not JSON", ""},
		{"not an object", "gemini", `["BeforeAgent"]`, "", "", "not JSON", ""},
		{"a field of the wrong type", "copilot", `{"prompt":7}`, "", "", "not JSON", ""},
		{"huge input", "gemini", `{"hook_event_name":"BeforeAgent","prompt":"` + strings.Repeat("a", maxHookInput) + `"}`, "", "", "over", ""},
		{"large but under the bound", "gemini", `{"hook_event_name":"BeforeAgent","prompt":"` + strings.Repeat("a", maxHookInput-100) + `"}`, eventPrompt, "", "", strings.Repeat("a", maxHookInput-100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in hookInput
			err := readHookInput(strings.NewReader(tt.stdin), tt.client, &in, time.Second)
			if tt.why != "" {
				if err == nil || !strings.Contains(err.Error(), tt.why) {
					t.Fatalf("err %v, want one saying %q", err, tt.why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if in.Event != tt.event || in.SessionID != tt.session || in.Prompt != tt.prompt {
				t.Fatalf("read event %q session %q prompt %.60q; want %q %q %.60q", in.Event, in.SessionID, in.Prompt, tt.event, tt.session, tt.prompt)
			}
		})
	}
}

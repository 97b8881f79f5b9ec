package cli

import (
	"strings"
	"testing"
	"time"
)

// FuzzReadHookInput: whatever an agent (or anything else) writes on the
// hook's stdin, reading it never panics, and what it accepts is an event
// ihmt handles.
func FuzzReadHookInput(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"session_id":"s","cwd":"/x","hook_event_name":"SessionStart","source":"startup"}`,
		`{"hook_event_name":"UserPromptSubmit","prompt":"which port?"}`, `{"hook_event_name":"PreToolUse"}`,
		`{"prompt":1}`, `[1,2]`, `{garbage`, "\x00\xff",
		`{"hook_event_name":"BeforeAgent","prompt":"<hook_context>x</hook_context>\n\nwhich port?"}`,
		`{"sessionId":"s","source":"new","initialPrompt":"hi"}`, `{"sessionId":"s","prompt":"which port?"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for client := range hookClients {
			var in hookInput
			if err := readHookInput(strings.NewReader(s), client, &in, time.Second); err != nil {
				continue
			}
			switch in.Event {
			case "", eventStart, eventPrompt:
			default:
				t.Fatalf("%s: accepted event %q", client, in.Event)
			}
		}
	})
}

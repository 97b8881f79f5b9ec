package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rawShim is ihmt-mcp driven line by line over its real stdio, so a test
// can send frames no MCP client library would.
type rawShim struct {
	t     *testing.T
	in    io.WriteCloser
	out   *bufio.Reader
	lines chan string
}

func startRawShim(t *testing.T, e *testEnv, project string) *rawShim {
	t.Helper()
	cmd := exec.Command(bins.Shim)
	cmd.Dir, cmd.Env = e.workDir, e.environ(project)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawShim{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20), lines: make(chan string, 16)}
	go func() {
		defer close(s.lines)
		for {
			l, err := s.out.ReadString('\n')
			if l != "" {
				s.lines <- strings.TrimSpace(l)
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return s
}

func (s *rawShim) send(frame string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, frame+"\n"); err != nil {
		s.t.Fatalf("write %.60q: %v", frame, err)
	}
}

// reply is a JSON-RPC response as the test reads it.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next returns the next response, skipping notifications.
func (s *rawShim) next() reply {
	s.t.Helper()
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.t.Fatal("the shim closed its stdout: the session ended")
			}
			var r reply
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				s.t.Fatalf("not JSON from the shim: %q", l)
			}
			if r.ID == nil && r.Error == nil {
				continue // a notification
			}
			return r
		case <-time.After(30 * time.Second):
			s.t.Fatal("no answer from the shim within 30s")
		}
	}
}

func (s *rawShim) initialize() {
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-client","version":"1"}}}`)
	if r := s.next(); r.Error != nil || r.Result == nil {
		s.t.Fatalf("initialize: %+v", r)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// alive checks the session still serves: a ping with a fresh id is
// answered.
func (s *rawShim) alive(id int) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if r := s.next(); string(r.ID) != fmt.Sprint(id) || r.Error != nil {
		s.t.Fatalf("ping %d after a bad frame: %+v", id, r)
	}
}

// TestMalformedFramesKeepTheSession: each malformed frame gets a parse
// error or an invalid request answer, and the session keeps serving
// (a ping after each is answered, the control that it still works).
func TestMalformedFramesKeepTheSession(t *testing.T) {
	e := servedEnv(t)
	s := startRawShim(t, e, "github.com/x/frames")
	s.initialize()
	s.alive(1)
	deep := strings.Repeat(`{"a":`, 1000) + `1` + strings.Repeat(`}`, 1000)
	tests := []struct {
		name, frame string
		code        int
		id          string
	}{
		{"an open brace", `{`, -32700, "null"},
		{"garbage", `not json at all`, -32700, "null"},
		{"truncated request", `{"jsonrpc":"2.0","id":7,"method":"tools/li`, -32700, "null"},
		{"an empty batch", `[]`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"a number", `42`, -32600, "null"},
		{"a batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`, -32600, "null"},
		{"arguments nested 1000 deep", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"search_memory","arguments":` + deep + `}}`, -32600, "10"},
		{"no jsonrpc version", `{"id":11,"method":"ping"}`, -32600, "11"},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":12,"method":5}`, -32600, "12"},
		{"an object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, "null"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":13}`, -32600, "13"},
	}
	for i, tt := range tests {
		s.send(tt.frame)
		r := s.next()
		if r.Error == nil || r.Error.Code != tt.code || string(r.ID) != tt.id {
			t.Errorf("%s: answer %+v (id %s), want error %d with id %s", tt.name, r.Error, r.ID, tt.code, tt.id)
		}
		s.alive(100 + i)
	}
	// The session still runs tools after all of that.
	s.send(`{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"save_memory","arguments":{"content":"Frames test: the session survived every bad frame."}}}`)
	if r := s.next(); r.Result == nil || r.Result.IsError {
		t.Fatalf("save after the bad frames: %+v", r)
	}
}

// TestInvalidUTF8RefusedAtTheShim: text that is not UTF-8 — a lone
// surrogate escape, a raw 0xFF byte, an overlong sequence, a surrogate
// encoded in three bytes — is refused at the shim with the daemon's own
// words (as over gRPC), not saved with U+FFFD in it; valid text beside it,
// accents and an escaped pair included, is saved exactly (the control).
func TestInvalidUTF8RefusedAtTheShim(t *testing.T) {
	e := servedEnv(t)
	s := startRawShim(t, e, "github.com/x/utf8")
	s.initialize()
	save := func(id int, content string) reply {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"save_memory","arguments":{"content":"%s"}}}`, id, content))
		return s.next()
	}
	for i, tt := range []struct {
		name, content string
		offset        int
	}{
		{"lone high surrogate escape", `bad \ud800 here`, 4},
		{"lone low surrogate escape", `bad \udc00 here`, 4},
		{"high surrogate then a letter", `ab\ud83dxy`, 2},
		{"raw 0xFF", "bad \xff here", 4},
		{"overlong slash", "bad \xc0\xaf here", 4},
		{"surrogate in three bytes", "bad \xed\xa0\x80 here", 4},
		{"truncated sequence", "caf\xc3", 3},
	} {
		r := save(10+i, tt.content)
		want := fmt.Sprintf("save_memory refused: content is not valid UTF-8 (first bad byte at offset %d). Fix the arguments and call again", tt.offset)
		if r.Result == nil || !r.Result.IsError || len(r.Result.Content) == 0 || r.Result.Content[0].Text != want {
			t.Errorf("%s: %+v, want the tool error %q", tt.name, r, want)
		}
	}
	// The same refusal over gRPC, for the record: the CLI's save of raw
	// 0xFF is refused naming UTF-8.
	if r := e.ihmt(e.environ("github.com/x/utf8"), "save", "bad \xff here"); r.code == 0 || !strings.Contains(r.stderr+r.stdout, "UTF-8") {
		t.Errorf("the CLI's save of invalid UTF-8: %s", r)
	}
	// Control: valid text with accents and an escaped surrogate pair is
	// saved as sent.
	r := save(50, `Café con leche en Málaga \ud83d\ude00 ok`)
	if r.Result == nil || r.Result.IsError {
		t.Fatalf("valid UTF-8 refused: %+v", r)
	}
	s.send(`{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"café Málaga"}}}`)
	got := s.next()
	if got.Result == nil || !strings.Contains(fmt.Sprint(got.Result.StructuredContent), "Café con leche en Málaga 😀 ok") {
		t.Errorf("the valid text is not stored exactly: %+v", got.Result)
	}
	s.send(`{"jsonrpc":"2.0","id":52,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"bad here"}}}`)
	if got := s.next(); got.Result != nil && strings.Contains(fmt.Sprint(got.Result.StructuredContent), "\uFFFD") {
		t.Errorf("a text with U+FFFD was saved: %+v", got.Result)
	}
}

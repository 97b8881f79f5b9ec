package shim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// TestCheckFrame: what reaches the SDK and what is answered in the shim,
// frame by frame.
func TestCheckFrame(t *testing.T) {
	tests := []struct {
		frame string
		pass  bool
		want  string // in the answer
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, ""},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, true, ""},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"save_memory","arguments":{"content":"caf\u00e9 \ud83d\ude00"}}}`, true, ""},
		{`{`, false, `"code":-32700`},
		{`[]`, false, `"code":-32600`},
		{`null`, false, `"code":-32600`},
		{`"hi"`, false, `"code":-32600`},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, false, `"id":3`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, false, `"id":null`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"x\ud800"}}}`, false, `search_memory refused: query is not valid UTF-8 (first bad byte at offset 1)`},
		{`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"clientInfo":{"name":"a` + "\xff" + `"}}}`, false, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"k` + "\xff" + `":1}}`, false, `a field name is not valid UTF-8`},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + `}`, false, `nests 66 levels deep`},
	}
	for _, tt := range tests {
		got := checkFrame([]byte(tt.frame))
		switch {
		case tt.pass && got != nil:
			t.Errorf("%.60q: answered %s, want it passed to the SDK", tt.frame, got)
		case !tt.pass && !strings.Contains(string(got), tt.want):
			t.Errorf("%.60q: answer %s, want one with %s", tt.frame, got, tt.want)
		case !tt.pass && !json.Valid(got):
			t.Errorf("%.60q: the answer is not JSON: %s", tt.frame, got)
		}
	}
	// A notification with bad text is dropped, never answered.
	if got := checkFrame([]byte(`{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\udc00"}}`)); got == nil || len(got) != 0 {
		t.Errorf("a notification with bad text: %q, want dropped", got)
	}
}

// FuzzCheckFrame: any line gets either passed (then it is one JSON object
// whose strings are all valid UTF-8) or an answer that is JSON.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{`, `[]`, `null`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[[[[1]]]]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := checkFrame([]byte(line))
		if got == nil {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("passed a frame that is not one object: %q", line)
			}
			// Outside strings JSON is ASCII, so a passed frame of invalid
			// UTF-8 would have it in a string.
			if !utf8.ValidString(line) {
				t.Fatalf("passed bad UTF-8: %q", line)
			}
			if _, _, bad := badUTF8([]byte(line)); bad {
				t.Fatalf("passed a lone surrogate: %q", line)
			}
			return
		}
		if len(got) > 0 && !json.Valid(got) {
			t.Fatalf("answer to %q is not JSON: %s", line, got)
		}
	})
}

// TestPumpHostileFrames: a frame nested 10,000 or 100,000 deep, and a
// 100 MB line, each get a JSON-RPC error carrying their id, quickly; the
// ping after them still reaches the SDK (the session keeps serving), and
// so does the same ping sent alone (the control).
func TestPumpHostileFrames(t *testing.T) {
	deep := func(n int, id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":` +
			strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
	}
	huge := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"save_memory","arguments":{"content":"` + strings.Repeat("a", 100<<20) + `"}}}`
	tests := []struct {
		name, frame, wantID string
	}{
		{"10,000 deep", deep(10_000, "10"), `"id":10`},
		{"100,000 deep", deep(100_000, "11"), `"id":11`},
		{"100,000 deep, id last", `{"jsonrpc":"2.0","method":"ping","params":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `,"id":12}`, `"id":12`},
		{"100 MB", huge, `"id":"big"`},
		{"control: a ping alone", "", ""},
	}
	const ping = `{"jsonrpc":"2.0","id":99,"method":"ping"}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			sdkR, sdkW := io.Pipe()
			var out safeBuffer
			go pumpFrames(inR, sdkW, &lineWriter{w: &out}, slog.New(slog.DiscardHandler))
			begin := time.Now()
			go func() {
				if tt.frame != "" {
					io.WriteString(inW, tt.frame+"\n")
				}
				io.WriteString(inW, ping+"\n")
			}()
			got := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(sdkR).ReadString('\n')
				got <- line
			}()
			select {
			case line := <-got:
				if !strings.Contains(line, `"id":99`) {
					t.Fatalf("the SDK got %.100q, want the ping", line)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the ping after the frame never reached the SDK")
			}
			took := time.Since(begin)
			inW.Close()
			answer := out.String()
			if tt.frame == "" {
				if answer != "" {
					t.Fatalf("control: a ping was answered in the shim: %s", answer)
				}
				return
			}
			if !strings.Contains(answer, tt.wantID) || !strings.Contains(answer, `"code":-32600`) || !json.Valid([]byte(strings.TrimSpace(answer))) {
				t.Errorf("answer %.300s, want an Invalid Request error with %s", answer, tt.wantID)
			}
			if took > 10*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// safeBuffer is a bytes.Buffer safe for a writer and a reader at once.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

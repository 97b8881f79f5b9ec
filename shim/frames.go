package shim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport (go-sdk v1.8.0, mcp/transport.go) decodes
// stdin with one json.Decoder and hands every error to the session, which
// treats a failed Read as the end of the connection: one malformed frame —
// "{", "[]", "null", a batch on a protocol that has none — ends the whole
// session without a response. And encoding/json replaces invalid UTF-8 and
// lone surrogate escapes (\ud800) with U+FFFD without a word, so such a
// text would be saved changed, where the daemon refuses it.
//
// So the shim reads stdin itself, one line (one frame) at a time, and
// passes the SDK only frames that are one well-formed JSON-RPC message of
// valid UTF-8. Any other frame gets its answer here — a parse error
// (-32700) for what is not JSON, an invalid request (-32600) for JSON that
// is not one message, and for text that is not UTF-8 the refusal the
// daemon gives over gRPC — and the session keeps serving.

// Limits on a frame: its length (the SDK's own default) and how deep its
// JSON may nest (no tool's arguments need more than a few levels; a frame
// nested a thousand deep is an attack on a decoder).
const (
	maxFrameBytes = mcp.DefaultMaxLineLength
	maxFrameDepth = 64
)

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// checkedStdio is the transport Main serves on: stdio, with every frame
// checked before the SDK reads it.
func checkedStdio(in io.Reader, out io.Writer, log *slog.Logger) mcp.Transport {
	pr, pw := io.Pipe()
	w := &lineWriter{w: out}
	go pumpFrames(in, pw, w, log)
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1}
}

// lineWriter serialises whole lines on out, so an answer written here never
// interleaves with one the SDK writes.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	i := bytes.LastIndexByte(l.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	_, err := l.w.Write(l.buf[:i+1])
	l.buf = append(l.buf[:0], l.buf[i+1:]...)
	return len(p), err
}

func (l *lineWriter) Close() error { return nil }

// pumpFrames copies good frames from in to the SDK's pipe and answers bad
// ones on w, until in ends or the SDK closes its side.
func pumpFrames(in io.Reader, sdk *io.PipeWriter, w *lineWriter, log *slog.Logger) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readFrame(r)
		if len(line) > 0 || tooLong {
			var answer []byte
			if tooLong {
				answer = errorFrame(topLevelID(line), codeInvalidRequest, fmt.Sprintf("Invalid Request: a frame over %d bytes; send one message per line, and a long text in parts", maxFrameBytes))
			} else {
				answer = checkFrame(line)
			}
			if answer != nil {
				log.Warn("answered a malformed MCP frame in the shim", "bytes", len(line), "answer", string(clipBytes(answer, 200)))
			}
			if len(answer) > 0 {
				if _, werr := w.Write(append(answer, '\n')); werr != nil {
					sdk.CloseWithError(werr)
					return
				}
			} else if _, werr := sdk.Write(append(line, '\n')); werr != nil {
				return // the SDK closed the session
			}
		}
		if err != nil {
			sdk.CloseWithError(err) // io.EOF: the client closed stdin
			return
		}
	}
}

// frameHead is how much of a line over maxFrameBytes is kept: enough for
// the id a JSON-RPC message opens with, so its refusal can name it.
const frameHead = 4 << 10

// readFrame reads one line without its line ending; a line over
// maxFrameBytes is read to its end and dropped (tooLong), all but its
// first frameHead bytes.
func readFrame(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > maxFrameBytes {
			tooLong, line = true, append(line, chunk...)[:frameHead:frameHead]
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		line = bytes.TrimSpace(line)
		return line, tooLong, err
	}
}

// checkFrame returns the answer to a frame that must not reach the SDK, or
// nil for one that may.
func checkFrame(line []byte) []byte {
	// Depth first, on the bytes as they are: a decoder refuses a frame
	// nested 10,000 deep as "not JSON" and loses its id, and a client
	// drops an answer without the id it waits on.
	if depth := jsonDepth(line); depth > maxFrameDepth {
		return errorFrame(topLevelID(line), codeInvalidRequest, fmt.Sprintf("Invalid Request: the message nests %d levels deep, at most %d", depth, maxFrameDepth))
	}
	if !json.Valid(line) {
		return errorFrame(nil, codeParseError, "Parse error: the frame is not JSON; send one JSON-RPC message per line")
	}
	switch line[0] {
	case '{':
	case '[':
		return errorFrame(nil, codeInvalidRequest, "Invalid Request: batches are not supported; send one JSON-RPC message per line")
	default:
		return errorFrame(nil, codeInvalidRequest, "Invalid Request: a JSON-RPC message is an object")
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
		Params  struct {
			Name json.RawMessage `json:"name"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return errorFrame(idOf(line), codeInvalidRequest, "Invalid Request: "+err.Error())
	}
	id := validID(m.ID)
	method, isMethod := jsonString(m.Method)
	switch {
	case m.JSONRPC != "2.0":
		return errorFrame(id, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	case m.ID != nil && id == nil:
		return errorFrame(nil, codeInvalidRequest, "Invalid Request: an id is a string or a number")
	case m.Method != nil && !isMethod:
		return errorFrame(id, codeInvalidRequest, `Invalid Request: "method" must be a string`)
	case !isMethod && (m.ID == nil || m.Result == nil && m.Error == nil):
		return errorFrame(id, codeInvalidRequest, `Invalid Request: neither a request ("method") nor a response ("result" or "error")`)
	}
	field, off, bad := badUTF8(line)
	if !bad {
		return nil
	}
	if m.ID == nil {
		return []byte{} // a notification gets no answer; it is dropped
	}
	what := fmt.Sprintf("%s is not valid UTF-8 (first bad byte at offset %d)", field, off)
	if tool, ok := jsonString(m.Params.Name); ok && method == "tools/call" {
		// The refusal a tool call gets when the daemon refuses the text.
		return toolErrorFrame(id, fmt.Sprintf("%s refused: %s. Fix the arguments and call again", tool, what))
	}
	return errorFrame(id, codeInvalidParams, "Invalid params: "+what)
}

// errorFrame is a JSON-RPC error response.
func errorFrame(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return b
}

// toolErrorFrame is a tools/call result that reports an error to the model.
func toolErrorFrame(id json.RawMessage, text string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
		"content": []map[string]string{{"type": "text", "text": text}},
		"isError": true,
	}})
	return b
}

// topLevelID is the "id" of the object a frame opens, read without
// decoding the frame: from one nested beyond any decoder's limit, or from
// the head of one too long to keep, as long as the id comes before the
// cut. nil when there is no usable one.
func topLevelID(b []byte) json.RawMessage {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := stringEnd(b, i)
			if depth == 1 && string(b[i:min(end+1, len(b))]) == `"id"` {
				j := end + 1
				for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == ':') {
					j++
				}
				k := j
				if k < len(b) && b[k] == '"' {
					k = stringEnd(b, k) + 1
				} else {
					for k < len(b) && b[k] != ',' && b[k] != '}' && b[k] != ' ' {
						k++
					}
				}
				return validID(json.RawMessage(b[j:min(k, len(b))]))
			}
			i = end
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return nil
}

// idOf is the frame's id when it has a usable one, else nil.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	// A frame too deep for a full decode still has its id near the top.
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k == "id" {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return nil
			}
			m.ID = raw
			return validID(m.ID)
		}
		if skipValue(dec) != nil {
			return nil
		}
	}
	return nil
}

// skipValue skips one value in dec without building it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// validID returns raw if it is a JSON-RPC id (a string or a number).
func validID(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if _, ok := jsonString(raw); ok {
		return raw
	}
	if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return raw
	}
	return nil
}

func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonDepth is how deep valid JSON nests, strings skipped.
func jsonDepth(b []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}

// stringEnd returns the index of the closing quote of the string opening
// at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

// badUTF8 finds the first string in valid JSON whose text is not valid
// UTF-8 — raw bytes that are not (0xFF, an overlong form, a surrogate
// encoded in three bytes) or an escape of a lone surrogate (\ud800) — and
// returns the field it is the value of (the nearest key; "a field name"
// for a key itself) and the byte offset of the bad character in the text
// as decoded, as the daemon counts it.
func badUTF8(b []byte) (field string, off int, bad bool) {
	key := "a value"
	expectKey := false
	var stack []byte
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{':
			stack = append(stack, c)
			expectKey = true
		case '[':
			stack = append(stack, c)
			expectKey = false
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case '"':
			end := stringEnd(b, i)
			text, at, ok := decodeJSONString(b[i+1 : end])
			switch {
			case !ok && expectKey:
				return "a field name", at, true
			case !ok:
				return key, at, true
			case expectKey:
				key = text
				expectKey = false
			}
			i = end
		}
	}
	return "", 0, false
}

// decodeJSONString decodes the body of a JSON string strictly: ok is false
// at the first byte that is not valid UTF-8 or the first lone surrogate,
// whose offset in the decoded text is at.
func decodeJSONString(s []byte) (text string, at int, ok bool) {
	var out []byte
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				out = append(out, c)
				i++
				continue
			}
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n <= 1 {
				return "", len(out), false
			}
			out = append(out, s[i:i+n]...)
			i += n
			continue
		}
		if i+1 >= len(s) {
			return "", len(out), false
		}
		if s[i+1] != 'u' {
			out = append(out, unescape(s[i+1]))
			i += 2
			continue
		}
		r1, ok1 := hex4(s[i+2:])
		if !ok1 {
			return "", len(out), false
		}
		i += 6
		switch {
		case r1 >= 0xD800 && r1 < 0xDC00:
			if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2, ok2 := hex4(s[i+2:]); ok2 && r2 >= 0xDC00 && r2 < 0xE000 {
					out = utf8.AppendRune(out, 0x10000+(r1-0xD800)<<10+(r2-0xDC00))
					i += 6
					continue
				}
			}
			return "", len(out), false
		case r1 >= 0xDC00 && r1 < 0xE000:
			return "", len(out), false
		}
		out = utf8.AppendRune(out, r1)
	}
	return string(out), 0, true
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return c
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[:4]), 16, 32)
	return rune(v), err == nil
}

func clipBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// mcpProc is a raw JSON-RPC driver for one ihmt-mcp process over its stdio:
// newline-delimited JSON, as MCP's stdio transport speaks it. It is raw on
// purpose, so the figures are the shim's and not a client SDK's.
type mcpProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *testenv.Logs
	nextID int
	// The size of the last tool result the model is given: its text, and
	// its structured content as JSON (some clients show the model only
	// that).
	lastText, lastStructured int
}

type rpcMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startShim starts ihmt-mcp; the caller times from just before this call.
func startShim(bin string, env []string) (*mcpProc, error) {
	cmd := exec.Command(bin)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &mcpProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), stderr: &testenv.Logs{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *mcpProc) send(m rpcMsg) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = p.in.Write(append(b, '\n'))
	return err
}

// call sends a request and returns its result. Requests from the server
// (roots/list, say) are refused; notifications are skipped.
func (p *mcpProc) call(method string, params any) (json.RawMessage, error) {
	p.nextID++
	id := json.RawMessage(fmt.Sprint(p.nextID))
	if err := p.send(rpcMsg{ID: id, Method: method, Params: params}); err != nil {
		return nil, fmt.Errorf("%s: write: %w (stderr: %s)", method, err, p.stderr.String())
	}
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: read: %w (stderr: %s)", method, err, strings.TrimSpace(p.stderr.String()))
		}
		var m rpcMsg
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("%s: bad JSON from the shim: %v: %q", method, err, line)
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			// A request from the server: this driver offers no capabilities.
			_ = p.send(rpcMsg{ID: m.ID, Error: &struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}{-32601, "not supported by the bench driver"}})
		case m.Method != "":
			// A notification.
		case string(m.ID) == string(id):
			if m.Error != nil {
				return nil, fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
			}
			return m.Result, nil
		}
	}
}

func (p *mcpProc) notify(method string) error { return p.send(rpcMsg{Method: method}) }

func (p *mcpProc) initialize() error {
	res, err := p.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "ihmt-bench", "version": "1.0"},
	})
	if err != nil {
		return err
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.ProtocolVersion == "" {
		return fmt.Errorf("initialize: unexpected result %s", res)
	}
	return nil
}

// tool calls a tool and returns its structured content; a tool error
// (isError) is returned as an error with the text the model would see.
func (p *mcpProc) tool(name string, args map[string]any) (map[string]any, error) {
	res, err := p.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Structured map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, fmt.Errorf("%s: bad result: %v", name, err)
	}
	p.lastText = 0
	for _, c := range r.Content {
		p.lastText += len(c.Text)
	}
	sc, _ := json.Marshal(r.Structured)
	p.lastStructured = len(sc)
	if r.IsError {
		var msg []string
		for _, c := range r.Content {
			msg = append(msg, c.Text)
		}
		return nil, fmt.Errorf("%s: tool error: %s", name, strings.Join(msg, " "))
	}
	return r.Structured, nil
}

// close ends the session the way an agent does, by closing stdin, and waits
// for the shim to exit (killing it after 5 s).
func (p *mcpProc) close() error {
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
		return errors.New("ihmt-mcp did not exit within 5 s of stdin closing; killed")
	}
}

func shimEnv(socket, home, project string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "IHMT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "IHMT_SOCKET="+socket, "IHMT_HOME="+home, "IHMT_PROJECT="+project)
}

// ShimResults are the MCP shim's figures.
type ShimResults struct {
	Spawns       int `json:"spawns"`
	SpawnToInit  Lat `json:"spawn_to_initialize_result"`
	FirstCall    Lat `json:"first_save_call_incl_lazy_dial"`
	Exit         Lat `json:"stdin_close_to_exit"`
	SteadySave   Lat `json:"steady_save_memory_round_trip"`
	SteadySearch Lat `json:"steady_search_memory_round_trip"`
	// AnswerText and AnswerStructured are the sizes in bytes of compact
	// search answers (p50, p90, max in the Lat fields, as counts).
	AnswerText       Lat     `json:"search_answer_text_bytes"`
	AnswerStructured Lat     `json:"search_answer_structured_bytes"`
	StoreLeaves      int64   `json:"store_leaves"`
	ShimRSSMiB       float64 `json:"shim_rss_mib"`
	ShimMaxRSSMiB    float64 `json:"shim_max_rss_mib"`
	Errors           int     `json:"errors"`
	FirstError       string  `json:"first_error,omitempty"`
	ColdStart        Lat     `json:"cold_first_call_incl_ihmtd_autostart"`
	ColdDaemonRSS    float64 `json:"cold_ihmtd_rss_mib"`
	ColdStartError   string  `json:"cold_start_error,omitempty"`
}

func (s *ShimResults) fail(err error) {
	s.Errors++
	if s.FirstError == "" {
		s.FirstError = err.Error()
	}
}

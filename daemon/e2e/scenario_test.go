package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// cliSaved is `ihmt save --json` (a SaveResponse in protojson).
type cliSaved struct {
	ID     string    `json:"id"`
	Status string    `json:"status"`
	Memory cliMemory `json:"memory"`
}

// cliMemory is a Memory in protojson.
type cliMemory struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Scope   string `json:"scope"`
	Project string `json:"project"`
	Agent   struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"agent"`
	SessionID string `json:"session_id"`
}

// cliAnswer is `ihmt search --json` (a SearchResponse in protojson).
type cliAnswer struct {
	Status  string `json:"status"`
	Results []struct {
		Memory cliMemory `json:"memory"`
	} `json:"results"`
	Candidates []struct {
		ID string `json:"id"`
	} `json:"candidates"`
}

func (a cliAnswer) ids() []string {
	var out []string
	for _, r := range a.Results {
		out = append(out, r.Memory.ID)
	}
	for _, c := range a.Candidates {
		out = append(out, c.ID)
	}
	return out
}

// TestSameScenarioThroughCLIAndShim runs one story through both front ends:
// what the CLI saves an agent finds and the other way round, each memory
// names the program that wrote it, and scope holds the same way for both —
// another project's memory is invisible by default and visible on request,
// a global memory everywhere.
func TestSameScenarioThroughCLIAndShim(t *testing.T) {
	e := newEnv(t)
	const projA, projB = "github.com/x/a", "github.com/x/b"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := e.startDaemon(t)
	e.waitReady(t, d)
	envA, envB := e.environ(projA), e.environ(projB)
	shimA, _ := e.connectShim(t, ctx, shimOpts{name: "agent-7", project: projA})
	shimB, _ := e.connectShim(t, ctx, shimOpts{name: "agent-7", project: projB})

	const (
		textA = "Project a signs its release artifacts with the key named orchidkey2041."
		textB = "Project b deploys to the staging cluster called tundra9 every Thursday."
		textG = "The user wants commit messages in the imperative mood, verified by the hook quillcheck7."
	)

	// The CLI saves into project a, and a global memory.
	var a, g cliSaved
	e.cliJSON(t, &a, envA, "save", "--json", textA)
	e.cliJSON(t, &g, envA, "save", "--json", "--scope", "global", textG)
	if a.Status != "saved" || a.Memory.Scope != "project" || a.Memory.Project != projA || a.Memory.Agent.Name != "ihmt-cli" {
		t.Errorf("ihmt save in project a: %+v", a)
	}
	if g.Status != "saved" || g.Memory.Scope != "global" || g.Memory.Project != "" {
		t.Errorf("ihmt save --scope global: %+v", g)
	}

	// An agent in project a finds the CLI's memory, written by ihmt-cli.
	got, err := search(ctx, shimA, map[string]any{"query": "which key signs the release artifacts orchidkey2041"})
	if err != nil || got.Status != "found" || got.Results[0].ID != a.ID {
		t.Fatalf("agent in project a searching for the CLI's memory: %+v, %v", got, err)
	}
	if r := got.Results[0]; !strings.HasPrefix(r.Agent, "ihmt-cli") || r.Scope != "project" || r.Project != projA || r.Content != textA {
		t.Errorf("the CLI's memory as the agent sees it: %+v", r)
	}

	// An agent in project b saves; the CLI in project b finds it, written
	// by the agent under its MCP client name.
	b, err := save(ctx, shimB, textB)
	if err != nil || b.Status != "saved" || b.Scope != "project" || b.Project != projB {
		t.Fatalf("agent in project b saving: %+v, %v", b, err)
	}
	var found cliAnswer
	e.cliJSON(t, &found, envB, "search", "--json", "when does project b deploy to tundra9")
	if found.Status != "found" || found.Results[0].Memory.ID != b.ID {
		t.Fatalf("ihmt search in project b for the agent's memory: %+v", found)
	}
	if m := found.Results[0].Memory; m.Agent.Name != "agent-7" || m.Agent.Version != "1.0" || m.SessionID == "" || m.Content != textB {
		t.Errorf("the agent's memory as the CLI sees it: %+v", m)
	}

	// Scope. Project a's memory: seen from a (above), not from b by
	// default — through either front end — and from b when asked for all.
	queryA := "release artifacts signing key orchidkey2041"
	fromB, err := search(ctx, shimB, map[string]any{"query": queryA})
	if err != nil || slices.Contains(fromB.ids(), a.ID) {
		t.Errorf("agent in project b, default scope, sees project a's memory: %+v, %v", fromB, err)
	}
	var cliFromB cliAnswer
	e.cliJSON(t, &cliFromB, envB, "search", "--json", queryA)
	if slices.Contains(cliFromB.ids(), a.ID) {
		t.Errorf("ihmt search in project b, default scope, sees project a's memory: %+v", cliFromB)
	}
	if r := e.ihmt(envB, "get", "--json", a.ID); r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("ihmt get from project b of project a's memory: want not found; got %s", r)
	}
	allB, err := search(ctx, shimB, map[string]any{"query": queryA, "scope": "all"})
	if err != nil || allB.Status != "found" || allB.Results[0].ID != a.ID {
		t.Errorf("agent in project b, scope all: %+v, %v", allB, err)
	}
	var cliAll cliAnswer
	e.cliJSON(t, &cliAll, envB, "search", "--json", "--scope", "all", queryA)
	if cliAll.Status != "found" || cliAll.Results[0].Memory.ID != a.ID {
		t.Errorf("ihmt search --scope all in project b: %+v", cliAll)
	}
	var resp struct {
		Memory cliMemory `json:"memory"`
	}
	e.cliJSON(t, &resp, envB, "get", "--json", "--all", a.ID)
	gotA := resp.Memory
	if gotA.ID != a.ID || gotA.Project != projA {
		t.Errorf("ihmt get --all from project b: %+v", gotA)
	}

	// The global memory: visible from both projects, through both.
	queryG := "how should commit messages be written quillcheck7"
	ga, err := search(ctx, shimA, map[string]any{"query": queryG})
	if err != nil || ga.Status != "found" || ga.Results[0].ID != g.ID {
		t.Errorf("agent in project a, global memory: %+v, %v", ga, err)
	}
	gb, err := search(ctx, shimB, map[string]any{"query": queryG})
	if err != nil || gb.Status != "found" || gb.Results[0].ID != g.ID || gb.Results[0].Scope != "global" {
		t.Errorf("agent in project b, global memory: %+v, %v", gb, err)
	}
	var cliG cliAnswer
	e.cliJSON(t, &cliG, envB, "search", "--json", queryG)
	if cliG.Status != "found" || cliG.Results[0].Memory.ID != g.ID {
		t.Errorf("ihmt search in project b, global memory: %+v", cliG)
	}
}

// TestShimWithoutDaemonBinary gives an agent a shim that cannot find ihmtd
// and no daemon running: a tool call must fail promptly with a tool error
// that says what is wrong and how to fix it, not hang. The same call through
// a shim with ihmtd beside it starts the daemon and works.
func TestShimWithoutDaemonBinary(t *testing.T) {
	e := newEnv(t)
	const project = "github.com/ihmt-e2e/nodaemon"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shimPath, pathEnv := loneShim(t)
	lone, stderr := e.connectShim(t, ctx, shimOpts{name: "agent-lone", path: shimPath, project: project, env: []string{pathEnv}})

	const text = "The team's on-call rotation hands over on Mondays at ten, tracked in pagerbell4."
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"save_memory", map[string]any{"content": text}},
		{"search_memory", map[string]any{"query": "on-call handover pagerbell4"}},
	} {
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		start := time.Now()
		_, err := callTool[answer](cctx, lone, call.tool, call.args)
		took := time.Since(start)
		ccancel()
		te, ok := err.(*toolError)
		if !ok {
			t.Fatalf("%s through a shim without ihmtd: want a tool error, got %v\n%s", call.tool, err, stderr)
		}
		for _, want := range []string{"not reachable", "ihmtd", "install"} {
			if !strings.Contains(te.text, want) {
				t.Errorf("%s tool error does not say %q: %s", call.tool, want, te.text)
			}
		}
		if took > 5*time.Second {
			t.Errorf("%s took %s to fail, want a few seconds at most", call.tool, took)
		}
		t.Logf("%s without ihmtd: tool error after %s: %s", call.tool, took.Round(time.Millisecond), te.text)
	}
	if exists(e.sock) || exists(e.home) {
		t.Errorf("a shim without ihmtd left a socket (%v) or a store (%v)", exists(e.sock), exists(e.home))
	}

	// Positive control: the same calls, same environment, through the shim
	// that has ihmtd beside it.
	full, stderr := e.connectShim(t, ctx, shimOpts{name: "agent-full", project: project, env: []string{pathEnv}})
	s, err := save(ctx, full, text)
	if err != nil || s.Status != "saved" {
		t.Fatalf("save through the full shim: %+v, %v\n%s", s, err, stderr)
	}
	a, err := search(ctx, full, map[string]any{"query": "on-call handover pagerbell4"})
	if err != nil || a.Status != "found" || a.Results[0].ID != s.ID {
		t.Fatalf("search through the full shim: %+v, %v", a, err)
	}
	if st := e.waitReady(t, nil); !st.IdleExit {
		t.Errorf("the daemon the shim started does not exit when idle")
	}
}

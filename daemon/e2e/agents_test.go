package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentFact is memory f of agent a (both from 1). Every fact has two tokens
// no other fact has — its service name and its port — and otherwise the
// same words as all the others, so the search for it is unambiguous exactly
// when the engine ranks by those tokens.
func agentFact(a, f int) memo {
	svc := fmt.Sprintf("svc%02dq%03d", a, f)
	text := fmt.Sprintf("agent %d fact %d: the %s service listens on port %d and its runbook is in the ops wiki",
		a, f, svc, 20000+a*100+f)
	return memo{text: text, query: fmt.Sprintf("which port does the %s service listen on", svc)}
}

// TestSixteenAgentsConcurrently is sixteen agents, each its own ihmt-mcp
// process and session, saving at the same time into one memory that none of
// them started on purpose: the shims race to start the daemon, exactly one
// wins, every save lands exactly once with its writer's name and session,
// and a seventeenth agent finds each memory by its own words.
func TestSixteenAgentsConcurrently(t *testing.T) {
	const agents, perAgent = 16, 100
	e := newEnv(t)
	const project = "github.com/ihmt-e2e/sixteen"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if exists(e.sock) {
		t.Fatalf("socket %s exists before any agent ran", e.sock)
	}

	// Launch every shim first: initialize never touches the daemon, so
	// nothing has started yet. Half speak the legacy initialize handshake,
	// half the SDK's default protocol; the writer's name must arrive either way.
	sessions := make([]*mcp.ClientSession, agents)
	names := make([]string, agents)
	for i := range agents {
		names[i] = fmt.Sprintf("agent-%02d", i+1)
		o := shimOpts{name: names[i], project: project}
		if i%2 == 1 {
			o.protocol = "2025-11-25"
		}
		sessions[i], _ = e.connectShim(t, ctx, o)
	}
	if pids, _ := e.liveDaemons(); len(pids) != 0 {
		t.Fatalf("daemons %v running before the first tool call", pids)
	}

	// Then release them all at once.
	type ack struct {
		memo
		status string
	}
	acks := make([][]ack, agents)
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for i := range agents {
		wg.Go(func() {
			<-start
			for f := 1; f <= perAgent; f++ {
				m := agentFact(i+1, f)
				s, err := save(ctx, sessions[i], m.text)
				if err != nil {
					t.Errorf("%s save %d: %v", names[i], f, err)
					return
				}
				m.id = s.ID
				acks[i] = append(acks[i], ack{m, s.Status})
			}
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(began)
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d agents × %d saves through %d shims, daemon auto-started: %s wall (%.0f saves/s)",
		agents, perAgent, agents, wall.Round(time.Millisecond), float64(agents*perAgent)/wall.Seconds())

	// Exactly one daemon serves, and no other is left running.
	st := e.waitReady(t, nil)
	if !st.IdleExit {
		t.Errorf("the auto-started daemon does not report idle exit")
	}
	if _, ok := e.liveDaemons(); ok {
		waitFor(t, 10*time.Second, func() (bool, string) {
			pids, _ := e.liveDaemons()
			return len(pids) == 1 && pids[0] == int(st.Pid), fmt.Sprintf("ihmtd processes for this store: %v, want only pid %d", pids, st.Pid)
		})
	}
	if st.Memories != agents*perAgent || st.LogEntries != agents*perAgent {
		t.Errorf("status: %d memories, %d log entries; want %d of each", st.Memories, st.LogEntries, agents*perAgent)
	}
	if b, err := os.ReadFile(filepath.Join(e.sockDir, "ihmtd.log")); err == nil {
		lost := strings.Count(string(b), "already running")
		t.Logf("daemons spawned by racing shims: %d (1 won the lock, %d exited with status 3)", lost+1, lost)
	}

	byID := map[string]ack{}
	var all []memo
	for i, as := range acks {
		for _, a := range as {
			if a.status != "saved" {
				t.Errorf("%s: %q answered %s, want saved", names[i], a.text, a.status)
			}
			if prev, dup := byID[a.id]; dup {
				t.Errorf("id %s for both %q and %q", a.id, prev.text, a.text)
			}
			byID[a.id] = a
			all = append(all, a.memo)
		}
	}

	// A seventeenth agent finds every memory by its own words.
	reader, _ := e.connectShim(t, ctx, shimOpts{name: "agent-17", project: project})
	began = time.Now()
	if problems := findEach(ctx, reader, all); len(problems) > 0 {
		t.Errorf("%d of %d memories not found as the first result; the first few:\n%s",
			len(problems), len(all), strings.Join(problems[:min(len(problems), 10)], "\n"))
	}
	t.Logf("%d searches through one shim (4 in flight): %s", len(all), time.Since(began).Round(time.Millisecond))

	// Provenance as the searching agent sees it: writer name and version.
	a, err := search(ctx, reader, map[string]any{"query": agentFact(3, 42).query})
	if err != nil || len(a.Results) == 0 {
		t.Fatalf("search: %+v, %v", a, err)
	}
	if a.Results[0].Agent != "agent-03 1.0" {
		t.Errorf("search reports the writer as %q, want agent-03 1.0", a.Results[0].Agent)
	}
	sessionSeen := a.Results[0].Session

	// A clean stop writes out every leaf. `ihmt daemon stop` returns once the
	// socket is gone, which the daemon removes after closing its store; the
	// process itself must be gone moments later.
	if r := e.ihmt(e.environ(""), "daemon", "stop"); r.code != 0 {
		t.Fatalf("ihmt daemon stop: %s", r)
	}
	waitFor(t, 10*time.Second, func() (bool, string) {
		return !processAlive(int(st.Pid)), fmt.Sprintf("ihmtd pid %d still running after ihmt daemon stop", st.Pid)
	})
	if exists(e.sock) {
		t.Errorf("socket %s left behind by a clean stop", e.sock)
	}

	sf := readStore(t, e.home)
	if len(sf.leaves) != agents*perAgent {
		t.Errorf("%d leaf files, want %d", len(sf.leaves), agents*perAgent)
	}
	if len(sf.temps) > 0 {
		t.Errorf("temporary files left after a clean stop: %v", sf.temps)
	}
	if len(sf.log) != agents*perAgent {
		t.Errorf("%d log entries, want %d", len(sf.log), agents*perAgent)
	}
	checkConsistent(t, sf)

	sessionsOf := map[string]map[string]int{} // agent → session → entries
	for _, le := range sf.log {
		a, ok := byID[le.ID]
		switch {
		case le.Op != "save":
			t.Errorf("log entry %d: op %q, want save", le.Seq, le.Op)
		case !ok:
			t.Errorf("log entry %d saves %s, which no agent was told about", le.Seq, le.ID)
		case le.Text != a.text:
			t.Errorf("log entry %d: text %q, want %q", le.Seq, le.Text, a.text)
		case le.Project != project:
			t.Errorf("log entry %d: project %q, want %q", le.Seq, le.Project, project)
		}
		if !ok {
			continue
		}
		var writer int
		fmt.Sscanf(a.text, "agent %d ", &writer)
		if want := fmt.Sprintf("agent-%02d", writer); le.Agent.Name != want || le.Agent.Version != "1.0" {
			t.Errorf("log entry %d: agent %s %s, want %s 1.0", le.Seq, le.Agent.Name, le.Agent.Version, want)
		}
		if sessionsOf[le.Agent.Name] == nil {
			sessionsOf[le.Agent.Name] = map[string]int{}
		}
		sessionsOf[le.Agent.Name][le.Session]++
	}
	allSessions := map[string]string{}
	for _, name := range names {
		ss := sessionsOf[name]
		if len(ss) != 1 {
			t.Errorf("%s wrote under %d sessions %v, want exactly one", name, len(ss), ss)
			continue
		}
		for s, n := range ss {
			if n != perAgent || s == "" {
				t.Errorf("%s: session %q has %d entries, want %d", name, s, n, perAgent)
			}
			if other, dup := allSessions[s]; dup {
				t.Errorf("%s and %s share session %q", other, name, s)
			}
			allSessions[s] = name
		}
	}
	if len(sessionsOf) != agents {
		t.Errorf("writers in the log: %v, want the %d agents", slices.Sorted(maps.Keys(sessionsOf)), agents)
	}
	if n := sessionsOf["agent-03"][sessionSeen]; n != perAgent {
		t.Errorf("search reported agent-03's session as %q, which has %d log entries, want %d", sessionSeen, n, perAgent)
	}
}

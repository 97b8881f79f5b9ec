package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// crashFact is save n of a writer in round r. Its token appears in no other
// memory, so a search for it has exactly one right answer.
func crashFact(r, n int) memo {
	tok := fmt.Sprintf("kc%dn%05d", r, n)
	return memo{
		text:  fmt.Sprintf("round %d save %d: nightly job build cache key %s noted", r, n, tok),
		query: "build cache key " + tok,
	}
}

// writeUntil saves crashFact(round, n) for n = 1, 2, … through cs from
// several goroutines at once, sends every acknowledged save on acks, and
// stops at the first failed save (the daemon is gone) or when ctx ends. It
// returns the failures, one per writer that met one.
func writeUntil(ctx context.Context, cs *mcp.ClientSession, round int, acks chan<- memo) []error {
	const writers = 4
	var (
		n    atomic.Int64
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for range writers {
		wg.Go(func() {
			for ctx.Err() == nil {
				m := crashFact(round, int(n.Add(1)))
				s, err := save(ctx, cs, m.text)
				if err == nil && s.Status != "saved" {
					err = fmt.Errorf("%q answered %s, want saved", m.text, s.Status)
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				m.id = s.ID
				acks <- m
			}
		})
	}
	wg.Wait()
	return errs
}

// TestCrashLosesNoAcknowledgedSave kills the daemon with SIGKILL while an
// agent is saving as fast as it can, three times at different points, and
// checks after every restart that each save the agent was told succeeded is
// there — once — and at the end that the log and the leaf files agree.
//
// The writing shim is a copy with no ihmtd beside it or on PATH, so after
// the kill it cannot start a daemon behind the test's back: its saves fail
// until the test restarts the daemon over the stale socket.
func TestCrashLosesNoAcknowledgedSave(t *testing.T) {
	const rounds = 3
	e := newEnv(t)
	const project = "github.com/ihmt-e2e/crash"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("IHMT_E2E_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("kill points from seed %d (set IHMT_E2E_SEED to repeat)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var killPoints []int
	for len(killPoints) < rounds {
		k := 100 + rng.IntN(301)
		if !containsNear(killPoints, k, 25) {
			killPoints = append(killPoints, k)
		}
	}

	shimPath, pathEnv := loneShim(t)
	var acked []memo // every acknowledged save, all rounds
	d := e.startDaemon(t)
	e.waitReady(t, d)
	for round := 1; round <= rounds; round++ {
		killAt := killPoints[round-1]
		cs, stderr := e.connectShim(t, ctx, shimOpts{name: "crash-writer", path: shimPath, project: project, env: []string{pathEnv}})

		acks := make(chan memo)
		wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
		var werrs []error
		writing := make(chan struct{})
		go func() { werrs = writeUntil(wctx, cs, round, acks); close(writing) }()
		var got, afterKill int
		killed := false
	collect:
		for {
			select {
			case m := <-acks:
				acked = append(acked, m)
				got++
				if killed {
					afterKill++
				}
				if got == killAt {
					d.cmd.Process.Signal(syscall.SIGKILL)
					killed = true
				}
			case <-writing:
				break collect
			}
		}
		wcancel()
		if !killed {
			t.Fatalf("round %d: the writers stopped after %d acknowledged saves, before the kill at %d: %v\n%s", round, got, killAt, werrs, stderr)
		}
		if code, _ := d.waitExit(t, 10*time.Second); code != -1 {
			t.Fatalf("round %d: daemon exit status %d, want killed by a signal", round, code)
		}
		for _, err := range werrs {
			if !strings.Contains(err.Error(), "not reachable") {
				t.Errorf("round %d: a save after the kill failed with %v, want the daemon reported unreachable", round, err)
			}
		}
		t.Logf("round %d: SIGKILL after %d acknowledged saves (%d more acknowledged while it landed)", round, killAt, afterKill)
		cs.Close()

		// The socket outlives a killed daemon; the next one must clear it.
		if !isSocket(e.sock) {
			t.Fatalf("round %d: no stale socket at %s after SIGKILL", round, e.sock)
		}
		d = e.startDaemon(t)
		st := e.waitReady(t, d)
		if st.Memories < int64(len(acked)) {
			t.Errorf("round %d: the restarted daemon has %d memories, fewer than the %d acknowledged", round, st.Memories, len(acked))
		}

		// Every acknowledged save so far is there. The last few before the
		// kill are the ones most at risk; read them by id through the CLI too.
		reader, _ := e.connectShim(t, ctx, shimOpts{name: "crash-reader", project: project})
		if problems := findEach(ctx, reader, acked); len(problems) > 0 {
			t.Fatalf("round %d: %d of %d acknowledged saves missing after the restart; the first few:\n%s",
				round, len(problems), len(acked), strings.Join(problems[:min(len(problems), 10)], "\n"))
		}
		reader.Close()
		for _, m := range acked[max(0, len(acked)-3):] {
			var resp struct {
				Memory struct {
					ID      string `json:"id"`
					Content string `json:"content"`
				} `json:"memory"`
			}
			e.cliJSON(t, &resp, e.environ(project), "get", "--json", m.id)
			if got := resp.Memory; got.ID != m.id || got.Content != m.text {
				t.Errorf("round %d: ihmt get %s: %s %q, want %q", round, m.id, got.ID, got.Content, m.text)
			}
		}
	}

	// A clean stop, then the files: no memory twice, and leaves and log agree.
	d.cmd.Process.Signal(syscall.SIGTERM)
	if code, _ := d.waitExit(t, 10*time.Second); code != 0 {
		t.Fatalf("clean stop: exit status %d\n%s", code, d.out)
	}
	sf := readStore(t, e.home)
	checkConsistent(t, sf)
	inLog := map[string]bool{}
	for _, le := range sf.log {
		inLog[le.ID] = true
	}
	for _, m := range acked {
		if !inLog[m.id] {
			t.Errorf("acknowledged save %s (%q) is not in the log", m.id, m.text)
		}
		if l, ok := sf.leaves[m.id]; !ok || l.Text != m.text {
			t.Errorf("acknowledged save %s (%q): leaf file %v, text %q", m.id, m.text, ok, l.Text)
		}
	}
	t.Logf("%d acknowledged saves over %d crashes; %d in the log (the rest were in flight at a kill), %d leaf files",
		len(acked), rounds, len(sf.log), len(sf.leaves))
	// Temp files of leaf writes a kill interrupted are removed at the next
	// start (the daemon holds the lock, so nothing owns them).
	if len(sf.temps) > 0 {
		t.Errorf("temporary files left under leaves/ after restarts and a clean stop: %d (e.g. %s)", len(sf.temps), sf.temps[0])
	}
}

func containsNear(xs []int, x, d int) bool {
	for _, y := range xs {
		if y-d < x && x < y+d {
			return true
		}
	}
	return false
}

// TestSIGTERMStopsCleanly stops a daemon with SIGTERM while an agent is
// saving: it exits 0 within 5 s, removes its socket, releases the store's
// lock, has written every acknowledged save to its leaf file without needing
// a replay, and a new daemon on the same store has them all.
func TestSIGTERMStopsCleanly(t *testing.T) {
	e := newEnv(t)
	const project = "github.com/ihmt-e2e/sigterm"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := e.startDaemon(t)
	e.waitReady(t, d)

	shimPath, pathEnv := loneShim(t)
	cs, stderr := e.connectShim(t, ctx, shimOpts{name: "sigterm-writer", path: shimPath, project: project, env: []string{pathEnv}})
	acks := make(chan memo)
	writing := make(chan struct{})
	var werrs []error
	go func() { werrs = writeUntil(ctx, cs, 1, acks); close(writing) }()
	var acked []memo
	var stopTook time.Duration
	stopped := make(chan struct{})
collect:
	for {
		select {
		case m := <-acks:
			acked = append(acked, m)
			if len(acked) == 50 {
				d.cmd.Process.Signal(syscall.SIGTERM)
				go func() {
					start := time.Now()
					<-d.done
					stopTook = time.Since(start)
					close(stopped)
				}()
			}
		case <-writing:
			break collect
		}
	}
	if len(acked) < 50 {
		t.Fatalf("the writers stopped after %d saves, before SIGTERM: %v\n%s", len(acked), werrs, stderr)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatalf("ihmtd still running 10 s after SIGTERM\n%s", d.out)
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 || stopTook > 5*time.Second {
		t.Errorf("after SIGTERM: exit status %d after %s, want 0 within 5 s\n%s", code, stopTook, d.out)
	}
	t.Logf("SIGTERM with saves in flight: exit 0 after %s; %d saves acknowledged", stopTook.Round(time.Millisecond), len(acked))
	if exists(e.sock) {
		t.Errorf("socket %s left behind by SIGTERM", e.sock)
	}
	if !strings.Contains(d.out.String(), "stopping") {
		t.Errorf("the daemon's log does not say why it stopped:\n%s", d.out)
	}

	// The files alone already hold every acknowledged save: the clean stop
	// wrote each leaf, no replay needed.
	sf := readStore(t, e.home)
	checkConsistent(t, sf)
	if len(sf.temps) > 0 {
		t.Errorf("temporary files left after a clean stop: %v", sf.temps)
	}
	for _, m := range acked {
		if l, ok := sf.leaves[m.id]; !ok || l.Text != m.text {
			t.Errorf("acknowledged save %s has no leaf file with its text after SIGTERM", m.id)
		}
	}

	// The lock is free: a new daemon takes the same store and socket, and
	// has everything.
	d2 := e.startDaemon(t)
	st := e.waitReady(t, d2)
	if st.Memories != int64(len(sf.log)) {
		t.Errorf("restarted daemon has %d memories, the log %d entries", st.Memories, len(sf.log))
	}
	reader, _ := e.connectShim(t, ctx, shimOpts{name: "sigterm-reader", project: project})
	if problems := findEach(ctx, reader, acked); len(problems) > 0 {
		t.Errorf("%d of %d acknowledged saves missing after the restart:\n%s", len(problems), len(acked), strings.Join(problems, "\n"))
	}
}

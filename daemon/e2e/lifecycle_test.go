package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSecondDaemonRefused starts a second ihmtd on a store that one already
// serves, on another socket: it must exit with status 3 and say why, while
// the first keeps serving. The same second command line on a store of its
// own serves (positive control: the store's lock is what refused it).
func TestSecondDaemonRefused(t *testing.T) {
	e := newEnv(t)
	d := e.startDaemon(t)
	first := e.waitReady(t, d)

	other := filepath.Join(e.sockDir, "other.sock")
	r := runCmd(bins.Daemon, e.workDir, e.environ(""), nil, "-data", e.home, "-socket", other)
	if r.code != 3 || !strings.Contains(r.stderr, "already running") {
		t.Errorf("second ihmtd on the same store: want exit status 3 and \"already running\" on stderr; got %s", r)
	}
	if exists(other) {
		t.Errorf("the refused daemon left %s behind", other)
	}

	// The first still answers, and still writes.
	st := e.waitReady(t, d)
	if st.Pid != first.Pid {
		t.Errorf("status names pid %d, want the first daemon %d", st.Pid, first.Pid)
	}
	var s struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	e.cliJSON(t, &s, e.environ("github.com/ihmt-e2e/second"), "save", "--json", "the first daemon still takes saves after refusing a second")
	if s.Status != "saved" {
		t.Errorf("save through the first daemon: %+v", s)
	}

	// Positive control: the identical command, with its own store.
	e2 := newEnv(t)
	e2.sock = other // its cleanup must find this daemon by its socket
	d2 := e2.startDaemon(t)
	if st2 := e2.waitReady(t, d2); st2.StorePath != e2.home {
		t.Errorf("the control daemon serves store %s, want %s", st2.StorePath, e2.home)
	}
}

// TestRacingCLIsStartOneDaemon runs four `ihmt save` at the same moment with
// no daemon running: each may start one, exactly one survives, and all four
// saves land in it.
func TestRacingCLIsStartOneDaemon(t *testing.T) {
	const racers = 4
	e := newEnv(t)
	const project = "github.com/ihmt-e2e/racing"
	if exists(e.sock) {
		t.Fatalf("socket %s exists before the race", e.sock)
	}

	results := make([]cliResult, racers)
	texts := make([]string, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racers {
		texts[i] = fmt.Sprintf("racing cli %d saved the token rc%dzz at the starting gun", i, i)
		wg.Go(func() {
			<-start
			results[i] = e.ihmt(e.environ(project), "save", "--json", texts[i])
		})
	}
	close(start)
	wg.Wait()

	ids := map[string]bool{}
	for i, r := range results {
		var s struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &s) != nil || s.Status != "saved" {
			t.Errorf("racer %d: %s", i, r)
			continue
		}
		ids[s.ID] = true
		t.Logf("racer %d saved in %s", i, r.took.Round(time.Millisecond))
	}
	if t.Failed() {
		t.FailNow()
	}

	st := e.waitReady(t, nil)
	if st.Memories != racers {
		t.Errorf("the daemon holds %d memories, want %d", st.Memories, racers)
	}
	if _, ok := e.liveDaemons(); !ok {
		t.Logf("no /proc here: checked the daemon through ihmt status only")
		return
	}
	waitFor(t, 10*time.Second, func() (bool, string) {
		pids, _ := e.liveDaemons()
		return slices.Equal(pids, []int{int(st.Pid)}), fmt.Sprintf("ihmtd processes for this socket: %v, want only %d", pids, st.Pid)
	})
	for _, f := range []string{"log.jsonl", "ihmtd.lock"} {
		path := filepath.Join(e.home, f)
		pids, _ := openers(path)
		if !slices.Equal(pids, []int{int(st.Pid)}) {
			t.Errorf("processes with %s open: %v, want only the daemon %d", f, pids, st.Pid)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.sockDir, "ihmtd.log")); err == nil {
		t.Logf("daemons the racers spawned: %d (%d refused by the lock)",
			strings.Count(string(b), "ihmtd listening")+strings.Count(string(b), "already running"),
			strings.Count(string(b), "already running"))
	}

	// All four saves are in the one daemon, by id.
	for id := range ids {
		var got struct {
			Memory struct {
				ID string `json:"id"`
			} `json:"memory"`
		}
		e.cliJSON(t, &got, e.environ(project), "get", "--json", id)
		if got.Memory.ID != id {
			t.Errorf("ihmt get %s returned %s", id, got.Memory.ID)
		}
	}
	if after := e.waitReady(t, nil); after.Pid != st.Pid {
		t.Errorf("the daemon changed from %d to %d", st.Pid, after.Pid)
	}
}

// TestIdleExit starts one daemon with -idle-exit 1s and one without: the
// first stops by itself about a second after its last call and removes its
// socket; the second is still serving after twice as long.
func TestIdleExit(t *testing.T) {
	const idle = time.Second
	idler, stayer := newEnv(t), newEnv(t)
	di := idler.startDaemon(t, "-idle-exit", idle.String())
	ds := stayer.startDaemon(t)
	idler.waitReady(t, di)
	// One more call, timed from before it starts: the daemon records the end
	// of the call as its last activity, so it may not exit before
	// lastCall+idle, whatever the scheduling.
	lastCall := time.Now()
	if _, err := idler.tryStatus(); err != nil {
		t.Fatal(err)
	}
	stayer.waitReady(t, ds)
	stayerLastCall := time.Now()

	code, _ := di.waitExit(t, 15*time.Second)
	after := time.Since(lastCall)
	if code != 0 {
		t.Errorf("idle exit: status %d, want 0\n%s", code, di.out)
	}
	// The ticker checks every idle/10, so the exit comes in [idle, idle+idle/10]
	// after the last call, plus process exit; the upper bound leaves room
	// for a loaded machine.
	if after < idle || after > idle+5*time.Second {
		t.Errorf("exited %s after the last call, want about %s", after.Round(time.Millisecond), idle)
	}
	t.Logf("-idle-exit %s: exited %s after the last call", idle, after.Round(time.Millisecond))
	if exists(idler.sock) {
		t.Errorf("idle exit left the socket %s behind", idler.sock)
	}
	if !strings.Contains(di.out.String(), "reason=idle") {
		t.Errorf("the log does not say the daemon stopped for being idle:\n%s", di.out)
	}

	// Positive control: without -idle-exit, twice as long idle changes nothing.
	select {
	case <-ds.done:
		t.Fatalf("the daemon without -idle-exit exited: %v\n%s", ds.waitErr, ds.out)
	case <-time.After(time.Until(stayerLastCall.Add(2 * idle))):
	}
	if st := stayer.waitReady(t, ds); st.IdleExit {
		t.Errorf("the daemon without -idle-exit reports idle exit")
	}
	if !isSocket(stayer.sock) {
		t.Errorf("the daemon without -idle-exit lost its socket")
	}
}

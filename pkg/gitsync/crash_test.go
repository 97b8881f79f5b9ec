package gitsync

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/store"
)

// childEnv names the store dir, the step to stop at and the file to
// create there, for a test binary run as a sync to be killed.
const childEnv = "IHMT_GITSYNC_KILL_AT"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(runChild(v))
	}
	os.Exit(m.Run())
}

// runChild syncs the store in dir and stops for good at step, once it has
// said so by creating the marker file: the parent then kills it.
func runChild(v string) int {
	dir, rest, _ := strings.Cut(v, "|")
	step, marker, _ := strings.Cut(rest, "|")
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sy := New(st, dir)
	sy.hook = func(s string) {
		if s == step {
			_ = os.WriteFile(marker, []byte(s), 0o600)
			time.Sleep(time.Hour) // until SIGKILL
		}
	}
	if _, err := sy.Sync(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 3 // never reached the step
}

// A sync killed with SIGKILL at any step and run again loses nothing and
// duplicates nothing: every memory of both machines is on both, each
// version is in the work tree once and in its device's journal once, and
// the journals verify.
func TestSyncKilledHalfwayAndRunAgain(t *testing.T) {
	for _, step := range []string{"published", "committed", "merged", "admitted"} {
		t.Run(step, func(t *testing.T) {
			remote := bareRemote(t)
			a, b := newMachine(t, remote, "a"), newMachine(t, remote, "b")
			for i := range 20 {
				a.save(t, agent, fmt.Sprintf("Service %d listens on port %d behind the gateway.", i, 8000+i), "")
				b.save(t, agent, fmt.Sprintf("Queue %d drains into the archive bucket every %d minutes.", i, i+1), "")
			}
			b.sync(t)
			if err := a.st.Close(); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(t.TempDir(), "stopped")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+a.dir+"|"+step+"|"+marker)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			deadline := time.After(60 * time.Second)
		wait:
			for {
				select {
				case err := <-exited:
					t.Fatalf("the sync ended before step %s: %v: %s", step, err, stderr.String())
				case <-deadline:
					t.Fatal("the sync never reached step " + step)
				case <-time.After(20 * time.Millisecond):
					if _, err := os.Stat(marker); err == nil {
						break wait
					}
				}
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			<-exited
			a.reopen(t)
			a.sync(t)
			b.sync(t)
			recs := sameRecords(t, a, b)
			if len(recs) != 40 {
				t.Errorf("%d memories after the killed sync and another, want 40", len(recs))
			}
			checkOnce(t, a, b)
			checkJournals(t, a, b)
		})
	}
}

// checkOnce fails when a version is in a work tree under two names, or a
// journal lists a version twice.
func checkOnce(t *testing.T, ms ...*machine) {
	t.Helper()
	for _, m := range ms {
		perID := map[string]int{}
		for p := range workFiles(t, m.sy.Dir()) {
			if id, _, ok := parseRecordPath(p); ok {
				perID[id]++
			}
		}
		for id, n := range perID {
			if n != 1 {
				t.Errorf("on %s memory %s has %d versions, want 1 (nothing changed it)", m.name, id, n)
			}
		}
		devs, _ := devices(m.sy.Dir())
		for _, d := range devs {
			seen := map[string]bool{}
			pubs, _, err := readPublished(journalPath(m.sy.Dir(), d))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = readJournalLines(journalPath(m.sy.Dir(), d), func(p publication) {
				if p.Op == opPublish {
					n++
					if seen[p.Record] {
						t.Errorf("on %s the journal of %s lists %s twice", m.name, d, p.Record)
					}
					seen[p.Record] = true
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if n != len(pubs) {
				t.Errorf("on %s the journal of %s has %d publications of %d versions", m.name, d, n, len(pubs))
			}
		}
	}
}

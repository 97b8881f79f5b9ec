package gitsync

import (
	"context"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// Three machines save a third of the dev set each and sync in several
// orders: every one ends with the union, memory for memory, and answers
// every question of the dev set the same — and each device's journal
// verifies on every machine.
func TestThreeMachinesEndWithTheUnion(t *testing.T) {
	mems, qs := devset(t)
	orders := []struct {
		name  string
		order []int
	}{
		{"abc-abc", []int{0, 1, 2, 0, 1}},
		{"cba-cab", []int{2, 1, 0, 2, 1}},
		{"interleaved", []int{1, 0, 2, 1, 0}},
	}
	for _, tc := range orders {
		t.Run(tc.name, func(t *testing.T) {
			remote := bareRemote(t)
			ms := []*machine{newMachine(t, remote, "laptop"), newMachine(t, remote, "desktop"), newMachine(t, remote, "box")}
			for i, m := range mems {
				ms[i%3].save(t, devsetCaller(m.Project, m.Agent), m.Text, m.Date)
			}
			for _, i := range tc.order {
				ms[i].sync(t)
			}
			union := sameRecords(t, ms...)
			if len(union) < len(mems)*9/10 {
				t.Fatalf("the union holds %d memories of the %d saved", len(union), len(mems))
			}
			for _, m := range ms {
				m.reopen(t) // a search is the same in every store for the same memories, from their files
			}
			for _, q := range qs {
				want := answer(t, ms[0].st, q)
				for _, m := range ms[1:] {
					if got := answer(t, m.st, q); got != want {
						t.Errorf("%s %q: %s answers %s, %s answers %s", q.QID, q.Query, ms[0].name, want, m.name, got)
					}
				}
			}
			checkJournals(t, ms...)
		})
	}
}

// checkJournals verifies every device's journal in every machine's work
// tree, and every store's own audit log.
func checkJournals(t *testing.T, ms ...*machine) {
	t.Helper()
	for _, m := range ms {
		devs, err := devices(m.sy.Dir())
		if err != nil {
			t.Fatal(err)
		}
		if len(devs) != len(ms) {
			t.Errorf("%s holds the journals of %v, want %d devices", m.name, devs, len(ms))
		}
		for _, d := range devs {
			rep, err := journal.Verify(journalPath(m.sy.Dir(), d), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) > 0 || rep.Anchor != "ok" {
				t.Errorf("on %s, the journal of %s does not verify: anchor %s, %+v", m.name, d, rep.Anchor, rep.Problems)
			}
		}
		audit, err := m.st.VerifyAudit()
		if err != nil {
			t.Fatal(err)
		}
		if len(audit.Problems) > 0 {
			t.Errorf("the audit log of %s does not verify: %+v", m.name, audit.Problems)
		}
	}
}

// A forget on one machine reaches the others, also one that still held
// the memory unchanged and synced after, and the memory never comes back:
// not by a sync, not by saving its text again.
func TestForgetReachesEveryMachine(t *testing.T) {
	remote := bareRemote(t)
	a, b, c := newMachine(t, remote, "a"), newMachine(t, remote, "b"), newMachine(t, remote, "c")
	l := a.save(t, agent, "The staging database is PostgreSQL 17 on port 5433.", "2025-01-10")
	for _, m := range []*machine{a, b, c} {
		m.sync(t)
	}
	if _, err := b.st.Forget(context.Background(), person, l.ID, "moved to another host"); err != nil {
		t.Fatal(err)
	}
	// c syncs before b: it still publishes the memory as it was.
	for _, m := range []*machine{c, b, a, c} {
		m.sync(t)
	}
	for _, m := range []*machine{a, b, c} {
		got, err := m.st.Get(person, l.ID, store.ScopeAll)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != leaf.StatusForgotten || got.Tombstone == nil || got.Tombstone.Reason != "moved to another host" {
			t.Errorf("on %s the memory is %s (%+v), want forgotten", m.name, got.Status, got.Tombstone)
		}
		res, err := m.st.Save(context.Background(), store.SaveInput{Caller: agent, Content: l.Text})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != store.Refused {
			t.Errorf("on %s saving the forgotten text again answered %v, want refused", m.name, res.Status)
		}
	}
	sameRecords(t, a, b, c)
	// Positive control: a memory nobody forgot is live everywhere.
	k := c.save(t, agent, "The CI runs on self-hosted runners in the basement.", "")
	c.sync(t)
	a.sync(t)
	if got, err := a.st.Get(agent, k.ID, store.ScopeDefault); err != nil || got.Status != leaf.StatusActive {
		t.Fatalf("a memory nobody forgot: %v %v", got.Status, err)
	}
}

// A purge on one machine removes the text from every other machine's
// files: its leaf, its log, and the sync work tree.
func TestPurgeRemovesTheTextEverywhere(t *testing.T) {
	remote := bareRemote(t)
	a, b, c := newMachine(t, remote, "a"), newMachine(t, remote, "b"), newMachine(t, remote, "c")
	const secretish = "My old home address was Calle Falsa 123, Zaragoza."
	l := a.save(t, person, secretish, "")
	kept := a.save(t, person, "I prefer table-driven tests in Go.", "")
	for _, m := range []*machine{a, b, c} {
		m.sync(t)
	}
	if _, err := a.st.Forget(context.Background(), person, l.ID, "private"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.st.Purge(context.Background(), person, l.ID); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*machine{a, b, c, a} {
		m.sync(t)
	}
	for _, m := range []*machine{a, b, c} {
		m.st.Flush()
		got, err := m.st.Get(person, l.ID, store.ScopeAll)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != leaf.StatusPurged || got.Text != "" {
			t.Errorf("on %s the memory is %s with text %q", m.name, got.Status, got.Text)
		}
		found, keptFound := grepDir(t, m.dir, "Calle Falsa"), grepDir(t, m.dir, "table-driven")
		if len(found) > 0 {
			t.Errorf("on %s the purged text is still in %v", m.name, found)
		}
		if len(keptFound) == 0 {
			t.Errorf("on %s the memory %s nobody purged is in no file (the check finds nothing)", m.name, kept.ID)
		}
	}
}

// grepDir lists the files under dir, but git's object store, that hold s.
func grepDir(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "objects" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), s) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Two machines that saved the same text at once end with one memory: the
// earlier save's, on both.
func TestSameTextOnTwoMachinesIsOneMemory(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, remote, "a"), newMachine(t, remote, "b")
	const text = "Deploys go out on Tuesdays after the standup."
	la := a.save(t, agent, text, "")
	lb := b.save(t, store.Caller{Agent: leaf.Agent{Name: "codex"}, Session: "s9"}, text, "")
	if la.ID != lb.ID {
		t.Fatalf("the same text has ids %s and %s", la.ID, lb.ID)
	}
	for _, m := range []*machine{a, b, a} {
		m.sync(t)
	}
	recs := sameRecords(t, a, b)
	if len(recs) != 1 {
		t.Fatalf("%d memories, want 1", len(recs))
	}
	first := la
	if lb.RecordedAt.Before(la.RecordedAt) {
		first = lb
	}
	if got := recs[la.ID]; !got.RecordedAt.Equal(first.RecordedAt) || got.Agent != first.Agent {
		t.Errorf("kept recorded_at %v by %v, want the earlier save's %v by %v", got.RecordedAt, got.Agent, first.RecordedAt, first.Agent)
	}
}

package gitsync

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// Saves on two machines while each syncs are neither lost nor doubled:
// the next syncs carry what the running ones did not.
func TestConcurrentSavesDuringSync(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, remote, "a"), newMachine(t, remote, "b")
	for i := range 10 {
		a.save(t, agent, fmt.Sprintf("Host alpha-%d runs the %d-th shard of the cache.", i, i), "")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, m := range []*machine{a, b} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 40 {
				res, err := m.st.Save(context.Background(), store.SaveInput{Caller: agent,
					Content: fmt.Sprintf("On %s, worker %d handles the %s queue number %d.", m.name, i, m.name, i*7)})
				if err == nil && res.Status != store.Saved {
					err = fmt.Errorf("save %d on %s: %v %s", i, m.name, res.Status, res.Message)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 2 {
				if _, err := m.sy.Sync(context.Background()); err != nil {
					errs <- fmt.Errorf("sync on %s: %w", m.name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, m := range []*machine{a, b, a} {
		m.sync(t)
	}
	if recs := sameRecords(t, a, b); len(recs) != 90 {
		t.Fatalf("%d memories, want 90", len(recs))
	}
	checkOnce(t, a, b)
}

// A version damaged or edited on the remote is refused and named; the
// versions beside it are admitted.
func TestDamagedRecordFromTheRemoteIsRefused(t *testing.T) {
	cases := []struct {
		name string
		edit func(t *testing.T, clone, path string)
		want string
	}{
		{"none (control)", func(*testing.T, string, string) {}, ""},
		{"text edited", func(t *testing.T, clone, path string) {
			editFile(t, filepath.Join(clone, path), "port 5433", "port 6543")
		}, "do not match the digest"},
		{"edited and renamed to its digest", func(t *testing.T, clone, path string) {
			full := filepath.Join(clone, path)
			editFile(t, full, "port 5433", "port 6543")
			data, _ := os.ReadFile(full)
			id, _, _ := parseRecordPath(path)
			gitIn(t, clone, "mv", path, recordPath(id, digest(data)))
		}, "no device's journal lists it"},
		{"journal edited", func(t *testing.T, clone, path string) {
			editFile(t, journalPath(clone, "a"), `"status":"active"`, `"status":"purged"`)
		}, "does not verify"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			remote := bareRemote(t)
			a := newMachine(t, remote, "a")
			bad := a.save(t, agent, "The staging database listens on port 5433.", "")
			good := a.save(t, agent, "The staging cache is Redis 7.", "")
			a.sync(t)
			clone := filepath.Join(t.TempDir(), "clone")
			gitIn(t, "", "clone", "-q", remote, clone)
			path := onlyVersion(t, clone, bad.ID)
			tc.edit(t, clone, path)
			gitIn(t, clone, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "hand edit", "--allow-empty")
			gitIn(t, clone, "push", "-q", "origin", "HEAD:main")

			b := newMachine(t, remote, "b")
			rep := b.sync(t)
			_, errBad := b.st.Get(person, bad.ID, store.ScopeAll)
			if _, err := b.st.Get(person, good.ID, store.ScopeAll); err != nil && !strings.Contains(tc.name, "journal") {
				t.Errorf("the untouched memory was not admitted: %v", err)
			}
			all := strings.Join(append(refusals(rep), rep.Problems...), "\n")
			if tc.want == "" {
				if errBad != nil || all != "" {
					t.Fatalf("nothing edited, yet: %v; %s", errBad, all)
				}
				return
			}
			if errBad == nil {
				t.Errorf("the edited memory was admitted")
			}
			if !strings.Contains(all, tc.want) {
				t.Errorf("the report says %q, want it to say %q", all, tc.want)
			}
			if !strings.Contains(tc.name, "journal") && !strings.Contains(all, bad.ID) {
				t.Errorf("the report does not name %s: %s", bad.ID, all)
			}
		})
	}
}

func refusals(rep Report) []string {
	var out []string
	for _, r := range rep.Refused {
		out = append(out, r.String())
	}
	return out
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

func editFile(t *testing.T, path, old, nw string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not hold %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, nw, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func onlyVersion(t *testing.T, tree, id string) string {
	t.Helper()
	for p := range workFiles(t, tree) {
		if got, _, ok := parseRecordPath(p); ok && got == id {
			return p
		}
	}
	t.Fatalf("no version of %s in %s", id, tree)
	return ""
}

// A version that holds a secret never leaves its machine, and is named;
// a clean one beside it, which reached the store the same way, does.
func TestSecretsNeverLeave(t *testing.T) {
	remote := bareRemote(t)
	dir := filepath.Join(t.TempDir(), "a")
	// Leaves written before the screen knew this kind of token, say: the
	// store holds them, and sync must still not send them.
	secret := plantLeaf(t, dir, "The deploy token is ghp_"+strings.Repeat("x1Y2", 9)+" for the CI bot.")
	clean := plantLeaf(t, dir, "The CI bot deploys from the release branch.")
	a := openMachine(t, dir, remote, "a")
	rep := a.sync(t)
	all := strings.Join(refusals(rep), "\n")
	if !strings.Contains(all, "not sent: memory "+secret) {
		t.Errorf("the report does not name %s as not sent: %q", secret, all)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, "", "clone", "-q", remote, clone)
	files := workFiles(t, clone)
	var sent []string
	for p, data := range files {
		if id, _, ok := parseRecordPath(p); ok {
			sent = append(sent, id)
		}
		if strings.Contains(data, "ghp_") {
			t.Errorf("the remote holds the secret in %s", p)
		}
	}
	if len(sent) != 1 || sent[0] != clean {
		t.Errorf("the remote holds %v, want only the clean memory %s", sent, clean)
	}
}

// plantLeaf writes a leaf file into the store in dir as an older version
// of the store could have, and returns its id.
func plantLeaf(t *testing.T, dir, text string) string {
	t.Helper()
	h := leaf.Header{Scope: leaf.ScopeGlobal, Agent: leaf.Agent{Name: "claude-code"}, Trust: leaf.TrustAsserted, Status: leaf.StatusActive}
	h.RecordedAt = mustTime(t, "2025-06-01T10:00:00Z")
	h.ValidFrom = h.RecordedAt
	h.Checksum = leaf.Checksum(text)
	h.ID = leaf.ID(h, text)
	data, err := leaf.Encode(leaf.Leaf{Header: h, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "leaves", h.ID[:2], h.ID+".txt")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return h.ID
}

// After a sync, the store's derived state is what a rebuild from its leaf
// files alone gives: the same memories and the same answers.
func TestDerivedStateEqualsARebuild(t *testing.T) {
	remote := bareRemote(t)
	a, b := newMachine(t, remote, "a"), newMachine(t, remote, "b")
	old := a.save(t, agent, "I live in Madrid.", "2024-03-11")
	a.save(t, agent, "The build uses Bazel 7 with remote caching.", "")
	b.save(t, agent, "I live in Valencia.", "2025-09-02")
	gone := b.save(t, agent, "The old VPN endpoint is vpn1.example.net.", "")
	if _, err := b.st.Forget(context.Background(), person, gone.ID, "decommissioned"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*machine{a, b, a} {
		m.sync(t)
	}
	a.st.Flush()
	rebuilt := filepath.Join(t.TempDir(), "rebuilt")
	gitIn(t, "", "init", "-q", rebuilt) // any directory; the leaves are copied in
	copyTree(t, filepath.Join(a.dir, "leaves"), filepath.Join(rebuilt, "leaves"))
	if err := os.RemoveAll(filepath.Join(rebuilt, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(rebuilt, 0o700); err != nil {
		t.Fatal(err)
	}
	r, err := store.Open(rebuilt, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a.reopen(t)
	want := a.records(t)
	got := (&machine{name: "rebuilt", st: r}).records(t)
	if len(got) != len(want) || len(want) != 4 {
		t.Fatalf("the rebuild holds %d memories, the synced store %d (want 4)", len(got), len(want))
	}
	for _, q := range []string{"where do I live", "which build system", "VPN endpoint"} {
		in := store.SearchInput{Caller: agent, Query: q}
		x, _ := a.st.Search(in)
		y, _ := r.Search(in)
		if fmt.Sprint(x.Verdict, ids(x)) != fmt.Sprint(y.Verdict, ids(y)) {
			t.Errorf("%q: synced answers %v %v, the rebuild %v %v", q, x.Verdict, ids(x), y.Verdict, ids(y))
		}
	}
	_ = old
}

func ids(r store.SearchResult) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, fmt.Sprint(h.Leaf.ID, h.Current))
	}
	return out
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A version that holds a secret is refused on arrival even when a device
// whose journal verifies published it (another program, an older or
// modified sync): admission screens it as it screens an import. The same
// device's clean version beside it is admitted (the control).
func TestArrivingSecretIsRefused(t *testing.T) {
	remote := bareRemote(t)
	a := newMachine(t, remote, "a")
	a.sync(t)
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, "", "clone", "-q", remote, clone)
	secret := publishByHand(t, clone, "rogue", "The deploy token is ghp_"+strings.Repeat("x1Y2", 9)+" for the CI bot.")
	clean := publishByHand(t, clone, "rogue", "The CI bot deploys from the release branch.")
	gitIn(t, clone, "add", "-A")
	gitIn(t, clone, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "rogue device")
	gitIn(t, clone, "push", "-q", "origin", "HEAD:main")

	rep := a.sync(t)
	all := strings.Join(refusals(rep), "\n")
	if !strings.Contains(all, secret) || !strings.Contains(all, "secret") {
		t.Errorf("the report does not name %s as holding a secret: %q", secret, all)
	}
	if _, err := a.st.Get(person, secret, store.ScopeAll); err == nil {
		t.Errorf("the memory holding a secret was stored")
	}
	if _, err := a.st.Get(person, clean, store.ScopeAll); err != nil {
		t.Errorf("the clean memory of the same device was not admitted: %v", err)
	}
}

// publishByHand writes a version of a new memory holding text into a clone
// of the remote, listed in device's journal as sync would list it, and
// returns the memory's id.
func publishByHand(t *testing.T, tree, device, text string) string {
	t.Helper()
	h := leaf.Header{Scope: leaf.ScopeGlobal, Agent: leaf.Agent{Name: "codex"}, Trust: leaf.TrustAsserted, Status: leaf.StatusActive}
	h.RecordedAt = mustTime(t, "2025-06-01T10:00:00Z")
	h.ValidFrom = h.RecordedAt
	h.Checksum = leaf.Checksum(text)
	h.ID = leaf.ID(h, text)
	b, err := json.Marshal(record{Header: h, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	data := fileData(string(b))
	sum := digest(data)
	p := filepath.Join(tree, recordPath(h.ID, sum))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	jp := journalPath(tree, device)
	if err := os.MkdirAll(filepath.Dir(jp), 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(jp)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	line, _ := json.Marshal(publication{Seq: j.Entries() + 1, Op: opPublish, Device: device, ID: h.ID, Record: sum, Status: h.Status})
	if err := j.Append([][]byte{line}); err != nil {
		t.Fatal(err)
	}
	return h.ID
}

package store

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// filesHolding lists the files under dir whose bytes contain any of words.
func filesHolding(t *testing.T, dir string, words []string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, w := range words {
			if bytes.Contains(bytes.ToLower(data), []byte(strings.ToLower(w))) {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel+" ("+w+")")
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPurgeLeavesNoTrace: after consolidate, a purged memory's words are in
// no file under the store — leaf, log, branches (its parents too), root,
// catalog, snapshots — and stay out across a restart and a consolidation;
// a positive control shows they were there before, and the other memories'
// words stay.
func TestPurgeLeavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	// Word stems, so a stemmed keyword is caught too.
	words := []string{"quokkabor", "zebrafisht", "marmotva"}
	var purged SaveResult
	for i := range 40 {
		text := "Deploy note " + string(rune('a'+i%26)) + ": the staging cluster keeps its cache warm for service " + strings.Repeat("x", i%5) + "."
		if i == 17 {
			text = "The quokkaborne office moved to zebrafishton street, next to the marmotvale bakery."
		}
		r := save(t, s, alice, text, ScopeGlobal)
		if i == 17 {
			purged = r
		}
	}
	if _, _, err := s.Consolidate(ctx, true); err != nil {
		t.Fatal(err)
	}
	// A clean close leaves the index and facts snapshots, which hold the
	// memory's words too.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	s.Flush()
	before := filesHolding(t, dir, words)
	inTree, inSnapshot := 0, false
	for _, f := range before {
		if strings.HasPrefix(f, "tree"+string(filepath.Separator)) {
			inTree++
		}
		inSnapshot = inSnapshot || strings.HasPrefix(f, indexName)
	}
	if inTree < 2 || !inSnapshot {
		t.Fatalf("control: the words should be in the leaf, the log, the index snapshot and the tree's files before the purge, found in %v", before)
	}
	if _, err := s.Forget(ctx, alice, purged.Leaf.ID, "moved out"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Consolidate(ctx, true); err != nil {
		t.Fatal(err)
	}
	pr, err := s.Purge(ctx, nobody, purged.Leaf.ID)
	if err != nil {
		t.Fatal(err)
	}
	if pr.TreeFiles == 0 || !strings.Contains(pr.Message, "summary tree") {
		t.Errorf("purge should say what it removed from the tree: %+v", pr)
	}
	s.Flush()
	if left := filesHolding(t, dir, words); len(left) > 0 {
		t.Fatalf("after purge the words are still in %v", left)
	}
	if _, _, err := s.Consolidate(ctx, true); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := open(t, dir)
	if _, _, err := s2.Consolidate(ctx, true); err != nil {
		t.Fatal(err)
	}
	s2.Flush()
	if left := filesHolding(t, dir, words); len(left) > 0 {
		t.Fatalf("after a restart the words are back in %v", left)
	}
	if got := filesHolding(t, dir, []string{"staging cluster keeps its cache warm"}); len(got) == 0 {
		t.Fatal("control: the other memories' text must stay")
	}
	if r := find(t, s2, SearchInput{Caller: alice, Query: "staging cluster cache warm"}); len(r.Hits) == 0 {
		t.Fatal("control: the other memories must still be found")
	}
	if st := s2.TreeStats(); st.Leaves != 39 {
		t.Errorf("tree holds %d leaves after the purge, want the 39 others", st.Leaves)
	}
}

// TestImportAfterForget: an export taken before a forget and a purge does
// not bring the memories back: a tombstone and a purge outrank the older
// records, which are skipped and counted; a record the store never forgot
// is imported as usual (the control), and the purged text stays out of
// every file.
func TestImportAfterForget(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	kept := save(t, s, alice, "The build server is called hornbeam.", ScopeGlobal)
	forgot := save(t, s, alice, "The old VPN gateway is vpn-legacy-7.", ScopeGlobal)
	purged := save(t, s, alice, "Dana's locker code sits behind the wombatquay poster.", ScopeGlobal)
	out, _, err := s.Export(nobody, ScopeAll, 0)
	if err != nil || len(out) != 3 {
		t.Fatalf("export = %d, %v", len(out), err)
	}
	if _, err := s.Forget(ctx, alice, forgot.Leaf.ID, "gateway retired"); err != nil {
		t.Fatal(err)
	}
	s.Forget(ctx, alice, purged.Leaf.ID, "private")
	if _, err := s.Purge(ctx, nobody, purged.Leaf.ID); err != nil {
		t.Fatal(err)
	}
	// A memory deleted from the store entirely (a fresh store has no
	// tombstone for it) comes back: the control for the rule.
	fresh := open(t, t.TempDir())
	if r, err := fresh.Import(ctx, nobody, out); err != nil || r.Imported != 3 || r.Skipped != 0 {
		t.Fatalf("import into a fresh store = %+v, %v", r, err)
	}
	res, err := s.Import(ctx, nobody, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 2 || res.Unchanged != 1 || res.Imported != 0 {
		t.Fatalf("import after forget = %+v, want 2 skipped, 1 unchanged", res)
	}
	if !strings.Contains(res.SkippedNote, "forgotten on ") || !strings.Contains(res.SkippedNote, "purged on ") {
		t.Errorf("skipped note %q should say forgotten on … and purged on …", res.SkippedNote)
	}
	for _, id := range []string{forgot.Leaf.ID, purged.Leaf.ID} {
		if r := find(t, s, SearchInput{Caller: alice, Query: "VPN gateway locker poster"}); rankOf(r, id) >= 0 {
			t.Errorf("%s is found again after the import", id)
		}
	}
	if l, err := s.Get(nobody, forgot.Leaf.ID, ScopeAll); err != nil || l.Status != "forgotten" {
		t.Errorf("forgotten memory after import: %+v, %v", l.Header, err)
	}
	s.Flush()
	if left := filesHolding(t, dir, []string{"wombatquay"}); len(left) > 0 {
		t.Errorf("the purged text came back with the import: %v", left)
	}
	if r := find(t, s, SearchInput{Caller: alice, Query: "build server hornbeam"}); rankOf(r, kept.Leaf.ID) != 0 {
		t.Error("control: the memory never forgotten must still be found")
	}
	// A later export (taken after the forget) is the store's own news:
	// importing it changes nothing and skips nothing.
	later, _, _ := s.Export(nobody, ScopeAll, 0)
	if r, err := s.Import(ctx, nobody, later); err != nil || r.Skipped != 0 || r.Unchanged != 3 {
		t.Errorf("re-import of a current export = %+v, %v", r, err)
	}
}

// TestFieldsScreened: a secret in any field that is stored or logged —
// tags, domain, a forget's reason, a review note, a scope=all query — is
// refused with its kind and place, and never written; the same fields
// without a secret are accepted (the control).
func TestFieldsScreened(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	tok := "ghp_" + "Xq7RmT2vLk9PzW4nBc8YdF3sHj6GtA1uKe5N"
	r, err := s.Save(ctx, SaveInput{Caller: alice, Content: "Tagged note about deploys.", Tags: []string{"deploy", tok[:18], tok[18:]}, Scope: ScopeGlobal})
	if err != nil || r.Status != Refused || !strings.Contains(r.Message, "in the tags") {
		t.Errorf("secret in tags: %+v, %v", r, err)
	}
	r, err = s.Save(ctx, SaveInput{Caller: alice, Content: "Domain note about deploys.", Domain: "ops." + tok, Scope: ScopeGlobal})
	if err != nil || r.Status != Refused || !strings.Contains(r.Message, "in the domain") {
		t.Errorf("secret in domain: %+v, %v", r, err)
	}
	ok := saveIn(t, s, SaveInput{Caller: alice, Content: "Control note about deploys.", Tags: []string{"deploy", "ops"}, Domain: "ops", Scope: ScopeGlobal})
	if ok.Status != Saved {
		t.Fatalf("control save: %+v", ok)
	}
	if _, err := s.Forget(ctx, alice, ok.Leaf.ID, "it had the admin password Hunter2024! in it"); err == nil || !strings.Contains(err.Error(), "in the reason") {
		t.Errorf("secret in a forget reason: %v", err)
	}
	if _, err := s.Search(SearchInput{Caller: alice, Query: "deploys " + tok, Scope: ScopeAll}); err == nil || !strings.Contains(err.Error(), "in the query") {
		t.Errorf("secret in a scope=all query: %v", err)
	}
	if _, err := s.Search(SearchInput{Caller: alice, Query: "deploys", Scope: ScopeAll}); err != nil {
		t.Errorf("control scope=all search: %v", err)
	}
	if _, err := s.Forget(ctx, alice, ok.Leaf.ID, "superseded by the runbook"); err != nil {
		t.Errorf("control forget: %v", err)
	}
	// An imported record is held to the same: a secret in its tags is
	// refused, naming the record; the record without it imports.
	out, _, _ := s.Export(nobody, ScopeAll, 0)
	var rec map[string]any
	json.Unmarshal([]byte(out[0]), &rec)
	rec["tags"] = []string{"ops", tok[:18], tok[18:]}
	bad, _ := json.Marshal(rec)
	if _, err := open(t, t.TempDir()).Import(ctx, nobody, []string{string(bad)}); err == nil || !strings.Contains(err.Error(), "in the tags") {
		t.Errorf("a secret in an imported record's tags: %v", err)
	}
	if r, err := open(t, t.TempDir()).Import(ctx, nobody, out); err != nil || r.Imported != len(out) {
		t.Errorf("control import: %+v, %v", r, err)
	}
	s.Flush()
	if left := filesHolding(t, dir, []string{tok[4:20], "Hunter2024"}); len(left) > 0 {
		t.Errorf("a refused field reached disk: %v", left)
	}
}

// TestAuditCatchesCutLog: entries cut from the end of the log, or the log
// emptied, are caught by VerifyAudit — while the store runs, after a
// restart (Open records the cut in the log itself), and with the anchor
// deleted too (the leaves show the memories existed) — and named; the
// untouched log passes (the control).
func TestAuditCatchesCutLog(t *testing.T) {
	type cut struct {
		name       string
		keep       int  // lines kept
		dropAnchor bool // delete the anchor too
		restart    bool
		want       string // in some problem's detail
	}
	for _, c := range []cut{
		{name: "last two entries cut", keep: 3, want: "entries 4 to 5 were cut off"},
		{name: "log emptied", keep: 0, want: "all of them are missing"},
		{name: "cut, then a restart", keep: 3, restart: true, want: "found when the log was opened: the log ends at entry 3"},
		{name: "emptied with its anchor, then a restart", keep: 0, dropAnchor: true, restart: true, want: "its entry is missing from the log"},
		{name: "cut with its anchor", keep: 4, dropAnchor: true, want: "its entry is missing from the log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			var ids []string
			for _, w := range []string{"one", "two", "three", "four", "five"} {
				ids = append(ids, save(t, s, alice, "Audit memory number "+w+".", ScopeGlobal).Leaf.ID)
			}
			s.Flush()
			if rep, err := s.VerifyAudit(); err != nil || len(rep.Problems) != 0 || rep.Anchor != "ok" {
				t.Fatalf("control, untouched: %+v, %v", rep, err)
			}
			path := filepath.Join(dir, logName)
			data, _ := os.ReadFile(path)
			lines := bytes.SplitAfter(data, []byte("\n"))
			os.WriteFile(path, bytes.Join(lines[:c.keep], nil), 0o600)
			if c.dropAnchor {
				os.Remove(path + ".anchor")
			}
			if c.restart {
				s.Close()
				s = open(t, dir)
			}
			rep, err := s.VerifyAudit()
			if err != nil {
				t.Fatal(err)
			}
			var details []string
			for _, p := range rep.Problems {
				details = append(details, p.Detail)
			}
			all := strings.Join(details, "\n")
			if !strings.Contains(all, c.want) {
				t.Fatalf("problems %q do not say %q", details, c.want)
			}
			// The leaves of the memories whose entries are gone are named.
			if c.dropAnchor && !strings.Contains(all, ids[len(ids)-1]) {
				t.Errorf("the last memory %s is not named: %q", ids[len(ids)-1], details)
			}
		})
	}
}

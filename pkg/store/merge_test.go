package store

import (
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// TestMergeJoinsAndNamesWhatItRefuses: a merge stores the join of what a
// store holds and what arrived, refuses a damaged record by its position
// while admitting the rest, changes nothing the second time, and is the
// person's only.
func TestMergeJoinsAndNamesWhatItRefuses(t *testing.T) {
	src := open(t, t.TempDir())
	kept := saveIn(t, src, SaveInput{Caller: alice, Content: "The staging host is db-7."})
	gone := saveIn(t, src, SaveInput{Caller: alice, Content: "The old VPN is vpn1."})
	if _, err := src.Forget(ctx, alice, gone.Leaf.ID, "decommissioned"); err != nil {
		t.Fatal(err)
	}
	recs, _, err := src.SyncRecords(0)
	if err != nil || len(recs) != 2 {
		t.Fatalf("sync records = %d, %v", len(recs), err)
	}
	dst := open(t, t.TempDir())
	// The destination holds the forgotten memory still live: the forget
	// that arrives wins (leaf.Join).
	saveIn(t, dst, SaveInput{Caller: alice, Content: "The old VPN is vpn1."})
	damaged := strings.Replace(recs[0], "db-7", "db-8", 1)

	if _, err := dst.Merge(ctx, alice, recs); err == nil {
		t.Errorf("an agent's merge was accepted")
	}
	res, err := dst.Merge(ctx, nobody, []string{damaged, recs[1]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refused) != 1 || res.Refused[0].Index != 0 || !strings.Contains(res.Refused[0].Reason, "checksum") {
		t.Errorf("refused = %+v, want record 0 for its checksum", res.Refused)
	}
	if got, err := dst.Get(nobody, gone.Leaf.ID, ScopeAll); err != nil || got.Status != leaf.StatusForgotten {
		t.Errorf("the forget that arrived: %v %v", got.Status, err)
	}
	res, err = dst.Merge(ctx, nobody, recs)
	if err != nil || res.Admitted != 1 || res.Unchanged != 1 || len(res.Refused) != 0 {
		t.Fatalf("merge of both = %+v, %v; want the kept one admitted, the forgotten one unchanged", res, err)
	}
	if _, err := dst.Get(nobody, kept.Leaf.ID, ScopeAll); err != nil {
		t.Errorf("the undamaged record was not stored: %v", err)
	}
	if res, err := dst.Merge(ctx, nobody, recs); err != nil || res.Unchanged != 2 || res.Admitted != 0 {
		t.Errorf("merging again = %+v, %v; want nothing changed", res, err)
	}
}

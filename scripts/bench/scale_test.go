package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/corpus"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// TestRecordOfIsWhatSaveStores saves memories through a daemon, exports
// them and compares each with the bulk record of the same memory: the scale
// run's store must have the shape a store of saves has. Only the clocks
// and the session may differ (the bulk records set their own), and the
// probable corrections a save infers, which an import does not.
func TestRecordOfIsWhatSaveStores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon")
	}
	ctx := context.Background()
	b, cleanup, err := newBench(config{seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	d, err := b.startDaemon(ctx, "shape")
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	cs, err := newClients(d.p.Socket, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(cs)
	const n = 30 // global and project memories, dated and not
	for i := range n {
		if resp, err := cs[0].Save(ctx, saveReq(11, i, "shape")); err != nil || resp.GetStatus() != ihmtv1.SaveStatus_SAVE_STATUS_SAVED {
			t.Fatalf("save %d: %v %v", i, resp.GetStatus(), err)
		}
	}
	saved := exportedHeaders(t, cs[0])
	if len(saved) != n {
		t.Fatalf("exported %d memories, saved %d", len(saved), n)
	}
	dated, global := 0, 0
	for i := range n {
		if _, g := corpus.ProjectOf(i); g {
			global++
		}
		s, err := recordOf(11, i, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var rec bulkRecord
		json.Unmarshal([]byte(s), &rec)
		want, ok := saved[rec.Text]
		if !ok {
			t.Fatalf("memory %d: its bulk text was not saved: %q", i, rec.Text)
		}
		got := rec.Header
		if !got.ValidFrom.Equal(got.RecordedAt) { // a text that opens with its date
			dated++
			if !got.ValidFrom.Equal(want.ValidFrom) {
				t.Errorf("memory %d: valid from %v, a save %v", i, got.ValidFrom, want.ValidFrom)
			}
		}
		got.ValidFrom, got.RecordedAt, got.Session = want.ValidFrom, want.RecordedAt, want.Session
		// The probable corrections a save infers are not in a bulk record
		// (see importBulk): the one difference in shape, said in the report.
		want.Probable = nil
		a, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(a) != string(w) {
			t.Errorf("memory %d: bulk header\n%s\nsaved header\n%s", i, a, w)
		}
	}
	if dated == 0 || global == 0 || global == n {
		t.Fatalf("%d memories: %d dated, %d global: the test compares too little", n, dated, global)
	}
}

// exportedHeaders exports every memory through c: its header by its text.
func exportedHeaders(t *testing.T, c *client.Client) map[string]leaf.Header {
	t.Helper()
	exp, err := c.Export(context.Background(), &ihmtv1.ExportRequest{Caller: &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, AgentVersion: "1", SessionId: "t"}, Scope: ihmtv1.SearchScope_SEARCH_SCOPE_ALL})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]leaf.Header{}
	for _, r := range exp.GetRecords() {
		var rec bulkRecord
		if err := json.Unmarshal([]byte(r), &rec); err != nil {
			t.Fatal(err)
		}
		out[rec.Text] = rec.Header
	}
	return out
}

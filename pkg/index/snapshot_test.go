package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// buildLikeStore builds an index the way the store does: documents added
// in order, each linked to its conversation's last two when it is added,
// hidden right after when it is not live.
func buildLikeStore(n int, seed uint64) *Index {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"postgres", "redis", "kafka", "madrid", "deploy", "cache", "billing", "why", "port", "tokio", "grafana", "sunset"}
	ix := New()
	last := map[Group][]Doc{}
	for i := range n {
		var text string
		for range 3 + r.IntN(12) {
			text += words[r.IntN(len(words))] + " "
		}
		if r.IntN(5) == 0 {
			text += "what happened?"
		}
		g := Group(r.IntN(3))
		d := ix.Add(text, g)
		for k, p := range last[g] {
			toNew, toPrev := NeighbourLink(k+1, r.IntN(2) == 0, Asks(text))
			ix.Link(d, p, toNew, toPrev)
		}
		if i%7 == 3 { // a document with more links than fit inline
			for _, p := range last[g] {
				ix.Link(d, p, 0.125, 0.125)
			}
		}
		last[g] = append([]Doc{d}, last[g][:min(len(last[g]), 1)]...)
		if r.IntN(6) == 0 {
			ix.SetLive(d, false)
		}
	}
	return ix
}

// sameIndex compares what two indexes hold and the statistics they rank
// with, to the bit; the scratch space Add reuses is not compared.
func sameIndex(t *testing.T, got, want *Index) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"k1", got.k1, want.k1}, {"b", got.b, want.b}, {"terms", got.terms, want.terms},
		{"lists", got.lists, want.lists}, {"docs", got.docs, want.docs}, {"links", got.links, want.links},
		{"more", got.more, want.more}, {"groups", got.groups, want.groups},
		{"totalLen", got.totalLen, want.totalLen}, {"live", got.live, want.live},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s differs after the snapshot:\n got %v\nwant %v", f.name, clipAny(f.got), clipAny(f.want))
		}
	}
}

func clipAny(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		ix   *Index
	}{
		{"empty", New()},
		{"one document", func() *Index { ix := New(); ix.Add("hello world", 0); return ix }()},
		{"options", func() *Index { ix := NewWithOptions(Options{K1: 2, B: 0.9}); ix.Add("hello", 1); return ix }()},
		{"built like the store, small", buildLikeStore(50, 1)},
		{"built like the store, large", buildLikeStore(3000, 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.ix.AppendSnapshot([]byte("prefix"))[len("prefix"):]
			got, rest, err := ReadSnapshot(append(data, "tail"...))
			if err != nil {
				t.Fatal(err)
			}
			if string(rest) != "tail" {
				t.Errorf("rest = %q, want the bytes after the snapshot", rest)
			}
			sameIndex(t, got, tc.ix)
			// And the index read back keeps growing like the original.
			for _, ix := range []*Index{got, tc.ix} {
				d := ix.Add("redis cache again", 0)
				if d > 0 {
					ix.Link(d, d-1, 0.5, 0.5)
				}
			}
			sameIndex(t, got, tc.ix)
		})
	}
}

// TestSnapshotSearchesAlike: the same queries rank the same documents
// with the same scores on the index and on its snapshot read back.
func TestSnapshotSearchesAlike(t *testing.T) {
	ix := buildLikeStore(2000, 3)
	got, _, err := ReadSnapshot(ix.AppendSnapshot(nil))
	if err != nil {
		t.Fatal(err)
	}
	queries := [][]string{{"postgr"}, {"redi", "cach"}, {"madrid", "sunset", "why"}, {"nowher"}, {"deploy", "port", "tokio", "grafana"}}
	hits := 0
	for _, q := range queries {
		want, _ := ix.Search(Query{Terms: q, Visible: all, Limit: 20})
		have, _ := got.Search(Query{Terms: q, Visible: all, Limit: 20})
		if !reflect.DeepEqual(have, want) {
			t.Errorf("query %v: got %v, want %v", q, have, want)
		}
		hits += len(want)
	}
	if hits == 0 {
		t.Fatal("no query found anything: the comparison compared nothing")
	}
}

func TestSnapshotRefusesDamage(t *testing.T) {
	good := buildLikeStore(200, 4).AppendSnapshot(nil)
	flip := func(at int) []byte { b := append([]byte(nil), good...); b[at] ^= 0xff; return b }
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not a snapshot", []byte("hello, world")},
		{"truncated", good[:len(good)/2]},
		{"truncated by one byte", good[:len(good)-1]},
		{"another format", func() []byte {
			b := append([]byte(nil), good...)
			b[len(snapshotMagic)] = SnapshotVersion + 1
			return b
		}()},
		{"damaged magic", flip(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ReadSnapshot(tc.data); err == nil {
				t.Fatal("damaged snapshot read without error")
			}
		})
	}
	if _, _, err := ReadSnapshot(good); err != nil {
		t.Fatalf("positive control: the undamaged snapshot: %v", err)
	}
}

func TestIndexed(t *testing.T) {
	ix := New()
	d := ix.Add("Redis caches the billing API", 0)
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Redis caches the billing API", true},
		{"Redis caches the billing", false},
		{"Redis caches the billing API API", false},
		{"Kafka caches the billing API", false},
	} {
		if got := ix.Indexed(d, tc.text); got != tc.want {
			t.Errorf("Indexed(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	if ix.Indexed(d+1, "") {
		t.Error("a document past the last is indexed")
	}
}

// FuzzReadSnapshot: a snapshot comes from a file; whatever it holds,
// reading it and searching what was read must not panic.
func FuzzReadSnapshot(f *testing.F) {
	f.Add(buildLikeStore(30, 5).AppendSnapshot(nil))
	f.Add(buildLikeStore(3, 6).AppendSnapshot(nil))
	f.Add(New().AppendSnapshot(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, _, err := ReadSnapshot(data)
		if err != nil {
			return
		}
		for t := range ix.terms {
			ix.Search(Query{Terms: []string{t, "redi"}, Visible: all, Limit: 5})
			for d := range ix.docs {
				ix.Contains(Doc(d), t)
			}
		}
		if len(ix.docs) > 0 {
			ix.SetLive(0, !ix.Live(0))
			ix.Add("more words", 0)
		}
	})
}

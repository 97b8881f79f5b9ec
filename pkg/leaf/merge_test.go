package leaf

import (
	"encoding/json"
	"testing"
	"time"
)

func joinVersions(t *testing.T) map[string]Leaf {
	t.Helper()
	at := func(d int) time.Time { return time.Date(2026, 1, d, 10, 0, 0, 0, time.UTC) }
	text := "The staging database is PostgreSQL 17."
	base := Leaf{Header: Header{Scope: ScopeGlobal, Agent: Agent{Name: "claude-code"}, Session: "s1",
		Trust: TrustAsserted, Status: StatusActive, RecordedAt: at(1), ValidFrom: at(1), Checksum: Checksum(text)}, Text: text}
	base.ID = ID(base.Header, text)
	v := func(edit func(*Leaf)) Leaf {
		l := base
		l.Header = cloneHeader(base.Header)
		edit(&l)
		return l
	}
	purgedAt := at(6)
	return map[string]Leaf{
		"saved":       base,
		"saved later": v(func(l *Leaf) { l.RecordedAt, l.Agent = at(2), Agent{Name: "codex"} }),
		"forgotten":   v(func(l *Leaf) { l.Status, l.Tombstone = StatusForgotten, &Tombstone{At: at(4), Reason: "moved"} }),
		"forgotten earlier elsewhere": v(func(l *Leaf) {
			l.Status, l.Tombstone = StatusForgotten, &Tombstone{At: at(3), Reason: "wrong"}
		}),
		"purged": v(func(l *Leaf) {
			l.Status, l.Text, l.Tombstone = StatusPurged, "", &Tombstone{At: at(4), Reason: "moved", PurgedAt: &purgedAt}
		}),
		"approved":  v(func(l *Leaf) { l.Trust, l.ReviewNote = TrustVerified, "checked" }),
		"rejected":  v(func(l *Leaf) { l.Trust = TrustRejected }),
		"corrected": v(func(l *Leaf) { l.CorrectedBy = []Link{{ID: "00000000000000aa", At: at(5)}} }),
		"corrected twice": v(func(l *Leaf) {
			l.CorrectedBy = []Link{{ID: "00000000000000bb", At: at(7)}, {ID: "00000000000000aa", At: at(8)}}
		}),
		"probable": v(func(l *Leaf) { l.Probable = []Probable{{ID: "00000000000000cc", Confidence: 0.6}} }),
	}
}

func js(l Leaf) string {
	b, _ := json.Marshal(l)
	return string(b)
}

// Join is commutative, associative and idempotent over every pair and
// triple of versions: whatever order versions arrive in, every machine
// keeps the same memory.
func TestJoinIsOrderFree(t *testing.T) {
	vs := joinVersions(t)
	for an, a := range vs {
		if got := js(Join(a, a)); got != js(Join(Join(a, a), a)) {
			t.Errorf("%s: Join(a, a) is not stable", an)
		}
		for bn, b := range vs {
			if js(Join(a, b)) != js(Join(b, a)) {
				t.Errorf("Join(%s, %s) != Join(%s, %s):\n%s\n%s", an, bn, bn, an, js(Join(a, b)), js(Join(b, a)))
			}
			ab := Join(a, b)
			if js(Join(ab, ab)) != js(ab) || js(Join(ab, a)) != js(ab) {
				t.Errorf("Join(%s, %s) absorbs neither itself nor %s", an, bn, an)
			}
			for cn, c := range vs {
				if js(Join(Join(a, b), c)) != js(Join(a, Join(b, c))) {
					t.Errorf("Join is not associative over %s, %s, %s", an, bn, cn)
				}
			}
		}
	}
}

// The rule's outcomes, one per conflict a person can cause on two machines.
func TestJoinRule(t *testing.T) {
	vs := joinVersions(t)
	cases := []struct {
		a, b  string
		check func(Leaf) bool
		want  string
	}{
		{"forgotten", "corrected", func(l Leaf) bool { return l.Status == StatusForgotten && len(l.CorrectedBy) == 1 }, "forgotten, and the link kept"},
		{"forgotten", "approved", func(l Leaf) bool { return l.Status == StatusForgotten && l.Trust == TrustVerified }, "forgotten, and verified"},
		{"forgotten", "forgotten earlier elsewhere", func(l Leaf) bool { return l.Tombstone.Reason == "wrong" }, "the earlier tombstone"},
		{"purged", "saved", func(l Leaf) bool { return l.Status == StatusPurged && l.Text == "" && l.Tombstone.PurgedAt != nil }, "purged, without text"},
		{"approved", "rejected", func(l Leaf) bool { return l.Trust == TrustRejected }, "rejected"},
		{"saved", "saved later", func(l Leaf) bool { return l.Agent.Name == "claude-code" && l.RecordedAt.Day() == 1 }, "the earlier save's provenance"},
		{"corrected", "corrected twice", func(l Leaf) bool {
			return len(l.CorrectedBy) == 2 && l.CorrectedBy[0].ID == "00000000000000aa" && l.CorrectedBy[0].At.Day() == 5
		}, "both links, each at its earliest"},
		{"saved", "probable", func(l Leaf) bool { return len(l.Probable) == 1 }, "the probable supersession"},
	}
	for _, tc := range cases {
		if got := Join(vs[tc.a], vs[tc.b]); !tc.check(got) {
			t.Errorf("Join(%s, %s): want %s, got %s", tc.a, tc.b, tc.want, js(got))
		}
	}
}

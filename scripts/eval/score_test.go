package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

func TestJudge(t *testing.T) {
	cur := question{Kind: "current", Expect: []string{"new", "old-same"}, Forbid: []string{"old"}}
	amb := question{Kind: "ambiguous", Expect: []string{"a1", "b1"}, Groups: [][]string{{"a1"}, {"b1"}}}
	neg := question{Kind: "negative", Forbid: []string{"near"}}
	scope := question{Kind: "scope", Forbid: []string{"other"}}
	tests := []struct {
		name string
		o    outcome
		want judged
	}{
		{"current found first", outcome{Q: cur, Status: "found", Ranked: []string{"new", "old"}}, judged{pass: true, top1: true, top5: true, hasExpect: true}},
		{"current second expected id first", outcome{Q: cur, Status: "found", Ranked: []string{"old-same"}}, judged{pass: true, top1: true, top5: true, hasExpect: true}},
		{"current right first but ambiguous", outcome{Q: cur, Status: "ambiguous", Ranked: []string{"new", "old"}}, judged{top1: true, top5: true, hasExpect: true}},
		{"current superseded above", outcome{Q: cur, Status: "found", Ranked: []string{"old", "new"}}, judged{top5: true, wrongAbove: true, hasExpect: true}},
		{"current forbidden only", outcome{Q: cur, Status: "found", Ranked: []string{"x", "old"}}, judged{wrongAbove: true, hasExpect: true}},
		{"current expected sixth", outcome{Q: cur, Status: "found", Ranked: []string{"1", "2", "3", "4", "5", "new"}}, judged{hasExpect: true}},
		{"current error", outcome{Q: cur, Status: "error", Err: "boom", Ranked: nil}, judged{hasExpect: true}},
		{"ambiguous two groups", outcome{Q: amb, Status: "ambiguous", Ranked: []string{"b1", "a1"}}, judged{pass: true, top1: true, top5: true, hasExpect: true}},
		{"ambiguous one group", outcome{Q: amb, Status: "ambiguous", Ranked: []string{"a1", "x"}}, judged{top1: true, top5: true, hasExpect: true}},
		{"ambiguous answered found", outcome{Q: amb, Status: "found", Ranked: []string{"a1", "b1"}}, judged{top1: true, top5: true, hasExpect: true}},
		{"negative not_found", outcome{Q: neg, Status: "not_found"}, judged{pass: true}},
		{"negative not_found naming the near miss", outcome{Q: neg, Status: "not_found", Ranked: []string{"near"}}, judged{pass: true, wrongAbove: true}},
		{"negative found", outcome{Q: neg, Status: "found", Ranked: []string{"x"}}, judged{}},
		{"scope clean", outcome{Q: scope, Status: "found", Ranked: []string{"x"}}, judged{pass: true}},
		{"scope leak", outcome{Q: scope, Status: "not_found", Ranked: []string{"other"}}, judged{wrongAbove: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judge(tt.o); got != tt.want {
				t.Errorf("judge = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestTallyRows(t *testing.T) {
	set := &evalSet{byID: map[string]memory{"new": {Text: "the new value"}}}
	cur := question{QID: "q1", Kind: "current", Expect: []string{"new"}, Forbid: []string{"old"}}
	neg := question{QID: "q2", Kind: "negative"}
	outs := []outcome{
		{Q: cur, Status: "found", Ranked: []string{"new"}},
		{Q: cur, Status: "found", Ranked: []string{"old", "new"}},
		{Q: neg, Status: "found", Ranked: []string{"new"}},
	}
	rows, total, misses := tallyRows(set, outs, true)
	if len(rows) != 2 || rows[0].Kind != "current" || rows[1].Kind != "negative" {
		t.Fatalf("rows %+v", rows)
	}
	c := rows[0]
	if c.N != 2 || c.Passed != 1 || c.Pass != 0.5 || *c.Top1 != 0.5 || *c.Top5 != 1 || c.WrongAbove != 1 {
		t.Errorf("current row %+v", c)
	}
	if rows[1].Top1 != nil || rows[1].Passed != 0 {
		t.Errorf("negative row %+v: no top-1 without an expected id", rows[1])
	}
	if total.N != 3 || total.Passed != 1 || total.ExpectN != 2 {
		t.Errorf("total %+v", total)
	}
	if len(misses) != 2 || misses[0].Ranked[0].Excerpt != "" || misses[0].Ranked[1].Excerpt != "the new value" {
		t.Errorf("misses %+v", misses)
	}
}

func TestLoadSet(t *testing.T) {
	const mem = `{"id": "m1", "date": "2024-01-01", "project": "", "agent": "codex", "text": "I use zsh."}`
	const q = `{"qid": "q1", "query": "shell?", "project": "", "kind": "lookup", "expect": ["m1"], "forbid": []}`
	tests := []struct {
		name, data, wantErr string
	}{
		{"good", mem + "\n\n" + q + "\n", ""},
		{"no questions", mem + "\n", "needs both"},
		{"not JSON", mem + "\n{nope\n" + q, ":2: not a JSON object"},
		{"neither", mem + "\n" + `{"x": 1}` + "\n" + q, `needs "id"`},
		{"unknown kind", mem + "\n" + strings.Replace(q, "lookup", "trivia", 1), `kind "trivia"`},
		{"unknown ref", mem + "\n" + strings.Replace(q, `["m1"]`, `["m9"]`, 1), "names memory m9"},
		{"duplicate memory", mem + "\n" + mem + "\n" + q, "m1 twice"},
		{"memory without agent", strings.Replace(mem, "codex", "", 1) + "\n" + q, "needs a text and an agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "set.jsonl")
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := loadSet(path)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("loadSet: %v", err)
			case tt.wantErr == "":
				if len(s.Memories) != 1 || len(s.Questions) != 1 || s.savers()[0] != (testenv.ShimKey{Agent: "codex"}) {
					t.Errorf("set %+v", s)
				}
			case err == nil || !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("loadSet error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

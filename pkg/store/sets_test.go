package store_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/testenv/shared"
)

// The retrieval sets (../shared/data beside the repository, never copied
// into it) as the store's own tests read them: memories saved in file
// order, questions asked from their project.

type setMemory struct {
	ID, Date, Project, Agent, Text string
}

type setQuestion struct {
	QID, Query, Project, Kind, AsOf string `json:",omitempty"`
}

type retrievalSet struct {
	name      string
	memories  []setMemory
	questions []setQuestion
}

// committedSets are every retrieval set the project measures itself on.
func committedSets(t *testing.T) []retrievalSet {
	data := shared.Data(t)
	paths := map[string]string{
		"devset": filepath.Join(data, "devset", "devset.jsonl"),
		"setA":   filepath.Join(data, "trainsets", "setA", "setA.jsonl"),
		"setB":   filepath.Join(data, "trainsets", "setB", "setB.jsonl"),
	}
	here, _ := os.Getwd()
	for _, own := range []string{"proxy", "blind2"} {
		paths[own] = filepath.Join(here, "..", "..", "scripts", "eval", "testdata", own+".jsonl")
	}
	var out []retrievalSet
	for _, name := range []string{"devset", "setA", "setB", "proxy", "blind2"} {
		out = append(out, loadRetrievalSet(t, name, paths[name]))
	}
	return out
}

func loadRetrievalSet(t *testing.T, name, path string) retrievalSet {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("set %s: %v", name, err)
	}
	set := retrievalSet{name: name}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var probe map[string]any
		if err := json.Unmarshal(line, &probe); err != nil {
			t.Fatalf("set %s: %v", name, err)
		}
		if _, ok := probe["qid"]; ok {
			var q struct {
				QID     string `json:"qid"`
				Query   string `json:"query"`
				Project string `json:"project"`
				Kind    string `json:"kind"`
				AsOf    string `json:"as_of"`
			}
			if err := json.Unmarshal(line, &q); err != nil {
				t.Fatalf("set %s: %v", name, err)
			}
			set.questions = append(set.questions, setQuestion{QID: q.QID, Query: q.Query, Project: q.Project, Kind: q.Kind, AsOf: q.AsOf})
			continue
		}
		var m setMemory
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("set %s: %v", name, err)
		}
		set.memories = append(set.memories, m)
	}
	return set
}

// setCaller is who saves a set's memory or asks its question.
func setCaller(agent, project string) store.Caller {
	if agent == "" {
		agent = "claude-code"
	}
	return store.Caller{Agent: leaf.Agent{Name: agent, Version: "1"}, Session: "s-" + agent, Project: project}
}

// saveSet saves a set's memories in file order into st.
func saveSet(t *testing.T, st *store.Store, set retrievalSet) {
	t.Helper()
	for _, m := range set.memories {
		scope := store.ScopeGlobal
		if m.Project != "" {
			scope = store.ScopeProject
		}
		if _, err := st.Save(context.Background(), store.SaveInput{Caller: setCaller(m.Agent, m.Project), Content: m.Text, Date: m.Date, Scope: scope}); err != nil {
			t.Fatalf("set %s: save %s: %v", set.name, m.ID, err)
		}
	}
}

// questionScope is the scope a set's question is asked in: its project's
// default view, or every project when it names none.
func questionScope(q setQuestion) store.SearchScope {
	if q.Project == "" {
		return store.ScopeAll
	}
	return store.ScopeDefault
}

// openAt opens a store in dir whose clock starts at start and ticks a
// millisecond a reading.
func openAt(t *testing.T, dir string, start time.Time) *store.Store {
	t.Helper()
	var ticks atomic.Int64
	now := func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }
	st, err := store.Open(dir, store.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

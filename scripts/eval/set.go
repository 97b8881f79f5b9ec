package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// memory is one memory line of a set: saved, in file order, by its agent
// from its project ("" is a global memory) with its date.
type memory struct {
	ID      string `json:"id"`
	Date    string `json:"date"`
	Project string `json:"project"`
	Agent   string `json:"agent"`
	Text    string `json:"text"`
}

// question is one question line: asked from its project ("" asks across
// every project), as of AsOf when given.
type question struct {
	QID     string     `json:"qid"`
	Query   string     `json:"query"`
	Project string     `json:"project"`
	Kind    string     `json:"kind"`
	Expect  []string   `json:"expect"`
	Forbid  []string   `json:"forbid"`
	AsOf    string     `json:"as_of,omitempty"`
	Groups  [][]string `json:"groups,omitempty"`
}

// evalSet is a whole set, memories in save order.
type evalSet struct {
	Memories  []memory
	Questions []question
	byID      map[string]memory
}

// kinds are the question kinds in the order the table lists them; a kind
// outside this list is refused, since it could not be scored.
var kinds = []string{"current", "historical", "lookup", "paraphrase", "ambiguous", "negative", "scope"}

// loadSet reads a set in the devset schema: memory lines (with "id") and
// question lines (with "qid"), in any mix, memories kept in file order.
// Every reference a question makes must name a memory of the set.
func loadSet(path string) (*evalSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the set: %w", err)
	}
	s := &evalSet{byID: map[string]memory{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := s.addLine(line); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(s.Memories) == 0 || len(s.Questions) == 0 {
		return nil, fmt.Errorf("%s holds %d memories and %d questions: a set needs both (see scripts/eval/testdata/README.md for the schema)", path, len(s.Memories), len(s.Questions))
	}
	for _, q := range s.Questions {
		if err := s.checkRefs(q); err != nil {
			return nil, fmt.Errorf("%s: question %s: %w", path, q.QID, err)
		}
	}
	return s, nil
}

func (s *evalSet) addLine(line []byte) error {
	var probe struct {
		ID  string `json:"id"`
		QID string `json:"qid"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	switch {
	case probe.ID != "":
		var m memory
		if err := json.Unmarshal(line, &m); err != nil {
			return err
		}
		if _, dup := s.byID[m.ID]; dup {
			return fmt.Errorf("memory %s twice", m.ID)
		}
		if m.Text == "" || m.Agent == "" {
			return fmt.Errorf("memory %s needs a text and an agent", m.ID)
		}
		s.byID[m.ID] = m
		s.Memories = append(s.Memories, m)
	case probe.QID != "":
		var q question
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if !slices.Contains(kinds, q.Kind) {
			return fmt.Errorf("question %s has kind %q: use one of %v", q.QID, q.Kind, kinds)
		}
		if q.Query == "" {
			return fmt.Errorf("question %s has no query", q.QID)
		}
		s.Questions = append(s.Questions, q)
	default:
		return fmt.Errorf(`a line needs "id" (a memory) or "qid" (a question)`)
	}
	return nil
}

func (s *evalSet) checkRefs(q question) error {
	refs := append(slices.Clone(q.Expect), q.Forbid...)
	for _, g := range q.Groups {
		refs = append(refs, g...)
	}
	for _, id := range refs {
		if _, ok := s.byID[id]; !ok {
			return fmt.Errorf("names memory %s, which the set does not hold", id)
		}
	}
	return nil
}

// savers lists the (project, agent) pairs that save, in order of first
// save: one shim each.
func (s *evalSet) savers() []testenv.ShimKey {
	var out []testenv.ShimKey
	seen := map[testenv.ShimKey]bool{}
	for _, m := range s.Memories {
		k := testenv.ShimKey{Project: m.Project, Agent: m.Agent}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// turn is one dialog turn: what the benchmark saves as one memory.
type turn struct {
	DiaID   string
	Session int
	Date    time.Time
	Speaker string
	Text    string
}

// Memory is the text saved for the turn, in the form the issue fixes:
// "YYYY-MM-DD Speaker: text".
func (t turn) Memory() string {
	return t.Date.Format("2006-01-02") + " " + t.Speaker + ": " + t.Text
}

// question is one question of categories 1–4 with its evidence turn ids.
type question struct {
	Text     string
	Category int
	Evidence []string
}

type conversation struct {
	ID        string
	Turns     []turn
	Questions []question
	// NoEvidence counts questions of categories 1–4 whose evidence names
	// no turn of the conversation; they cannot be scored and are skipped.
	NoEvidence int
}

// Category codes of the data set; 5 (adversarial, no answer) is skipped.
const (
	catMultiHop   = 1
	catTemporal   = 2
	catOpenDomain = 3
	catSingleHop  = 4
)

var categoryOrder = []int{catSingleHop, catMultiHop, catTemporal, catOpenDomain}

func categoryName(c int) string {
	switch c {
	case catMultiHop:
		return "multi-hop"
	case catTemporal:
		return "temporal"
	case catOpenDomain:
		return "open-domain"
	case catSingleHop:
		return "single-hop"
	}
	return "category " + strconv.Itoa(c)
}

// evidenceID extracts dialog ids from evidence entries, some of which are
// malformed ("D8:6; D9:17", "D:11:26"): ids are taken by pattern and those
// naming no turn are dropped by the caller.
var evidenceID = regexp.MustCompile(`D\d+:\d+`)

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// dateLayouts are the forms session_<n>_date_time takes ("1:56 pm on 8 May, 2023").
var dateLayouts = []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006"}

func parseSessionDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unrecognised session date %q", s)
}

// rawConversation is one conversation of the file as it is written.
type rawConversation struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []rawQuestion              `json:"qa"`
}

type rawQuestion struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

// load reads the LoCoMo file at path. It never copies it anywhere: the
// data set is CC BY-NC and stays in the shared data folder.
func load(path string) ([]conversation, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("LoCoMo data not found at %s: pass -data with the path of locomo10.json (CC BY-NC 4.0, kept outside the repository)", path)
	}
	if err != nil {
		return nil, err
	}
	var raw []rawConversation
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	var out []conversation
	for i, r := range raw {
		c := conversation{ID: r.SampleID}
		if c.ID == "" {
			c.ID = fmt.Sprintf("conv-%d", i+1)
		}
		if c.Turns, err = readTurns(c.ID, r.Conversation); err != nil {
			return nil, err
		}
		c.Questions, c.NoEvidence = readQuestions(r.QA, c.Turns)
		out = append(out, c)
	}
	return out, nil
}

// readTurns returns the non-empty turns of a conversation's sessions, in
// session order, each dated by its session.
func readTurns(id string, conv map[string]json.RawMessage) ([]turn, error) {
	var sessions []int
	for k := range conv {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, n)
		}
	}
	slices.Sort(sessions)
	var out []turn
	for _, n := range sessions {
		var turns []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    string `json:"text"`
		}
		if err := json.Unmarshal(conv[fmt.Sprintf("session_%d", n)], &turns); err != nil {
			return nil, fmt.Errorf("%s session %d: %w", id, n, err)
		}
		var when string
		if err := json.Unmarshal(conv[fmt.Sprintf("session_%d_date_time", n)], &when); err != nil {
			return nil, fmt.Errorf("%s session %d has no date: %v", id, n, err)
		}
		date, err := parseSessionDate(when)
		if err != nil {
			return nil, fmt.Errorf("%s session %d: %w", id, n, err)
		}
		for _, t := range turns {
			if strings.TrimSpace(t.Text) == "" {
				continue
			}
			out = append(out, turn{DiaID: t.DiaID, Session: n, Date: date, Speaker: t.Speaker, Text: t.Text})
		}
	}
	return out, nil
}

// readQuestions returns the questions of categories 1–4 with the evidence
// that names turns of the conversation, and counts those left with none.
func readQuestions(qa []rawQuestion, turns []turn) (qs []question, noEvidence int) {
	known := make(map[string]bool, len(turns))
	for _, t := range turns {
		known[t.DiaID] = true
	}
	for _, q := range qa {
		if q.Category < 1 || q.Category > 4 {
			continue
		}
		var ev []string
		for _, e := range q.Evidence {
			for _, id := range evidenceID.FindAllString(e, -1) {
				if known[id] {
					ev = append(ev, id)
				}
			}
		}
		if len(ev) == 0 {
			noEvidence++
			continue
		}
		qs = append(qs, question{Text: q.Question, Category: q.Category, Evidence: ev})
	}
	return qs, noEvidence
}

// defaultDataPath is ../shared/data/locomo10.json relative to the module
// root, found by walking up from the working directory to go.mod.
func defaultDataPath() string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "data", "locomo10.json")
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "data", "locomo10.json")
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return filepath.Join("..", "shared", "data", "locomo10.json")
}

package recall

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// Every query-time factor of a search is one row of this table: its name,
// the stage it acts in, one line of why, the most it may move a score, and
// a switch (Options.SignalsOff; `ihmtd -signals` lists the rows and
// IHMT_SIGNALS_OFF switches rows off, for measuring). A factor that is not
// a row does not exist. What each row gains or loses on every set when it
// alone is off is measured by `go run ./scripts/eval -ablate` and quoted in
// README; a row that gains nothing on sets it was not written from leaves.
//
// The multiplying rows (Low, High) share one budget: together they may move
// a memory's BM25 score to no less than scoreBudgetLow and no more than
// scoreBudgetHigh times itself (TestSignalBudget checks the table against
// it). The other rows move memories within a bounded window of the best,
// rewrite the question, or give the verdict evidence; their Bound says how
// far they reach.

// Stage names where a signal acts, in the order a search runs them.
type Stage string

// The stages of a search that signals act in.
const (
	StageRewrite   Stage = "rewrite"
	StageScore     Stage = "score"
	StageRerank    Stage = "rerank"
	StageSupersede Stage = "supersede"
	StageVerdict   Stage = "verdict"
)

// Signal is one row of the table.
type Signal struct {
	Name  string
	Stage Stage
	Why   string
	// Low and High bound a multiplying signal's factor on a score (both 0
	// for a signal that does not multiply); Bound says how far any other
	// reaches.
	Low, High float64
	Bound     string
}

// The budget of every multiplying signal together (see above).
const (
	scoreBudgetLow  = 0.07
	scoreBudgetHigh = 2.6
)

// Signals is the table, in the order a search applies them.
var Signals = []Signal{
	{Name: "untimed", Stage: StageRewrite, Why: "words that only point at a time (\"back then\") leave the query: the moment says when", Bound: "drops words; never the last"},
	{Name: "unselfed", Stage: StageRewrite, Why: "the words a project is defined by (\"the tile server\") name the project asked from, not one of its memories", Bound: "drops words; never the last"},
	{Name: "expand", Stage: StageRewrite, Why: "the lexicon adds words that mean the same, in either language, each weighing a share of the word it stands for", Bound: "≤ 3 dictionary words a query word; each ≤ its word's weight"},
	{Name: "light", Stage: StageRewrite, Why: "a light word (\"get\", \"went\") carries grammar, not the subject: it weighs less", Low: lightWeight, High: 1, Bound: "a light word's weight ×0.3"},
	{Name: "kind", Stage: StageScore, Why: "code and documents yield to what was stated unless the question is about code", Low: codeYield, High: 1},
	{Name: "clue", Stage: StageRerank, Why: "memories matching the caller's clue rise, the rest sink", Low: verdict.ClueDemote, High: verdict.ClueBoost},
	{Name: "verified", Stage: StageRerank, Why: "what a person verified edges out an agent's assertion of about the same relevance", Low: 1, High: verifiedBoost},
	{Name: "elsewhere", Stage: StageRerank, Why: "a question naming a project sinks other projects' memories", Low: elsewhereDemote, High: 1},
	{Name: "home", Stage: StageRerank, Why: "the part of the store the question is asked from is likelier the one meant", Low: 1, High: homeBoost},
	{Name: "concept", Stage: StageRerank, Why: "a memory about a concept the question asks about (where one lives) rises though it shares no word", Low: 1, High: conceptBoost},
	{Name: "told_late", Stage: StageRerank, Why: "a memory dated well before what was recorded around it is history for a question about now", Low: lateDemote, High: 1},
	{Name: "holding", Stage: StageRerank, Why: "when the best holds no value of the kind asked (a port), one near it that does comes first", Bound: "within 35% of the best's score, among the first 5"},
	{Name: "prefer_home", Stage: StageRerank, Why: "a near tie between a memory from elsewhere and one at home holding the same words goes home", Bound: "a near tie (18%), among the first 5"},
	{Name: "inferred", Stage: StageSupersede, Why: "a probable supersession inferred at save ranks the successor above when it is about what is asked", Bound: "the superseded memory to ×0.9 of its successor"},
	{Name: "unknown_name", Stage: StageVerdict, Why: "a name no visible memory holds means the question's subject was never stored: not found"},
	{Name: "unowned", Stage: StageVerdict, Why: "memories name the owner but none holds the thing asked of them: not found"},
	{Name: "late_period", Stage: StageVerdict, Why: "the best memory is about a time after the period asked: not found"},
	{Name: "other_project", Stage: StageVerdict, Why: "the best memory belongs to another project than the one named: not found"},
	{Name: "wanted_value", Stage: StageVerdict, Why: "no value of the kind asked (a phone, a port) in the best memory: not found"},
	{Name: "stray", Stage: StageVerdict, Why: "one stray shared word, and much of the question in no memory: not found"},
	{Name: "referents", Stage: StageVerdict, Why: "the name asked fits memories meaning different people or things: ambiguous", Bound: "memories within 30% of the best"},
	{Name: "events", Stage: StageVerdict, Why: "a question for a time fits different happenings in the period: ambiguous", Bound: "memories within 50% of the best"},
	{Name: "distinct", Stage: StageVerdict, Why: "a tie between memories about different things beyond the question's words: ambiguous", Bound: "a near tie (18%) of a short query, or an exact one"},
	{Name: "apart", Stage: StageVerdict, Why: "a near tie between parts of the store (two projects) is a choice between topics: ambiguous", Bound: "a tie within 40%"},
}

// Switches are the signals switched off.
type Switches map[string]bool

// ParseSwitches checks names against the table.
func ParseSwitches(names []string) (Switches, error) {
	off := Switches{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.ContainsFunc(Signals, func(s Signal) bool { return s.Name == n }) {
			return nil, fmt.Errorf("%w: no retrieval signal %q: `ihmtd -signals` lists them", leaf.ErrInvalid, n)
		}
		off[n] = true
	}
	return off, nil
}

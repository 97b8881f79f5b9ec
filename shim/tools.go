package shim

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
	"github.com/ihmt-dev/ihmt/proto/ihmt/v1/markup"
)

// The tools: what each takes, does and answers — in structure, and in text
// for the model. search_memory first, then the tools that write.

// SearchArgs are search_memory's arguments.
type SearchArgs struct {
	Query   string `json:"query" jsonschema:"what to look for, in the user's words"`
	Clue    string `json:"clue,omitempty" jsonschema:"a detail that tells apart the candidates of an ambiguous answer"`
	Scope   string `json:"scope,omitempty" jsonschema:"default (global + this project), project, global, or all (every project: only when the user asks)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"results to return, 1-50 (default: the best and at most two rivals)"`
	Detail  string `json:"detail,omitempty" jsonschema:"compact (default: best memory in full, rivals as one line) or full (every result in full, with ids)"`
	AsOf    string `json:"as_of,omitempty" jsonschema:"answer as things stood on this date (YYYY-MM-DD), e.g. for 'where did I live in 2024?'"`
	KnownAt string `json:"known_at,omitempty" jsonschema:"answer with what the memory had recorded by this date (YYYY-MM-DD)"`
}

// SearchResult is search_memory's structured result.
type SearchResult struct {
	Status     string      `json:"status" jsonschema:"found, ambiguous or not_found"`
	Confidence float64     `json:"confidence"`
	Results    []Result    `json:"results"`
	Candidates []Candidate `json:"candidates"`
	Coverage   Coverage    `json:"coverage"`
	Searched   string      `json:"searched" jsonschema:"what the search could see, e.g. global + project github.com/org/repo"`
	Message    string      `json:"message"`
	NextStep   string      `json:"next_step" jsonschema:"what to do with this answer"`
	Notes      []string    `json:"notes" jsonschema:"things to tell the user about this session"`
	Why        []string    `json:"why,omitempty" jsonschema:"with detail full: how the answer was reached (the verdict's case, its evidence, the signals that moved the first results)"`
}

// nextStep tells the model what each verdict asks of it. It is in the
// structured result too, since some clients show the model only that.
var nextStep = map[string]string{
	"found":     "Answer from results[0]: say when it was saved and where it came from, and relay its notices.",
	"ambiguous": "Do not guess: ask the user which one is meant, or call search_memory again with a clue that tells the candidates apart.",
	"not_found": "The memory holds no answer to this: say so plainly, and do not invent one.",
}

// Result is one memory in a search answer.
type Result struct {
	ID         string   `json:"id"`
	Content    string   `json:"content"`
	Truncated  bool     `json:"truncated,omitempty" jsonschema:"content was clipped: search again with detail=full for all of it"`
	ValidFrom  string   `json:"valid_from"`
	RecordedAt string   `json:"recorded_at"`
	Scope      string   `json:"scope"`
	Project    string   `json:"project"`
	Agent      string   `json:"agent"`
	Session    string   `json:"session"`
	Trust      string   `json:"trust"`
	Current    bool     `json:"current"`
	Notices    []string `json:"notices"`
	Score      float64  `json:"score"`
	TreePath   []string `json:"tree_path,omitempty" jsonschema:"the summary branches above it, root first (only with detail full)"`
	From       string   `json:"from,omitempty" jsonschema:"the document an ingested memory came from, e.g. docs/RELEASING.md (part 2 of 5)"`
}

// Candidate is a memory offered for a choice, not as an answer.
type Candidate struct {
	ID        string `json:"id"`
	Excerpt   string `json:"excerpt"`
	ValidFrom string `json:"valid_from,omitempty"`
}

// Coverage says how much of the store a search examined.
type Coverage struct {
	Exhaustive    bool  `json:"exhaustive"`
	NodesRead     int64 `json:"nodes_read"`
	LeavesScored  int64 `json:"leaves_scored"`
	LeavesVisible int64 `json:"leaves_visible"`
	ViaTree       bool  `json:"via_tree"`
}

func (s *server) search(ctx context.Context, caller *ihmtv1.Caller, args SearchArgs) (*mcp.CallToolResult, SearchResult, error) {
	req, full, err := searchRequest(caller, args)
	if err != nil {
		return nil, SearchResult{}, err
	}
	resp, err := s.cfg.Client.Search(ctx, req)
	if err != nil {
		return nil, SearchResult{}, toolError("search_memory", err)
	}
	out := searchResult(resp, args.Limit == 0, full)
	out.Message = client.Unstem(out.Message, client.AsWritten(args.Query, resp.GetTerms()))
	out.Notes = s.notes()
	var b strings.Builder
	renderSearch(&b, out, full)
	return reply(b.String(), out.Notes), out, nil
}

// searchRequest checks search_memory's arguments and makes its request;
// full says whether the answer is to show every result in full.
func searchRequest(caller *ihmtv1.Caller, args SearchArgs) (req *ihmtv1.SearchRequest, full bool, err error) {
	scope, err := ihmtv1.ParseSearchScope(args.Scope)
	if err != nil {
		return nil, false, err
	}
	switch args.Detail {
	case "", "compact":
	case "full":
		full = true
	default:
		return nil, false, &ihmtv1.WordError{Field: "detail", Word: args.Detail, Valid: []string{"compact", "full"}}
	}
	return &ihmtv1.SearchRequest{
		Caller: caller, Query: args.Query, Clue: args.Clue, Scope: scope, Limit: int32(args.Limit), AsOf: args.AsOf, KnownAt: args.KnownAt, Explain: full,
	}, full, nil
}

// searchResult is the structured answer. A compact answer without a limit
// keeps the best result and two rivals, as its text does; asking for a
// limit, or for detail=full, gets them all.
func searchResult(resp *ihmtv1.SearchResponse, noLimit, full bool) SearchResult {
	cov := resp.GetCoverage()
	out := SearchResult{
		Status:     ihmtv1.SearchStatusName(resp.GetStatus()),
		Confidence: resp.GetConfidence(),
		Results:    []Result{},
		Candidates: candidates(resp.GetCandidates()),
		Coverage: Coverage{
			Exhaustive:    cov.GetExhaustive(),
			NodesRead:     cov.GetNodesRead(),
			LeavesScored:  cov.GetLeavesScored(),
			LeavesVisible: cov.GetLeavesVisible(),
			ViaTree:       cov.GetViaTree(),
		},
		Searched: resp.GetScopeDescription(),
		Message:  resp.GetMessage(),
	}
	results, _ := client.Distinct(resp.GetResults()) // the same text twice is read once
	for i, r := range results {
		if !full && noLimit && i == compactResults {
			break
		}
		out.Results = append(out.Results, result(r, i, full))
	}
	out.NextStep = nextStep[out.Status]
	out.Why = why(resp.GetTrace())
	return out
}

// whyRanked and whyEvidence bound the trace a model is shown: the verdict
// and the first few memories' signals say why; the whole trace is for
// people (`ihmt search --explain`) and costs tokens the model needs for
// the answer.
const (
	whyRanked   = 3
	whyEvidence = 8
)

// why is a search's trace in a few short lines for the model.
func why(t *ihmtv1.Trace) []string {
	if t == nil {
		return nil
	}
	ev := t.GetEvidence()
	out := []string{fmt.Sprintf("decided by %s (%s)", t.GetDecided(), strings.Join(ev[:min(len(ev), whyEvidence)], ", "))}
	for _, r := range t.GetRanked()[:min(len(t.GetRanked()), whyRanked)] {
		var fs []string
		for _, f := range r.GetFactors() {
			fs = append(fs, ihmtv1.FactorText(f))
		}
		line := fmt.Sprintf("%s: bm25 %.2f → %.2f", r.GetId(), r.GetBase(), r.GetScore())
		if len(fs) > 0 {
			line += " (" + strings.Join(fs, "; ") + ")"
		}
		out = append(out, line)
	}
	return out
}

// result is the i-th result of an answer. Compact answers clip long
// memories in the structured content too: some clients hand the model only
// that, and five pasted documents would flood its context.
func result(r *ihmtv1.SearchResult, i int, full bool) Result {
	m := r.GetMemory()
	notices := []string{}
	for _, n := range r.GetNotices() {
		notices = append(notices, markup.Line(n)) // a notice may quote a memory
	}
	// A memory's text reaches the model as data: its markup neutralised
	// here, for the text and the structured answer alike (proto/ihmt/v1/markup).
	content, truncated := markup.Neutralize(m.GetContent(), markup.Prose), false
	if !full {
		limit := rivalMaxRunes
		if i == 0 {
			limit = compactMaxRunes
		}
		content, truncated = clipContent(content, limit)
	}
	var path []string
	if full {
		path = r.GetTreePath()
	}
	return Result{
		ID: m.GetId(), Content: content, Truncated: truncated, ValidFrom: client.JSONTime(m.GetValidFrom().AsTime()),
		RecordedAt: rfc3339(m.GetRecordedAt()), Scope: ihmtv1.ScopeName(m.GetScope()),
		Project: m.GetProject(), Agent: agentName(m.GetAgent()), Session: m.GetSessionId(), Trust: ihmtv1.TrustName(m.GetTrust()),
		Current: r.GetCurrent(), Notices: notices, Score: round3(r.GetScore()), TreePath: path, From: client.From(m),
	}
}

// candidates are memories offered for a choice, never nil: the structured
// answer shows an empty list, not null.
func candidates(cs []*ihmtv1.Candidate) []Candidate {
	out := []Candidate{}
	for _, c := range cs {
		out = append(out, Candidate{ID: c.GetId(), Excerpt: markup.Line(c.GetExcerpt()), ValidFrom: client.JSONTime(c.GetValidFrom().AsTime())})
	}
	return out
}

// writeChoices lists candidates for the model to choose between, one a line.
func writeChoices(b *strings.Builder, cs []Candidate) {
	for _, c := range cs {
		fmt.Fprintf(b, "\n- %s (%s): %s", c.ID, c.ValidFrom, c.Excerpt)
	}
}

// compactMaxRunes bounds the best memory's text in a compact answer, and
// rivalMaxRunes each other result's: enough for any ordinary memory, while
// pasted documents cannot flood the model's context.
// rivalExcerptRunes bounds a rival's one line in the text. A compact
// answer shows compactResults results.
const (
	compactMaxRunes   = 6000
	rivalMaxRunes     = 600
	rivalExcerptRunes = 120
	compactResults    = 3
)

// clipContent cuts s to n runes, saying so.
func clipContent(s string, n int) (string, bool) {
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	return string(r[:n]) + fmt.Sprintf("… [%d more characters: search again with detail=\"full\"]", len(r)-n), true
}

// renderSearch writes the answer for the model: the verdict first, then the
// best memory in full with its provenance, then at most two rivals as one
// line each (compact), or every result in full (full).
func renderSearch(b *strings.Builder, out SearchResult, full bool) {
	switch out.Status {
	case "not_found":
		fmt.Fprintf(b, "not_found: %s", out.Message)
		for _, c := range out.Candidates {
			fmt.Fprintf(b, "\nNear miss (not an answer): %s (%s) %s", c.ID, c.ValidFrom, c.Excerpt)
		}
		b.WriteString("\n" + out.NextStep)
		return
	case "ambiguous":
		fmt.Fprintf(b, "ambiguous: %s", out.Message)
		writeChoices(b, out.Candidates)
		b.WriteString("\n" + out.NextStep)
		return
	}
	fmt.Fprintf(b, "found (confidence %.2f; searched %s):", out.Confidence, out.Searched)
	for i, r := range out.Results {
		if !full && i >= compactResults {
			break
		}
		if i == 0 || full {
			label := fmt.Sprintf("[%d] %s · %s · by %s · %s · id %s", i+1, r.ValidFrom, whereResult(r), r.Agent, r.Trust, r.ID)
			if r.From != "" {
				label += " · from " + r.From
			}
			if len(r.TreePath) > 0 {
				label += " · in " + strings.Join(r.TreePath, " › ")
			}
			b.WriteString("\n\n" + strings.TrimSuffix(markup.Quote(label, r.Content, markup.Prose), "\n"))
			for _, n := range r.Notices {
				fmt.Fprintf(b, "\nNOTICE: %s", n)
			}
			continue
		}
		if i == 1 {
			b.WriteString("\n\nAlso matching:")
		}
		fmt.Fprintf(b, "\n[%d] %s · %s · id %s: %s", i+1, r.ValidFrom, whereResult(r), r.ID, markup.Line(ihmtv1.Excerpt(r.Content, rivalExcerptRunes)))
	}
	if full {
		how := "through the index"
		if out.Coverage.ViaTree {
			how = "through the summary tree"
		}
		fmt.Fprintf(b, "\n\ncoverage: exhaustive=%v, %d of %d visible memories scored %s", out.Coverage.Exhaustive, out.Coverage.LeavesScored, out.Coverage.LeavesVisible, how)
		for _, w := range out.Why {
			fmt.Fprintf(b, "\nwhy: %s", w)
		}
	}
}

func agentName(a *ihmtv1.Agent) string {
	if a.GetVersion() == "" {
		return a.GetName()
	}
	return a.GetName() + " " + a.GetVersion()
}

func whereResult(r Result) string {
	if r.Scope == "project" {
		return "project " + r.Project
	}
	return "global"
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// SaveArgs are save_memory's arguments.
type SaveArgs struct {
	Content  string   `json:"content" jsonschema:"the fact to remember, self-contained (who or what, the decision and why)"`
	Date     string   `json:"date,omitempty" jsonschema:"when it became true: YYYY-MM-DD (or RFC 3339); omit when it is true from today"`
	Scope    string   `json:"scope,omitempty" jsonschema:"global (about the user: preferences, environment, people) or project (this codebase; the default inside a project)"`
	Domain   string   `json:"domain,omitempty" jsonschema:"optional dotted subject area, e.g. software.go or personal"`
	Tags     []string `json:"tags,omitempty" jsonschema:"optional labels"`
	Replaces string   `json:"replaces,omitempty" jsonschema:"the memory this corrects: its id, or a few words describing it"`
}

// SaveResult is save_memory's structured result.
type SaveResult struct {
	ID          string       `json:"id"`
	IDs         []string     `json:"ids,omitempty" jsonschema:"every memory a long text became, in order"`
	Status      string       `json:"status" jsonschema:"saved, duplicate, pending_review or refused"`
	Scope       string       `json:"scope"`
	Project     string       `json:"project"`
	ValidFrom   string       `json:"valid_from"`
	RecordedAt  string       `json:"recorded_at"`
	Corrections []Correction `json:"corrections"`
	Candidates  []Candidate  `json:"candidates"`
	Message     string       `json:"message,omitempty"`
	Notes       []string     `json:"notes" jsonschema:"things to tell the user about this session"`
	// DateFrom says where valid_from came from: given (the date argument),
	// text (the date the content opens with) or save (neither: the time of
	// the save, so the memory reads as true from now on).
	DateFrom string `json:"date_from,omitempty" jsonschema:"given, text or save: where valid_from came from"`
}

// Correction names a memory this save superseded.
type Correction struct {
	OldID  string `json:"old_id"`
	Notice string `json:"notice"`
}

func (s *server) save(ctx context.Context, caller *ihmtv1.Caller, args SaveArgs) (*mcp.CallToolResult, SaveResult, error) {
	scope, err := ihmtv1.ParseScope(args.Scope)
	if err != nil {
		return nil, SaveResult{}, err
	}
	resp, err := s.cfg.Client.Save(ctx, &ihmtv1.SaveRequest{
		Caller: caller, Content: args.Content, Date: args.Date, Scope: scope, Domain: args.Domain, Tags: args.Tags, Replaces: args.Replaces,
	})
	if err != nil {
		return nil, SaveResult{}, toolError("save_memory", err)
	}
	out := saveResult(resp)
	out.Notes = s.notes()
	if resp.GetStatus() == ihmtv1.SaveStatus_SAVE_STATUS_SAVED || resp.GetStatus() == ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW {
		out.DateFrom = client.DateSource(args.Date, resp.GetMemory())
	}
	return reply(saveText(resp, out), out.Notes), out, nil
}

// saveResult is the structured answer to a save.
func saveResult(resp *ihmtv1.SaveResponse) SaveResult {
	m := resp.GetMemory()
	out := SaveResult{
		ID:          resp.GetId(),
		IDs:         resp.GetIds(),
		Status:      ihmtv1.SaveStatusName(resp.GetStatus()),
		Scope:       ihmtv1.ScopeName(m.GetScope()),
		Project:     m.GetProject(),
		ValidFrom:   client.JSONTime(m.GetValidFrom().AsTime()),
		RecordedAt:  rfc3339(m.GetRecordedAt()),
		Corrections: []Correction{},
		Candidates:  candidates(resp.GetCandidates()),
		Message:     resp.GetMessage(),
	}
	if m == nil {
		out.ValidFrom, out.RecordedAt = "", ""
	}
	for _, c := range resp.GetCorrections() {
		out.Corrections = append(out.Corrections, Correction{OldID: c.GetOldId(), Notice: markup.Line(c.GetNotice())})
	}
	return out
}

// saveText tells the model what became of its save, and what to do about
// a memory held for review or a correction that matched several.
func saveText(resp *ihmtv1.SaveResponse, out SaveResult) string {
	var b strings.Builder
	m := resp.GetMemory()
	switch resp.GetStatus() {
	case ihmtv1.SaveStatus_SAVE_STATUS_DUPLICATE:
		fmt.Fprintf(&b, "Already stored as %s (%s, recorded %s); nothing written.", out.ID, client.Where(m), out.RecordedAt[:10])
	case ihmtv1.SaveStatus_SAVE_STATUS_REFUSED:
		fmt.Fprintf(&b, "refused: %s", out.Message)
	case ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW:
		fmt.Fprintf(&b, "pending_review: stored as %s but %s. Tell the user it waits for their review (`ihmt review`); only they may approve it, so do not run that yourself.", out.ID, out.Message)
	default:
		fmt.Fprintf(&b, "Saved as %s (%s, valid from %s", out.ID, client.Where(m), out.ValidFrom)
		switch out.DateFrom {
		case client.DateSave:
			b.WriteString(", the time of the save: no date given or opening the content). " +
				"If it is about another time, it now reads as current: save it again with date (worded a little differently) and forget_memory this id.")
		case client.DateGiven:
			b.WriteString(", the date given).")
		default:
			b.WriteString(", the date the content opens with).")
		}
	}
	if len(out.IDs) > 1 {
		fmt.Fprintf(&b, " The text was long, so it was stored as %d memories split at block boundaries: %s.", len(out.IDs), strings.Join(out.IDs, ", "))
	}
	for _, c := range out.Corrections {
		fmt.Fprintf(&b, "\nSuperseded %s: %s", c.OldID, c.Notice)
	}
	if len(out.Candidates) > 0 {
		b.WriteString("\n" + out.Message)
		writeChoices(&b, out.Candidates)
	}
	return b.String()
}

// MarkArgs are mark_outdated's arguments.
type MarkArgs struct {
	OldID string `json:"old_id" jsonschema:"the memory that is no longer true"`
	NewID string `json:"new_id" jsonschema:"the memory that corrects it"`
}

// MarkResult is mark_outdated's structured result.
type MarkResult struct {
	OldID         string   `json:"old_id"`
	NewID         string   `json:"new_id"`
	Notice        string   `json:"notice"`
	PendingReview bool     `json:"pending_review"`
	Notes         []string `json:"notes"`
}

func (s *server) markOutdated(ctx context.Context, caller *ihmtv1.Caller, args MarkArgs) (*mcp.CallToolResult, MarkResult, error) {
	resp, err := s.cfg.Client.MarkOutdated(ctx, &ihmtv1.MarkOutdatedRequest{Caller: caller, OldId: args.OldID, NewId: args.NewID})
	if err != nil {
		return nil, MarkResult{}, toolError("mark_outdated", err)
	}
	out := MarkResult{OldID: args.OldID, NewID: args.NewID, Notice: resp.GetNotice(), PendingReview: resp.GetPendingReview(), Notes: s.notes()}
	msg := fmt.Sprintf("Linked: %s now reads as outdated, superseded by %s.", args.OldID, args.NewID)
	if out.PendingReview {
		msg = fmt.Sprintf("pending_review: %s is a memory the user verified, so the correction %s waits for their review (`ihmt review`; only they may approve it); until then the old value stays current.", args.OldID, args.NewID)
	}
	return reply(msg, out.Notes), out, nil
}

// ForgetArgs are forget_memory's arguments.
type ForgetArgs struct {
	ID     string `json:"id" jsonschema:"the memory to forget"`
	Reason string `json:"reason" jsonschema:"why, in the user's words; kept in the tombstone"`
}

// ForgetResult is forget_memory's structured result.
type ForgetResult struct {
	ID          string   `json:"id"`
	Status      string   `json:"status"`
	ForgottenAt string   `json:"forgotten_at"`
	Notes       []string `json:"notes"`
}

func (s *server) forget(ctx context.Context, caller *ihmtv1.Caller, args ForgetArgs) (*mcp.CallToolResult, ForgetResult, error) {
	resp, err := s.cfg.Client.Forget(ctx, &ihmtv1.ForgetRequest{Caller: caller, Id: args.ID, Reason: args.Reason})
	if err != nil {
		return nil, ForgetResult{}, toolError("forget_memory", err)
	}
	m := resp.GetMemory()
	out := ForgetResult{ID: m.GetId(), Status: m.GetStatus(), ForgottenAt: rfc3339(m.GetTombstone().GetForgottenAt()), Notes: s.notes()}
	msg := fmt.Sprintf("Forgotten: %s no longer answers any search, and saving the same text again is refused. The user (only they) can undo it with `ihmt restore %s`.", out.ID, out.ID)
	return reply(msg, out.Notes), out, nil
}

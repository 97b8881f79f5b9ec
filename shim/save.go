package shim

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The tools that write: save_memory, mark_outdated and forget_memory.

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
		ValidFrom:   client.FormatTime(m.GetValidFrom().AsTime()),
		RecordedAt:  rfc3339(m.GetRecordedAt()),
		Corrections: []Correction{},
		Candidates:  candidates(resp.GetCandidates()),
		Message:     resp.GetMessage(),
	}
	if m == nil {
		out.ValidFrom, out.RecordedAt = "", ""
	}
	for _, c := range resp.GetCorrections() {
		out.Corrections = append(out.Corrections, Correction{OldID: c.GetOldId(), Notice: c.GetNotice()})
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
		fmt.Fprintf(&b, "Saved as %s (%s, valid from %s).", out.ID, client.Where(m), out.ValidFrom)
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

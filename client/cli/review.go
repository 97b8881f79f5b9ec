package cli

import (
	"fmt"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Review, the log and its audit: what a person uses to see and judge what
// agents wrote.

func cmdReview(e *env, args []string) error {
	fs, asJSON := e.flags("review", "[approve ID | reject ID --note TEXT]")
	note := fs.String("note", "", "a note kept with the decision")
	limit := fs.Int("limit", 50, "memories to list")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return call(e, *asJSON, func(c *client.Client) (*ihmtv1.ListReviewResponse, error) {
			return c.ListReview(e.ctx, &ihmtv1.ListReviewRequest{Limit: int32(*limit)})
		}, e.printReview)
	}
	if len(pos) != 2 {
		return usageError{"use: ihmt review | ihmt review approve ID | ihmt review reject ID --note WHY"}
	}
	d, ok := reviewDecisions[pos[0]]
	if !ok {
		return usageError{fmt.Sprintf("%q: use approve or reject", pos[0])}
	}
	return call(e, *asJSON, memoryOf(func(c *client.Client) (*ihmtv1.ReviewResponse, error) {
		return c.Review(e.ctx, &ihmtv1.ReviewRequest{Id: pos[1], Decision: d, Note: *note})
	}), func(*ihmtv1.Memory) error {
		if d == ihmtv1.ReviewDecision_REVIEW_DECISION_APPROVE {
			fmt.Fprintf(e.stdout, "approved %s: it is verified, and searches rank it above agents' assertions\n", pos[1])
		} else {
			fmt.Fprintf(e.stdout, "rejected %s: it will never be returned\n", pos[1])
		}
		return nil
	})
}

// reviewDecisions are the words `ihmt review` takes for a decision.
var reviewDecisions = map[string]ihmtv1.ReviewDecision{
	"approve": ihmtv1.ReviewDecision_REVIEW_DECISION_APPROVE,
	"reject":  ihmtv1.ReviewDecision_REVIEW_DECISION_REJECT,
}

// printReview lists what waits for the person, with how to decide.
func (e *env) printReview(resp *ihmtv1.ListReviewResponse) error {
	if len(resp.GetMemories()) == 0 {
		fmt.Fprintln(e.stdout, "nothing waits for review")
		return nil
	}
	for _, m := range resp.GetMemories() {
		fmt.Fprintf(e.stdout, "%s  %s · %s · by %s\n  why: %s\n  %s\n\n", m.GetId(), m.GetRecordedAt().AsTime().UTC().Format(time.DateTime),
			client.Where(m), m.GetAgent().GetName(), m.GetReviewNote(), indentText(m.GetContent()))
	}
	fmt.Fprintln(e.stdout, "decide: ihmt review approve ID · ihmt review reject ID --note WHY")
	return nil
}

func cmdLog(e *env, args []string) error {
	fs, asJSON := e.flags("log", "")
	agent := fs.String("agent", "", "only what this agent did (e.g. claude-code)")
	session := fs.String("session", "", "only this session")
	since := fs.String("since", "", "only entries from this date (YYYY-MM-DD or RFC 3339)")
	limit := fs.Int("limit", 100, "newest entries to show")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.LogResponse, error) {
		return c.Log(e.ctx, &ihmtv1.LogRequest{Agent: *agent, SessionId: *session, Since: *since, Limit: int32(*limit)})
	}, func(resp *ihmtv1.LogResponse) error {
		for _, l := range resp.GetEntries() {
			who := l.GetAgent().GetName()
			if l.GetProject() != "" {
				who += " in " + l.GetProject()
			}
			fmt.Fprintf(e.stdout, "%5d %s %-8s %s (session %s): %s\n", l.GetSeq(), l.GetTime().AsTime().UTC().Format(time.DateTime), l.GetOp(), who, l.GetSessionId(), l.GetSummary())
		}
		if n := resp.GetMatched(); n > int64(len(resp.GetEntries())) {
			fmt.Fprintf(e.stdout, "(%d of %d matching entries; --limit shows more)\n", len(resp.GetEntries()), n)
		}
		return nil
	})
}

func cmdAudit(e *env, args []string) error {
	fs, asJSON := e.flags("audit", "verify")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "verify" {
		return usageError{"use: ihmt audit verify"}
	}
	var broken bool
	err = call(e, *asJSON, func(c *client.Client) (*ihmtv1.VerifyAuditResponse, error) {
		resp, err := c.VerifyAudit(e.ctx, &ihmtv1.VerifyAuditRequest{})
		broken = err == nil && !resp.GetOk()
		return resp, err
	}, e.printAudit)
	if err == nil && broken {
		return errReported // in JSON as in text: a broken chain fails the command
	}
	return err
}

// printAudit says whether the log's chain holds, and where it breaks.
func (e *env) printAudit(resp *ihmtv1.VerifyAuditResponse) error {
	if !resp.GetOk() {
		fmt.Fprintf(e.stdout, "BROKEN: the log %s was edited outside IHMT\n", resp.GetPath())
		for _, p := range resp.GetProblems() {
			fmt.Fprintf(e.stdout, "  line %d (seq %d): %s — %s\n", p.GetLine(), p.GetSeq(), p.GetKind(), p.GetDetail())
		}
		fmt.Fprintln(e.stdout, "compare it with a backup; the leaf files hold every memory's own copy")
		return nil
	}
	fmt.Fprintf(e.stdout, "ok: %d log entries chain without a break (%s)\n", resp.GetEntries(), resp.GetPath())
	if n := resp.GetUnchained(); n > 0 {
		fmt.Fprintf(e.stdout, "%d entries predate the hash chain and cannot be verified\n", n)
	}
	if d := resp.GetDamagedLines(); len(d) > 0 {
		fmt.Fprintf(e.stdout, "%d lines were damaged by a crash mid-write (lines %v); they were never acknowledged and are skipped\n", len(d), d)
	}
	return nil
}

// indentText indents every line after the first for a listing.
func indentText(s string) string {
	out := []rune{}
	for _, r := range s {
		out = append(out, r)
		if r == '\n' {
			out = append(out, ' ', ' ')
		}
	}
	return string(out)
}

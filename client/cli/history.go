package cli

import (
	"flag"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The memory's history: corrections, forgetting and the fact timeline; then
// review, the log and its audit — what a person uses to see and judge what
// agents wrote.

func cmdMarkOutdated(e *env, args []string) error {
	fs, asJSON := e.flags("mark-outdated", "OLD_ID NEW_ID")
	pos, err := ids(fs, args, 2, "give the outdated memory's id, then the correction's: ihmt mark-outdated OLD_ID NEW_ID")
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.MarkOutdatedResponse, error) {
		return c.MarkOutdated(e.ctx, &ihmtv1.MarkOutdatedRequest{OldId: pos[0], NewId: pos[1]})
	}, func(resp *ihmtv1.MarkOutdatedResponse) error {
		fmt.Fprintf(e.stdout, "%s is now outdated, superseded by %s\n%s\n", pos[0], pos[1], resp.GetNotice())
		return nil
	})
}

func cmdForget(e *env, args []string) error {
	fs, asJSON := e.flags("forget", "ID --reason TEXT")
	reason := fs.String("reason", "", "why; kept in the tombstone")
	pos, err := ids(fs, args, 1, `give one memory id: ihmt forget 3f2a9c1b7d4e5f60 --reason "no longer true"`)
	if err != nil {
		return err
	}
	return call(e, *asJSON, memoryOf(func(c *client.Client) (*ihmtv1.ForgetResponse, error) {
		return c.Forget(e.ctx, &ihmtv1.ForgetRequest{Id: pos[0], Reason: *reason})
	}), func(*ihmtv1.Memory) error {
		fmt.Fprintf(e.stdout, "forgot %s: it answers no search, and saving the same text again is refused\nundo: ihmt restore %s · remove its text for good: ihmt purge %s\n", pos[0], pos[0], pos[0])
		return nil
	})
}

func cmdRestore(e *env, args []string) error {
	fs, asJSON := e.flags("restore", "ID")
	pos, err := ids(fs, args, 1, "give one memory id: ihmt restore 3f2a9c1b7d4e5f60")
	if err != nil {
		return err
	}
	return call(e, *asJSON, memoryOf(func(c *client.Client) (*ihmtv1.RestoreResponse, error) {
		return c.Restore(e.ctx, &ihmtv1.RestoreRequest{Id: pos[0]})
	}), func(m *ihmtv1.Memory) error {
		fmt.Fprintf(e.stdout, "restored %s (%s)\n", pos[0], client.Where(m))
		return nil
	})
}

func cmdPurge(e *env, args []string) error {
	fs, asJSON := e.flags("purge", "ID")
	pos, err := ids(fs, args, 1, "give one forgotten memory's id: ihmt purge 3f2a9c1b7d4e5f60")
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.PurgeResponse, error) {
		return c.Purge(e.ctx, &ihmtv1.PurgeRequest{Id: pos[0]})
	}, func(resp *ihmtv1.PurgeResponse) error {
		fmt.Fprintln(e.stdout, resp.GetMessage())
		return nil
	})
}

// scopeFlag registers the --scope of a listing, which sees what a search
// does by default.
func scopeFlag(fs *flag.FlagSet) *string {
	return fs.String("scope", "default", "default, project, global or all")
}

func cmdFacts(e *env, args []string) error {
	fs, asJSON := e.flags("facts", "")
	subject := fs.String("subject", "", "only subjects containing this text")
	asOf := fs.String("as-of", "", "as things stood on this date (YYYY-MM-DD)")
	knownAt := fs.String("known-at", "", "as recorded by this date (YYYY-MM-DD)")
	scope := scopeFlag(fs)
	if err := noArgs(fs, args); err != nil {
		return err
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.FactsResponse, error) {
		return c.Facts(e.ctx, &ihmtv1.FactsRequest{Subject: *subject, AsOf: *asOf, KnownAt: *knownAt, Scope: sc})
	}, func(resp *ihmtv1.FactsResponse) error {
		if len(resp.GetFacts()) == 0 {
			fmt.Fprintln(e.stdout, "no facts yet: they are extracted from saves such as \"I live in Madrid\" or \"the staging database is PostgreSQL 17\"")
		}
		for _, f := range resp.GetFacts() {
			fmt.Fprintf(e.stdout, "%s::%s = %s  (since %s, %s, memory %s)\n", f.GetSubject(), f.GetAttribute(), f.GetValue(), day(f.GetValidFrom()), f.GetScope(), f.GetMemoryId())
		}
		return nil
	})
}

func cmdTimeline(e *env, args []string) error {
	fs, asJSON := e.flags("timeline", "SUBJECT::ATTRIBUTE")
	knownAt := fs.String("known-at", "", "as recorded by this date (YYYY-MM-DD)")
	scope := scopeFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	subject, attr, ok := strings.Cut(strings.Join(pos, " "), "::")
	if !ok || strings.TrimSpace(subject) == "" || strings.TrimSpace(attr) == "" {
		return usageError{"give SUBJECT::ATTRIBUTE, e.g. ihmt timeline user::lives_in (ihmt facts lists them)"}
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.TimelineResponse, error) {
		return c.Timeline(e.ctx, &ihmtv1.TimelineRequest{Subject: subject, Attribute: attr, KnownAt: *knownAt, Scope: sc})
	}, func(resp *ihmtv1.TimelineResponse) error {
		for _, f := range resp.GetFacts() {
			until := "now"
			if f.GetValidTo() != nil {
				until = day(f.GetValidTo())
			}
			mark := " "
			if f.GetCurrent() {
				mark = "*"
			}
			fmt.Fprintf(e.stdout, "%s %s → %-10s %s  (recorded %s, memory %s)\n", mark, day(f.GetValidFrom()), until, f.GetValue(), day(f.GetRecordedAt()), f.GetMemoryId())
		}
		return nil
	})
}

func cmdConflicts(e *env, args []string) error {
	fs, asJSON := e.flags("conflicts", "")
	scope := scopeFlag(fs)
	if err := noArgs(fs, args); err != nil {
		return err
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.ConflictsResponse, error) {
		return c.Conflicts(e.ctx, &ihmtv1.ConflictsRequest{Scope: sc})
	}, func(resp *ihmtv1.ConflictsResponse) error {
		if len(resp.GetSupersessions()) == 0 && len(resp.GetProbable()) == 0 {
			fmt.Fprintln(e.stdout, "no value has been superseded")
		}
		for _, x := range resp.GetSupersessions() {
			o, n := x.GetOld(), x.GetNew()
			fmt.Fprintf(e.stdout, "%s::%s: %s (%s, memory %s) → %s (%s, memory %s)\n", o.GetSubject(), o.GetAttribute(),
				o.GetValue(), day(o.GetValidFrom()), o.GetMemoryId(), n.GetValue(), day(n.GetValidFrom()), n.GetMemoryId())
		}
		printProbable(e, resp.GetProbable())
		return nil
	})
}

func day(t *timestamppb.Timestamp) string {
	if t == nil {
		return "-"
	}
	return client.FormatTime(t.AsTime())
}

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
		fmt.Fprintf(e.stdout, "%s  %s · %s · by %s\n  why: %s\n  %s\n\n", m.GetId(), client.FormatTime(m.GetRecordedAt().AsTime()),
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
	scope := scopeFlag(fs)
	if err := noArgs(fs, args); err != nil {
		return err
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.LogResponse, error) {
		return c.Log(e.ctx, &ihmtv1.LogRequest{Agent: *agent, SessionId: *session, Since: *since, Limit: int32(*limit), Scope: sc})
	}, func(resp *ihmtv1.LogResponse) error {
		if len(resp.GetEntries()) == 0 {
			fmt.Fprintln(e.stdout, "no entries match"+logFilters(*agent, *session, *since))
			return nil
		}
		for _, l := range resp.GetEntries() {
			who := l.GetAgent().GetName()
			if l.GetProject() != "" {
				who += " in " + l.GetProject()
			}
			fmt.Fprintf(e.stdout, "%5d %s %-8s %s (session %s): %s\n", l.GetSeq(), client.FormatTime(l.GetTime().AsTime()), l.GetOp(), who, l.GetSessionId(), l.GetSummary())
		}
		if n := resp.GetMatched(); n > int64(len(resp.GetEntries())) {
			fmt.Fprintf(e.stdout, "(%d of %d matching entries; --limit shows more)\n", len(resp.GetEntries()), n)
		}
		return nil
	})
}

// logFilters names the filters a log read used, for an answer that found
// nothing: " (agent codex, since 2026-11-01)".
func logFilters(agent, session, since string) string {
	var fs []string
	for _, f := range [][2]string{{"agent", agent}, {"session", session}, {"since", since}} {
		if f[1] != "" {
			fs = append(fs, f[0]+" "+f[1])
		}
	}
	if len(fs) == 0 {
		return ""
	}
	return " (" + strings.Join(fs, ", ") + ")"
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
		fmt.Fprintf(e.stdout, "BROKEN: the log %s was edited or cut outside IHMT\n", resp.GetPath())
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

package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Corrections, forgetting and the fact timeline.

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
	if _, err := parse(fs, args); err != nil {
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
	if _, err := parse(fs, args); err != nil {
		return err
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.ConflictsResponse, error) {
		return c.Conflicts(e.ctx, &ihmtv1.ConflictsRequest{Scope: sc})
	}, func(resp *ihmtv1.ConflictsResponse) error {
		if len(resp.GetSupersessions()) == 0 {
			fmt.Fprintln(e.stdout, "no value has been superseded")
		}
		for _, x := range resp.GetSupersessions() {
			o, n := x.GetOld(), x.GetNew()
			fmt.Fprintf(e.stdout, "%s::%s: %s (%s, memory %s) → %s (%s, memory %s)\n", o.GetSubject(), o.GetAttribute(),
				o.GetValue(), day(o.GetValidFrom()), o.GetMemoryId(), n.GetValue(), day(n.GetValidFrom()), n.GetMemoryId())
		}
		return nil
	})
}

func day(t *timestamppb.Timestamp) string {
	if t == nil {
		return "-"
	}
	return t.AsTime().UTC().Format(time.DateOnly)
}

func cmdRebuild(e *env, args []string) error {
	fs, asJSON := e.flags("rebuild", "")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.RebuildResponse, error) {
		fmt.Fprintln(e.stderr, "rebuilding: the daemon re-reads every leaf file and rebuilds the summary tree; agents' calls wait meanwhile…")
		return c.Rebuild(e.ctx, &ihmtv1.RebuildRequest{})
	}, func(resp *ihmtv1.RebuildResponse) error {
		fmt.Fprintf(e.stdout, "rebuilt from the leaf files in %.1f s: %d memories, %d facts\n%s\n", float64(resp.GetTookMs())/1000, resp.GetMemories(), resp.GetFacts(), treeSummary(resp.GetTree()))
		return nil
	})
}

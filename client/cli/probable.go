package cli

import (
	"fmt"
	"strings"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The probable supersessions the store inferred: a person reads them in
// `ihmt conflicts`, confirms one with mark-outdated and undoes a wrong one
// with unlink.

func printProbable(e *env, links []*ihmtv1.ProbableLink) {
	if len(links) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "\nprobable (inferred when saved; confirm: ihmt mark-outdated OLD NEW · undo: ihmt unlink OLD NEW):\n")
	for _, p := range links {
		o, n := p.GetOld(), p.GetNew()
		fmt.Fprintf(e.stdout, "  %s (%s) → %s (%s)  %.0f%%, about %s\n    %s\n    %s\n",
			o.GetId(), day(o.GetValidFrom()), n.GetId(), day(n.GetValidFrom()), 100*p.GetConfidence(), strings.Join(aboutWords(p), ", "),
			ihmtv1.Excerpt(o.GetContent(), ihmtv1.CandidateExcerptRunes), ihmtv1.Excerpt(n.GetContent(), ihmtv1.CandidateExcerptRunes))
	}
}

func cmdUnlink(e *env, args []string) error {
	fs, asJSON := e.flags("unlink", "OLD_ID NEW_ID")
	pos, err := ids(fs, args, 2, "give the memory the link outdated, then its probable successor, as `ihmt conflicts` lists them: ihmt unlink OLD_ID NEW_ID")
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.UnlinkResponse, error) {
		return c.Unlink(e.ctx, &ihmtv1.UnlinkRequest{OldId: pos[0], NewId: pos[1]})
	}, func(*ihmtv1.UnlinkResponse) error {
		fmt.Fprintf(e.stdout, "%s is no longer taken as superseded by %s; it answers as current again\n", pos[0], pos[1])
		return nil
	})
}

// aboutWords are what a probable link is about, as the two memories wrote
// them ("Redis, cache"), not the index's stems ("redi, cach").
func aboutWords(p *ihmtv1.ProbableLink) []string {
	written := client.AsWritten(p.GetOld().GetContent()+" "+p.GetNew().GetContent(), p.GetAbout())
	out := make([]string, len(p.GetAbout()))
	for i, t := range p.GetAbout() {
		out[i] = t
		if w, ok := written[t]; ok {
			out[i] = w
		}
	}
	return out
}

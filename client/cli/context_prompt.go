package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
	"github.com/ihmt-dev/ihmt/proto/ihmt/v1/markup"
)

// The per-prompt injection. A wrong memory injected unasked is worse than
// none — the model takes it as given — so the gate is the search's own
// verdict and more: only found (never ambiguous, where the memory cannot
// tell which one is meant, nor not found, where a near miss shares words,
// not meaning), with a confidence of at least promptMinConfidence, and
// only the first result — with its date and, when a later memory
// superseded it, its OUTDATED notices. A second result is not injected: on
// the dev set it was most often the superseded value of the first
// (scripts/contextbench measures it). A memory this session was already
// given, at its start or with an earlier prompt, is not given again.

// promptMinConfidence is the least confidence a found answer needs to be
// injected unasked; below it, the model can still search.
const promptMinConfidence = 0.6

// promptLimit is how many results a prompt's search asks for.
const promptLimit = 3

func (h *hookRun) prompt(ctx context.Context, c *client.Client, seen *seenFile, out *injection) error {
	set, err := c.ContextSettings(ctx)
	if err != nil {
		return err
	}
	if !set.GetPrompt() {
		out.Skipped = "per-prompt injection is off (config.toml [context] prompt = false)"
		return nil
	}
	query := strings.TrimSpace(h.in.Prompt)
	if query == "" {
		out.Skipped = "no prompt"
		return nil
	}
	resp, err := c.Search(ctx, &ihmtv1.SearchRequest{Query: clipRunes(query, 2000), Limit: promptLimit})
	if errors.Is(err, client.ErrInvalid) {
		// A prompt is not a query: one with no words to search or with too
		// many is simply not searched.
		out.Skipped = "the prompt is not searchable: " + err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	if resp.GetStatus() != ihmtv1.SearchStatus_SEARCH_STATUS_FOUND {
		out.Skipped = "the search answered " + strings.ToLower(strings.TrimPrefix(resp.GetStatus().String(), "SEARCH_STATUS_"))
		return nil
	}
	if c := resp.GetConfidence(); c < promptMinConfidence {
		out.Skipped = fmt.Sprintf("the search found an answer with confidence %s, under the %s a memory needs to be injected unasked", client.Confidence(c, promptMinConfidence), client.Threshold(promptMinConfidence))
		return nil
	}
	budget := h.maxTokens
	if budget == 0 {
		budget = int(set.GetPromptTokens())
	}
	if _, ok := hookMaxChars[h.client]; ok {
		budget = min(budget, hookTokenCap(h.client))
	}
	if r := resp.GetResults(); len(r) > 0 && !r[0].GetCurrent() {
		// The best memory has a newer version (the one model of what is
		// current): handed over alone it would read as the answer.
		out.Skipped = "the memory that answers best has a newer version; the model can search for both"
		return nil
	}
	picked := pickForPrompt(resp.GetResults(), seen)
	if len(picked) == 0 {
		out.Skipped = "the memory that answers was already given in this session"
		return nil
	}
	out.Text, out.IDs = promptText(picked, budget)
	out.Tokens = estimateTokens(out.Text)
	out.LeftOut = len(picked) - len(out.IDs)
	seen.add(out.IDs)
	return nil
}

// pickForPrompt chooses the result to inject: the first, unless this
// session was given it already — then none, since the second-best alone
// would be a weaker answer given as if it were the answer.
func pickForPrompt(results []*ihmtv1.SearchResult, seen *seenFile) []*ihmtv1.SearchResult {
	if len(results) == 0 || seen.ids[results[0].GetMemory().GetId()] {
		return nil
	}
	return results[:1]
}

// promptText renders the memories within budget, whole memories only; a
// long memory's text is cut so that the first always fits, with its id to
// read the rest, and its notices. Each memory is fenced as quoted data
// under a label with its provenance (proto/ihmt/v1/markup).
func promptText(results []*ihmtv1.SearchResult, budget int) (string, []string) {
	head := "IHMT memory found for this prompt (dates are when each became true; check it still applies).\n" + quotedNote
	var b strings.Builder
	b.WriteString(head)
	used := estimateTokens(head)
	var ids []string
	for i, r := range results {
		m := r.GetMemory()
		label := "- memory " + m.GetId() + " · valid from " + client.FormatTime(m.GetValidFrom().AsTime()) + provenance(m)
		var notes strings.Builder
		for _, n := range r.GetNotices() {
			notes.WriteString("  NOTICE: " + markup.Line(ihmtv1.Excerpt(n, 400)) + "\n")
		}
		room := (budget-used-estimateTokens(label+notes.String()))*4 - 40
		text := strings.Join(strings.Fields(m.GetContent()), " ")
		if i > 0 && utf8.RuneCountInString(text) > room {
			break // a second memory is shown whole or not at all
		}
		if room < 100 {
			break
		}
		if utf8.RuneCountInString(text) > room {
			text = clipRunes(text, room-50) + "… (`ihmt get " + m.GetId() + "` for the rest)"
		}
		entry := markup.Quote(label, text, markup.Prose) + notes.String()
		b.WriteString(entry)
		used += estimateTokens(entry)
		ids = append(ids, m.GetId())
	}
	if len(ids) == 0 {
		return "", nil
	}
	return b.String(), ids
}

// provenance says who saved a memory and how far it is trusted, for its
// label: " · saved by claude-code · asserted".
func provenance(m *ihmtv1.Memory) string {
	var b strings.Builder
	if a := m.GetAgent().GetName(); a != "" {
		b.WriteString(" · saved by " + markup.Line(clipRunes(a, 60)))
	}
	if t := m.GetTrust(); t != ihmtv1.Trust_TRUST_UNSPECIFIED {
		b.WriteString(" · " + strings.ToLower(strings.TrimPrefix(t.String(), "TRUST_")))
	}
	return b.String()
}

// estimateTokens is the store's estimate (pkg/store's briefing): four
// characters a token.
func estimateTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

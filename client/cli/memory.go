package cli

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Saving, searching and reading memories.

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// filing is what a save and an ingest share: when what they keep became
// true, and where and under what it is filed. The help words differ: a
// save is one memory, an ingest every leaf of a document.
type filing struct {
	date, scope, domain string
	tags                stringList
}

func (f *filing) flags(fs *flag.FlagSet, dateHelp, domainHelp, tagHelp string) {
	fs.StringVar(&f.date, "date", "", dateHelp)
	fs.StringVar(&f.scope, "scope", "", "global or project (default: the project when there is one)")
	fs.StringVar(&f.domain, "domain", "", domainHelp)
	fs.Var(&f.tags, "tag", tagHelp)
}

func cmdSave(e *env, args []string) error {
	fs, asJSON := e.flags("save", "TEXT... | -")
	var f filing
	f.flags(fs, "when it became true: YYYY-MM-DD or RFC 3339 (default: the date the text opens with, else now)",
		"dotted subject area, e.g. software.go", "label (repeatable)")
	replaces := fs.String("replaces", "", "the memory this corrects: its id, or a few words describing it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	text, err := saveText(pos)
	if err != nil {
		return err
	}
	sc, err := saveScope(f.scope)
	if err != nil {
		return err
	}
	req := &ihmtv1.SaveRequest{Content: text, Date: f.date, Scope: sc, Domain: f.domain, Tags: f.tags, Replaces: *replaces}
	e.files = true
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.SaveResponse, error) {
		resp, err := c.Save(e.ctx, req)
		if err == nil {
			e.warnVersion(c)
		}
		return resp, err
	}, func(resp *ihmtv1.SaveResponse) error { return e.printSave(req, resp) })
}

// saveText is the text to save: the arguments, or stdin for "-".
func saveText(pos []string) (string, error) {
	text := strings.Join(pos, " ")
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(os.Stdin, 2<<20))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return "", usageError{"nothing to save: give the text as arguments, or - to read it from stdin"}
	}
	return text, nil
}

// printSave says what became of a save — where it was filed and why when
// that was the home directory, and which date it holds and where that
// came from; a refused one fails the command.
func (e *env) printSave(req *ihmtv1.SaveRequest, resp *ihmtv1.SaveResponse) error {
	m := resp.GetMemory()
	switch resp.GetStatus() {
	case ihmtv1.SaveStatus_SAVE_STATUS_DUPLICATE:
		fmt.Fprintf(e.stdout, "already stored as %s (%s, recorded %s); nothing written\n", resp.GetId(), client.Where(m), client.FormatTime(m.GetRecordedAt().AsTime()))
	case ihmtv1.SaveStatus_SAVE_STATUS_REFUSED:
		fmt.Fprintf(e.stderr, "ihmt save: %s\n", resp.GetMessage())
		return errReported
	case ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW:
		fmt.Fprintf(e.stdout, "stored %s, pending review: %s\n", resp.GetId(), resp.GetMessage())
	default:
		source := client.DateSource(req.GetDate(), m)
		fmt.Fprintf(e.stdout, "saved %s (%s, valid from %s, %s)\n", resp.GetId(), client.Where(m), client.FormatTime(m.GetValidFrom().AsTime()), client.DateSourceText[source])
		if source == client.DateSave {
			fmt.Fprintf(e.stdout, "if it speaks of another time, it now reads as the current value: save it again with --date YYYY-MM-DD and the words changed a little (the same text is a duplicate), then `ihmt forget %s --reason undated`\n", resp.GetId())
		}
		if e.atHome && m.GetScope() == ihmtv1.Scope_SCOPE_GLOBAL {
			fmt.Fprintln(e.stdout, "global: saved from the home directory, which is no project (from inside a repository it files under that project; --project KEY names one)")
		}
	}
	for _, c := range resp.GetCorrections() {
		fmt.Fprintf(e.stdout, "supersedes %s: %s\n", c.GetOldId(), c.GetNotice())
	}
	if len(resp.GetCandidates()) > 0 {
		fmt.Fprintln(e.stdout, resp.GetMessage())
		printCandidates(e.stdout, resp.GetCandidates())
		fmt.Fprintf(e.stdout, "link the right one: ihmt mark-outdated OLD_ID %s\n", resp.GetId())
	}
	return nil
}

// printCandidates lists memories to choose between, one a line.
func printCandidates(w io.Writer, cs []*ihmtv1.Candidate) {
	for _, c := range cs {
		fmt.Fprintf(w, "  - %s (%s): %s\n", c.GetId(), client.FormatTime(c.GetValidFrom().AsTime()), c.GetExcerpt())
	}
}

func cmdSearch(e *env, args []string) error {
	fs, asJSON := e.flags("search", "QUERY...")
	clue := fs.String("clue", "", "a detail that tells apart the candidates of an ambiguous answer")
	scope := fs.String("scope", "default", "default (global + this project), project, global or all")
	limit := fs.Int("limit", 5, "results to return (1-50)")
	asOf := fs.String("as-of", "", "answer as things stood on this date (YYYY-MM-DD)")
	knownAt := fs.String("known-at", "", "answer with what the memory had recorded by this date (YYYY-MM-DD)")
	full := fs.Bool("full", false, "show every result whole (long ones are clipped otherwise)")
	explain := fs.Bool("explain", false, "also show how the search reached its answer: the rewrite, each ranked memory's score and signals, the verdict's case")
	q, err := query(fs, args, "give a query: ihmt search where do I deploy staging")
	if err != nil {
		return err
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	req := &ihmtv1.SearchRequest{Query: q, Clue: *clue, Scope: sc, Limit: int32(*limit), AsOf: *asOf, KnownAt: *knownAt, Explain: *explain}
	var other *client.Elsewhere
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.SearchResponse, error) {
		resp, err := c.Search(e.ctx, req)
		if err == nil {
			e.warnVersion(c)
			if !*asJSON {
				other = c.FindElsewhere(e.ctx, req, resp)
			}
		}
		return resp, err
	}, func(resp *ihmtv1.SearchResponse) error {
		printSearch(e.stdout, req.GetQuery(), resp, *full)
		printElsewhere(e.stdout, other)
		printTrace(e.stdout, req.GetQuery(), resp.GetTrace())
		return nil
	})
}

// printTrace shows a search's trace, when it carries one, with the terms
// it names (stems) as the query wrote them.
func printTrace(w io.Writer, query string, t *ihmtv1.Trace) {
	if t == nil {
		return
	}
	named := slices.Clone(t.GetTerms())
	for _, r := range t.GetRewrites() {
		named = append(named, strings.FieldsFunc(r, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })...)
	}
	written := client.AsWritten(query, named)
	fmt.Fprintf(w, "\nHow this answer was reached\n  searched for: %s\n", client.Unstem(strings.Join(t.GetTerms(), " "), written))
	for _, r := range t.GetRewrites() {
		fmt.Fprintf(w, "  rewrite  %s\n", client.Unstem(r, written))
	}
	for i, r := range t.GetRanked() {
		state := ""
		if !r.GetCurrent() {
			state = "  (not current)"
		}
		fmt.Fprintf(w, "  %2d. %s  base %.3f → %.3f%s\n", i+1, r.GetId(), r.GetBase(), r.GetScore(), state)
		for _, f := range r.GetFactors() {
			fmt.Fprintf(w, "        %s\n", ihmtv1.FactorText(f))
		}
	}
	fmt.Fprintf(w, "  verdict decided by: %s\n  evidence: %s\n", t.GetDecided(), strings.Join(t.GetEvidence(), ", "))
}

// printElsewhere says, under a not_found, which other projects hold
// matches and how to see them.
func printElsewhere(w io.Writer, other *client.Elsewhere) {
	if other == nil {
		return
	}
	fmt.Fprintf(w, "Other projects hold matches: %s. See them with --scope all.\n", strings.Join(other.Projects, ", "))
}

// A compact answer shows a result's first lines only: an ingested function
// or a long paste would push the other results off the screen.
const (
	compactLines = 12
	compactRunes = 1200
)

// printContent prints a result's text, indented; clipped to its first
// lines unless full, with a line saying what was left out and how to see it.
func printContent(w io.Writer, m *ihmtv1.Memory, full bool) {
	lines := strings.Split(strings.TrimRight(m.GetContent(), "\n"), "\n")
	shown, runes := len(lines), 0
	if !full {
		for i, line := range lines {
			runes += utf8.RuneCountInString(line)
			if i == compactLines || (i > 0 && runes > compactRunes) {
				shown = i
				break
			}
		}
	}
	for _, line := range lines[:shown] {
		if r := []rune(line); !full && len(r) > compactRunes {
			line = string(r[:compactRunes]) + "…" // one line too long to show whole
		}
		fmt.Fprintf(w, "   %s\n", line)
	}
	if left := len(lines) - shown; left > 0 {
		fmt.Fprintf(w, "   … %s not shown: `ihmt get %s` shows it all (or search with --full)\n", plural(left, "line", "lines"), m.GetId())
	} else if !full && utf8.RuneCountInString(lines[0]) > compactRunes {
		fmt.Fprintf(w, "   … clipped: `ihmt get %s` shows it all (or search with --full)\n", m.GetId())
	}
}

// query reads a search's words: the positional arguments, which hint says
// how to give when there are none.
func query(fs *flag.FlagSet, args []string, hint string) (string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", err
	}
	q := strings.Join(pos, " ")
	if strings.TrimSpace(q) == "" {
		return "", usageError{hint}
	}
	return q, nil
}

// printSearch renders a search for a person: the verdict, in the query's
// own words, then each result with its provenance, or the candidates to
// choose between.
func printSearch(w io.Writer, query string, resp *ihmtv1.SearchResponse, full bool) {
	cov := resp.GetCoverage()
	written := client.AsWritten(query, resp.GetTerms())
	fmt.Fprintf(w, "%s (confidence %s) — %s\n", ihmtv1.SearchStatusName(resp.GetStatus()), client.Confidence(resp.GetConfidence()), client.Unstem(resp.GetMessage(), written))
	results, copies := client.Distinct(resp.GetResults())
	for i, r := range results {
		m := r.GetMemory()
		state := ihmtv1.TrustName(m.GetTrust())
		if !r.GetCurrent() {
			state += " · OUTDATED"
		}
		fmt.Fprintf(w, "\n%d. %s  [%s · %s · by %s · id %s · score %.2f]\n", i+1, client.FormatTime(m.GetValidFrom().AsTime()), client.Where(m),
			state, m.GetAgent().GetName(), m.GetId(), r.GetScore())
		if from := client.From(m); from != "" {
			fmt.Fprintf(w, "   from %s\n", from)
		}
		if ids := copies[m.GetId()]; len(ids) > 0 {
			fmt.Fprintf(w, "   (the same text is also stored as %s)\n", strings.Join(ids, ", "))
		}
		printContent(w, m, full)
		for _, n := range r.GetNotices() {
			fmt.Fprintf(w, "   NOTICE: %s\n", n)
		}
	}
	printCandidates(w, resp.GetCandidates())
	if resp.GetStatus() == ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS {
		fmt.Fprintln(w, "\nTell them apart with --clue WORDS, or look at one with `ihmt get ID`.")
	}
	fmt.Fprintf(w, "\n(%d of %d visible memories scored; exhaustive: %v)\n", cov.GetLeavesScored(), cov.GetLeavesVisible(), cov.GetExhaustive())
}

// maxClues bounds the clue loop: past it, the memory cannot tell the
// candidates apart, and more questions would only annoy.
const maxClues = 5

// cmdAsk is search with the clue loop at a terminal: while the answer is
// ambiguous it shows the candidates, numbered, and asks which one is meant
// (a number) or for a detail that tells them apart, the way an agent is
// told to. Anywhere else — stdin a pipe or a file, or --json — nobody is
// there to answer, so it answers exactly as search does.
func cmdAsk(e *env, args []string) error {
	fs, asJSON := e.flags("ask", "QUESTION...")
	clue := fs.String("clue", "", "a detail that tells apart the candidates of an ambiguous answer")
	scope := fs.String("scope", "default", "default (global + this project), project, global or all")
	asOf := fs.String("as-of", "", "answer as things stood on this date (YYYY-MM-DD)")
	q, err := query(fs, args, "ask a question: ihmt ask who reviews my pull requests")
	if err != nil {
		return err
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	req := &ihmtv1.SearchRequest{Query: q, Clue: *clue, Scope: sc, AsOf: *asOf}
	if *asJSON || !e.interactive() {
		return call(e, *asJSON, func(c *client.Client) (*ihmtv1.SearchResponse, error) {
			return c.Search(e.ctx, req)
		}, func(resp *ihmtv1.SearchResponse) error {
			printSearch(e.stdout, req.GetQuery(), resp, false)
			return nil
		})
	}
	return e.withClient(func(c *client.Client) error { return e.ask(c, req) })
}

// interactive reports whether a person is at the terminal to answer.
func (e *env) interactive() bool {
	if e.tty != nil {
		return *e.tty
	}
	return term.IsTerminal(int(os.Stdin.Fd()))
}

// ask searches until the answer is not ambiguous, asking each round it is
// which candidate is meant or for a detail that tells them apart.
func (e *env) ask(c *client.Client, req *ihmtv1.SearchRequest) error {
	in := bufio.NewScanner(e.input())
	for round := 1; ; round++ {
		resp, err := c.Search(e.ctx, req)
		if err != nil {
			return err
		}
		if resp.GetStatus() != ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS {
			printSearch(e.stdout, req.GetQuery(), resp, false)
			return nil
		}
		if round > maxClues {
			fmt.Fprintf(e.stdout, "still ambiguous after %d clues; look at each with `ihmt get ID`\n", maxClues)
			printSearch(e.stdout, req.GetQuery(), resp, false)
			return nil
		}
		answer, ok := e.askClue(in, resp)
		if !ok {
			return nil
		}
		cands := resp.GetCandidates()
		if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(cands) {
			got, err := c.Get(e.ctx, &ihmtv1.GetRequest{Id: cands[n-1].GetId(), Scope: req.GetScope()})
			if err != nil {
				return err
			}
			return e.printMemory(got.GetMemory())
		}
		req.Clue = strings.TrimSpace(req.GetClue() + " " + answer)
	}
}

// input is where ask reads a person's answers.
func (e *env) input() io.Reader {
	if e.stdin != nil {
		return e.stdin
	}
	return os.Stdin
}

// askClue shows an ambiguous answer's candidates, numbered, and reads which
// one is meant or a detail that tells them apart; false when the person
// gives neither.
func (e *env) askClue(in *bufio.Scanner, resp *ihmtv1.SearchResponse) (string, bool) {
	fmt.Fprintf(e.stdout, "%s Which one do you mean?\n", resp.GetMessage())
	for i, cand := range resp.GetCandidates() {
		fmt.Fprintf(e.stdout, "  %d. %s (%s): %s\n", i+1, cand.GetId(), client.FormatTime(cand.GetValidFrom().AsTime()), cand.GetExcerpt())
	}
	fmt.Fprintf(e.stdout, "a number (1-%d), or a detail that tells them apart (empty to stop): ", len(resp.GetCandidates()))
	if !in.Scan() || strings.TrimSpace(in.Text()) == "" {
		fmt.Fprintln(e.stdout, "\nno clue given; the candidates above are all the memory has")
		return "", false
	}
	return strings.TrimSpace(in.Text()), true
}

func cmdGet(e *env, args []string) error {
	fs, asJSON := e.flags("get", "ID")
	all := fs.Bool("all", false, "look in every project, not only global + this project")
	pos, err := ids(fs, args, 1, "give one memory id: ihmt get 3f2a9c1b7d4e5f60")
	if err != nil {
		return err
	}
	sc := ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED
	if *all {
		sc = ihmtv1.SearchScope_SEARCH_SCOPE_ALL
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.GetResponse, error) {
		return c.Get(e.ctx, &ihmtv1.GetRequest{Id: pos[0], Scope: sc})
	}, e.printGot)
}

// printGot shows a memory, then whether it is current and every inferred
// link it takes part in (the explicit ones are in its header).
func (e *env) printGot(r *ihmtv1.GetResponse) error {
	if err := e.printMemory(r.GetMemory()); err != nil {
		return err
	}
	id := r.GetMemory().GetId()
	if c := r.GetCurrency(); c != nil && r.GetMemory().GetStatus() == "active" {
		if c.GetCurrent() {
			fmt.Fprintln(e.stdout, "\ncurrent:     yes")
		} else {
			fmt.Fprintf(e.stdout, "\ncurrent:     no, superseded by %s (%s, certainty %.2f)\n", c.GetSupersededBy(), c.GetHow(), c.GetCertainty())
		}
	}
	for _, p := range r.GetProbable() {
		other, dir := p.GetNew(), "probably superseded by"
		if p.GetNew().GetId() == id {
			other, dir = p.GetOld(), "probably supersedes"
		}
		fmt.Fprintf(e.stdout, "inferred:    %s %s (%s, confidence %.2f): %s\n", dir, other.GetId(), client.FormatTime(other.GetValidFrom().AsTime()), p.GetConfidence(), ihmtv1.Excerpt(other.GetContent(), 120))
	}
	if len(r.GetProbable()) > 0 {
		fmt.Fprintf(e.stdout, "             confirm with `ihmt mark-outdated OLD NEW`, undo with `ihmt unlink OLD NEW`\n")
	}
	return nil
}

// memoryOf is a call whose answer is the memory it carries: forget, restore,
// review and get print that, in JSON as in text.
func memoryOf[T interface{ GetMemory() *ihmtv1.Memory }](rpc func(*client.Client) (T, error)) func(*client.Client) (*ihmtv1.Memory, error) {
	return func(c *client.Client) (*ihmtv1.Memory, error) {
		resp, err := rpc(c)
		if err != nil {
			return nil, err
		}
		return resp.GetMemory(), nil
	}
}

// printMemory shows one memory with its full header, then its text.
func (e *env) printMemory(m *ihmtv1.Memory) error {
	fmt.Fprintf(e.stdout, "id:          %s\nvalid from:  %s\nrecorded at: %s\nscope:       %s\nagent:       %s %s (session %s)\ntrust:       %s\nstatus:      %s\n",
		m.GetId(), client.FormatTime(m.GetValidFrom().AsTime()), client.FormatTime(m.GetRecordedAt().AsTime()), client.Where(m),
		m.GetAgent().GetName(), m.GetAgent().GetVersion(), m.GetSessionId(), ihmtv1.TrustName(m.GetTrust()), m.GetStatus())
	for _, f := range []struct{ label, value string }{
		{"domain:      ", m.GetDomain()},
		{"tags:        ", strings.Join(m.GetTags(), ", ")},
		{"saved from:  ", prefixed("project ", m.GetOriginProject())},
		{"review:      ", m.GetReviewNote()},
		{"corrects:    ", strings.Join(m.GetCorrects(), ", ")},
		{"corrected by: ", strings.Join(m.GetCorrectedBy(), ", ")},
	} {
		if f.value != "" {
			fmt.Fprintf(e.stdout, "%s%s\n", f.label, f.value)
		}
	}
	if t := m.GetTombstone(); t != nil {
		fmt.Fprintf(e.stdout, "forgotten:   %s by %s: %s\n", client.FormatTime(t.GetForgottenAt().AsTime()), t.GetBy().GetName(), t.GetReason())
		if t.GetPurgedAt() != nil {
			fmt.Fprintf(e.stdout, "purged:      %s (text removed)\n", client.FormatTime(t.GetPurgedAt().AsTime()))
		}
	}
	fmt.Fprintf(e.stdout, "\n%s\n", strings.TrimRight(m.GetContent(), "\n"))
	return nil
}

// prefixed is s after prefix, or "" when s is.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func cmdSave(e *env, args []string) error {
	fs, asJSON := e.flags("save", "TEXT... | -")
	date := fs.String("date", "", "when it became true: YYYY-MM-DD or RFC 3339 (default: the date the text opens with, else now)")
	scope := fs.String("scope", "", "global or project (default: the project when there is one)")
	domain := fs.String("domain", "", "dotted subject area, e.g. software.go")
	replaces := fs.String("replaces", "", "the memory this corrects: its id, or a few words describing it")
	var tags stringList
	fs.Var(&tags, "tag", "label (repeatable)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	text := strings.Join(pos, " ")
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(os.Stdin, 2<<20))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return usageError{"nothing to save: give the text as arguments, or - to read it from stdin"}
	}
	sc, err := saveScope(*scope)
	if err != nil {
		return err
	}
	c, err := e.client(true)
	if err != nil {
		return err
	}
	defer c.Close()
	resp, err := c.Save(e.ctx, &ihmtv1.SaveRequest{Content: text, Date: *date, Scope: sc, Domain: *domain, Tags: tags, Replaces: *replaces})
	if err != nil {
		return err
	}
	e.warnVersion(c)
	if *asJSON {
		return e.printProto(resp)
	}
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
		fmt.Fprintf(e.stdout, "saved %s (%s, valid from %s)\n", resp.GetId(), client.Where(m), client.FormatTime(m.GetValidFrom().AsTime()))
	}
	for _, c := range resp.GetCorrections() {
		fmt.Fprintf(e.stdout, "supersedes %s: %s\n", c.GetOldId(), c.GetNotice())
	}
	if len(resp.GetCandidates()) > 0 {
		fmt.Fprintln(e.stdout, resp.GetMessage())
		for _, c := range resp.GetCandidates() {
			fmt.Fprintf(e.stdout, "  - %s (%s): %s\n", c.GetId(), client.FormatTime(c.GetValidFrom().AsTime()), c.GetExcerpt())
		}
		fmt.Fprintf(e.stdout, "link the right one: ihmt mark-outdated OLD_ID %s\n", resp.GetId())
	}
	return nil
}

// saveScope maps a save's --scope onto the API's scope.
func saveScope(s string) (ihmtv1.Scope, error) {
	switch s {
	case "":
		return ihmtv1.Scope_SCOPE_UNSPECIFIED, nil
	case "global":
		return ihmtv1.Scope_SCOPE_GLOBAL, nil
	case "project":
		return ihmtv1.Scope_SCOPE_PROJECT, nil
	}
	return 0, usageError{fmt.Sprintf("--scope %q: use global or project", s)}
}

// searchScopes maps --scope values onto the API's search scopes.
var searchScopes = map[string]ihmtv1.SearchScope{
	"default": ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED, "project": ihmtv1.SearchScope_SEARCH_SCOPE_PROJECT,
	"global": ihmtv1.SearchScope_SEARCH_SCOPE_GLOBAL, "all": ihmtv1.SearchScope_SEARCH_SCOPE_ALL,
}

func searchScope(s string) (ihmtv1.SearchScope, error) {
	sc, ok := searchScopes[s]
	if !ok {
		return 0, usageError{fmt.Sprintf("--scope %q: use default, project, global or all", s)}
	}
	return sc, nil
}

func cmdSearch(e *env, args []string) error {
	fs, asJSON := e.flags("search", "QUERY...")
	clue := fs.String("clue", "", "a detail that tells apart the candidates of an ambiguous answer")
	scope := fs.String("scope", "default", "default (global + this project), project, global or all")
	limit := fs.Int("limit", 5, "results to return (1-50)")
	asOf := fs.String("as-of", "", "answer as things stood on this date (YYYY-MM-DD)")
	knownAt := fs.String("known-at", "", "answer with what the memory had recorded by this date (YYYY-MM-DD)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usageError{"give a query: ihmt search where do I deploy staging"}
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	c, err := e.client(true)
	if err != nil {
		return err
	}
	defer c.Close()
	resp, err := c.Search(e.ctx, &ihmtv1.SearchRequest{Query: query, Clue: *clue, Scope: sc, Limit: int32(*limit), AsOf: *asOf, KnownAt: *knownAt})
	if err != nil {
		return err
	}
	e.warnVersion(c)
	if *asJSON {
		return e.printProto(resp)
	}
	printSearch(e.stdout, resp)
	return nil
}

// printSearch renders a search for a person: the verdict, then each result
// with its provenance, or the candidates to choose between.
func printSearch(w io.Writer, resp *ihmtv1.SearchResponse) {
	cov := resp.GetCoverage()
	fmt.Fprintf(w, "%s (confidence %.2f) — %s\n", lower(resp.GetStatus(), "SEARCH_STATUS_"), resp.GetConfidence(), resp.GetMessage())
	for i, r := range resp.GetResults() {
		m := r.GetMemory()
		state := lower(m.GetTrust(), "TRUST_")
		if !r.GetCurrent() {
			state += " · OUTDATED"
		}
		fmt.Fprintf(w, "\n%d. %s  [%s · %s · by %s · id %s · score %.2f]\n", i+1, client.FormatTime(m.GetValidFrom().AsTime()), client.Where(m),
			state, m.GetAgent().GetName(), m.GetId(), r.GetScore())
		for _, line := range strings.Split(strings.TrimRight(m.GetContent(), "\n"), "\n") {
			fmt.Fprintf(w, "   %s\n", line)
		}
		for _, n := range r.GetNotices() {
			fmt.Fprintf(w, "   NOTICE: %s\n", n)
		}
	}
	for _, c := range resp.GetCandidates() {
		fmt.Fprintf(w, "  - %s (%s): %s\n", c.GetId(), client.FormatTime(c.GetValidFrom().AsTime()), c.GetExcerpt())
	}
	if resp.GetStatus() == ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS {
		fmt.Fprintln(w, "\nTell them apart with --clue WORDS, or look at one with `ihmt get ID`.")
	}
	fmt.Fprintf(w, "\n(%d of %d visible memories scored; exhaustive: %v)\n", cov.GetLeavesScored(), cov.GetLeavesVisible(), cov.GetExhaustive())
}

func cmdGet(e *env, args []string) error {
	fs, asJSON := e.flags("get", "ID")
	all := fs.Bool("all", false, "look in every project, not only global + this project")
	pos, c, err := e.withIDs(fs, args, 1, "give one memory id: ihmt get 3f2a9c1b7d4e5f60")
	if err != nil {
		return err
	}
	defer c.Close()
	sc := ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED
	if *all {
		sc = ihmtv1.SearchScope_SEARCH_SCOPE_ALL
	}
	resp, err := c.Get(e.ctx, &ihmtv1.GetRequest{Id: pos[0], Scope: sc})
	if err != nil {
		return err
	}
	if *asJSON {
		return e.printProto(resp.GetMemory())
	}
	m := resp.GetMemory()
	fmt.Fprintf(e.stdout, "id:          %s\nvalid from:  %s\nrecorded at: %s\nscope:       %s\nagent:       %s %s (session %s)\ntrust:       %s\nstatus:      %s\n",
		m.GetId(), client.FormatTime(m.GetValidFrom().AsTime()), m.GetRecordedAt().AsTime().UTC().Format(time.RFC3339), client.Where(m),
		m.GetAgent().GetName(), m.GetAgent().GetVersion(), m.GetSessionId(), lower(m.GetTrust(), "TRUST_"), m.GetStatus())
	if m.GetDomain() != "" {
		fmt.Fprintf(e.stdout, "domain:      %s\n", m.GetDomain())
	}
	if len(m.GetTags()) > 0 {
		fmt.Fprintf(e.stdout, "tags:        %s\n", strings.Join(m.GetTags(), ", "))
	}
	if m.GetOriginProject() != "" {
		fmt.Fprintf(e.stdout, "saved from:  project %s\n", m.GetOriginProject())
	}
	if m.GetReviewNote() != "" {
		fmt.Fprintf(e.stdout, "review:      %s\n", m.GetReviewNote())
	}
	if len(m.GetCorrects()) > 0 {
		fmt.Fprintf(e.stdout, "corrects:    %s\n", strings.Join(m.GetCorrects(), ", "))
	}
	if len(m.GetCorrectedBy()) > 0 {
		fmt.Fprintf(e.stdout, "corrected by: %s\n", strings.Join(m.GetCorrectedBy(), ", "))
	}
	if t := m.GetTombstone(); t != nil {
		fmt.Fprintf(e.stdout, "forgotten:   %s by %s: %s\n", t.GetForgottenAt().AsTime().UTC().Format(time.RFC3339), t.GetBy().GetName(), t.GetReason())
		if t.GetPurgedAt() != nil {
			fmt.Fprintf(e.stdout, "purged:      %s (text removed)\n", t.GetPurgedAt().AsTime().UTC().Format(time.RFC3339))
		}
	}
	fmt.Fprintf(e.stdout, "\n%s\n", strings.TrimRight(m.GetContent(), "\n"))
	return nil
}

// printProto prints an API message as JSON with the proto field names, the
// same shape grpcurl shows.
func (e *env) printProto(m proto.Message) error {
	b, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(m)
	if err != nil {
		return err
	}
	// protojson varies its spacing on purpose (so nobody depends on it);
	// re-indenting makes the output stable for scripts that grep it.
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = e.stdout.Write(out.Bytes())
	return err
}

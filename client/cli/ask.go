package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// cmdAsk is search with the clue loop at the terminal: while the answer is
// ambiguous it shows the candidates and asks for a detail that tells them
// apart, the way an agent is told to.
func cmdAsk(e *env, args []string) error {
	fs, asJSON := e.flags("ask", "QUESTION...")
	scope := fs.String("scope", "default", "default (global + this project), project, global or all")
	asOf := fs.String("as-of", "", "answer as things stood on this date (YYYY-MM-DD)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usageError{"ask a question: ihmt ask who reviews my pull requests"}
	}
	if *asJSON {
		return usageError{"ask is interactive; use `ihmt search --json --clue …` in scripts"}
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
	in := bufio.NewScanner(os.Stdin)
	clue := ""
	for round := 1; ; round++ {
		resp, err := c.Search(e.ctx, &ihmtv1.SearchRequest{Query: query, Clue: clue, Scope: sc, AsOf: *asOf})
		if err != nil {
			return err
		}
		if resp.GetStatus() != ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS {
			printSearch(e.stdout, resp)
			return nil
		}
		if round > 5 {
			fmt.Fprintln(e.stdout, "still ambiguous after 5 clues; look at each with `ihmt get ID`")
			printSearch(e.stdout, resp)
			return nil
		}
		fmt.Fprintf(e.stdout, "%s Which one do you mean?\n", resp.GetMessage())
		for _, cand := range resp.GetCandidates() {
			fmt.Fprintf(e.stdout, "  - %s\n", cand.GetExcerpt())
		}
		fmt.Fprint(e.stdout, "a detail that tells them apart (empty to stop): ")
		if !in.Scan() || strings.TrimSpace(in.Text()) == "" {
			fmt.Fprintln(e.stdout, "\nno clue given; the candidates above are all the memory has")
			return nil
		}
		clue = strings.TrimSpace(clue + " " + in.Text())
	}
}

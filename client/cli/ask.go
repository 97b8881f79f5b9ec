package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// maxClues bounds the clue loop: past it, the memory cannot tell the
// candidates apart, and more questions would only annoy.
const maxClues = 5

// cmdAsk is search with the clue loop at the terminal: while the answer is
// ambiguous it shows the candidates and asks for a detail that tells them
// apart, the way an agent is told to.
func cmdAsk(e *env, args []string) error {
	fs, asJSON := e.flags("ask", "QUESTION...")
	scope := fs.String("scope", "default", "default (global + this project), project, global or all")
	asOf := fs.String("as-of", "", "answer as things stood on this date (YYYY-MM-DD)")
	q, err := query(fs, args, "ask a question: ihmt ask who reviews my pull requests")
	if err != nil {
		return err
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
		resp, err := c.Search(e.ctx, &ihmtv1.SearchRequest{Query: q, Clue: clue, Scope: sc, AsOf: *asOf})
		if err != nil {
			return err
		}
		if resp.GetStatus() != ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS {
			printSearch(e.stdout, resp)
			return nil
		}
		if round > maxClues {
			fmt.Fprintf(e.stdout, "still ambiguous after %d clues; look at each with `ihmt get ID`\n", maxClues)
			printSearch(e.stdout, resp)
			return nil
		}
		more, ok := e.askClue(in, resp)
		if !ok {
			return nil
		}
		clue = strings.TrimSpace(clue + " " + more)
	}
}

// askClue shows an ambiguous answer's candidates and reads a detail that
// tells them apart; false when the person gives none.
func (e *env) askClue(in *bufio.Scanner, resp *ihmtv1.SearchResponse) (string, bool) {
	fmt.Fprintf(e.stdout, "%s Which one do you mean?\n", resp.GetMessage())
	for _, cand := range resp.GetCandidates() {
		fmt.Fprintf(e.stdout, "  - %s\n", cand.GetExcerpt())
	}
	fmt.Fprint(e.stdout, "a detail that tells them apart (empty to stop): ")
	if !in.Scan() || strings.TrimSpace(in.Text()) == "" {
		fmt.Fprintln(e.stdout, "\nno clue given; the candidates above are all the memory has")
		return "", false
	}
	return in.Text(), true
}

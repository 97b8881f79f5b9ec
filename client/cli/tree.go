package cli

import (
	"fmt"
	"strings"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// cmdTree prints the summary tree as an outline.
func cmdTree(e *env, args []string) error {
	fs, asJSON := e.flags("tree", "")
	depth := fs.Int("depth", 2, "levels to print: 1 = the root's items only, 0 = everything")
	scope := fs.String("scope", "default", "default (global + this project), project, global or all")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	if *depth < 0 {
		return usageError{fmt.Sprintf("--depth %d: use 0 (everything) or more", *depth)}
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.TreeResponse, error) {
		return c.Tree(e.ctx, &ihmtv1.TreeRequest{Depth: int32(*depth), Scope: sc})
	}, func(resp *ihmtv1.TreeResponse) error {
		e.printTree(resp, *depth)
		return nil
	})
}

// printTree prints the outline: each group's items, a branch with its
// layer and size, a memory with its id.
func (e *env) printTree(resp *ihmtv1.TreeResponse, depth int) {
	st := resp.GetStats()
	if !st.GetReady() {
		fmt.Fprintln(e.stdout, "The summary tree is still being caught up with the store; try again in a moment.")
		return
	}
	if len(resp.GetNodes()) == 0 {
		fmt.Fprintln(e.stdout, "No memories in this scope yet (try --scope all).")
		return
	}
	group := ""
	for _, n := range resp.GetNodes() {
		if n.GetDepth() == 0 && n.GetGroup() != group {
			group = n.GetGroup()
			fmt.Fprintf(e.stdout, "%s\n", group)
		}
		indent := strings.Repeat("  ", int(n.GetDepth())+1)
		if n.GetLayer() == 0 {
			fmt.Fprintf(e.stdout, "%s· %s  %s\n", indent, n.GetTitle(), n.GetId())
			continue
		}
		gone := ""
		if n.GetGone() > 0 {
			gone = fmt.Sprintf(", %d forgotten", n.GetGone())
		}
		fmt.Fprintf(e.stdout, "%s▸ %s  [layer %d, %d items%s]\n", indent, n.GetTitle(), n.GetLayer(), n.GetChildren(), gone)
	}
	fmt.Fprintf(e.stdout, "\n%s\n", treeSummary(st))
	if depth > 0 {
		fmt.Fprintf(e.stdout, "(%d levels shown; --depth 0 shows everything)\n", depth)
	}
}

// cmdConsolidate writes the summary branches pending changes complete.
func cmdConsolidate(e *env, args []string) error {
	fs, asJSON := e.flags("consolidate", "")
	force := fs.Bool("force", false, "also close partial groups, so every memory hangs under a branch")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.ConsolidateResponse, error) {
		return c.Consolidate(e.ctx, &ihmtv1.ConsolidateRequest{Force: *force})
	}, func(resp *ihmtv1.ConsolidateResponse) error {
		fmt.Fprintf(e.stdout, "%d branches written. %s\n", resp.GetWritten(), treeSummary(resp.GetStats()))
		if !*force && resp.GetStats().GetPending() > 0 {
			fmt.Fprintln(e.stdout, "Memories not under a branch wait for a full group; --force closes partial groups too.")
		}
		return nil
	})
}

// treeSummary is one line of tree counts.
func treeSummary(st *ihmtv1.TreeStats) string {
	if !st.GetReady() {
		return "Tree: still catching up with the store."
	}
	return fmt.Sprintf("Tree: %d memories, %d branches over %d layers, %d items at the root, %d memories not yet under a branch.",
		st.GetLeaves(), st.GetBranches(), st.GetLayers(), st.GetRootItems(), st.GetPending())
}

func cmdRebuild(e *env, args []string) error {
	fs, asJSON := e.flags("rebuild", "")
	if err := noArgs(fs, args); err != nil {
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

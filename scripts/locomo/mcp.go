package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// The end-to-end system (-mcp): every turn saved through a real ihmt-mcp
// into a real ihmtd on a fresh store, every question asked through the MCP
// tool search_memory, and scored on what the agent receives. A found
// answer gives its results; an ambiguous one its results, else the
// candidates it offers to choose from; a not_found answer gives nothing,
// because the tool tells the agent that its near misses are not an answer.
// The in-process store figure counts the ranking whatever the verdict.

// mcpAgent is the MCP client name the turns are saved and asked under.
const mcpAgent = "locomo"

// buildMCP returns the end-to-end system's builder over the programs in
// bins: one daemon and one shim (one session) per conversation, as the
// in-process store saves a conversation in one session.
func buildMCP(bins testenv.Binaries) func(context.Context, conversation) (asker, error) {
	return func(ctx context.Context, c conversation) (asker, error) {
		dir, err := os.MkdirTemp("", "ihmt-locomo-mcp-*")
		if err != nil {
			return nil, err
		}
		live, err := testenv.StartLive(ctx, bins, filepath.Join(dir, "store"), filepath.Join(dir, "work"))
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		a := &mcpAsker{ctx: ctx, live: live, dir: dir, dia: map[string][]string{}}
		if a.shim, err = live.Shim(ctx, "", mcpAgent); err != nil {
			a.close()
			return nil, err
		}
		for _, t := range c.Turns {
			var r struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			}
			if err := a.shim.Call(ctx, "save_memory", map[string]any{"content": t.Memory(), "scope": "global"}, &r); err != nil {
				a.close()
				return nil, fmt.Errorf("save %s: %w", t.DiaID, err)
			}
			a.dia[r.ID] = append(a.dia[r.ID], t.DiaID)
		}
		return a, nil
	}
}

type mcpAsker struct {
	ctx         context.Context
	live        *testenv.Live
	shim        *testenv.LiveShim
	dir         string
	dia         map[string][]string // memory id → dialog ids
	lastVerdict string
}

func (a *mcpAsker) ask(q string) (ranking, error) {
	var res struct {
		Status  string `json:"status"`
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
		Candidates []struct {
			ID string `json:"id"`
		} `json:"candidates"`
	}
	if err := a.shim.Call(a.ctx, "search_memory", map[string]any{"query": q, "limit": ks[len(ks)-1]}, &res); err != nil {
		a.lastVerdict = "error"
		return nil, err
	}
	a.lastVerdict = res.Status
	var ids []string
	for _, r := range res.Results {
		ids = append(ids, r.ID)
	}
	if len(ids) == 0 && res.Status == "ambiguous" {
		for _, c := range res.Candidates {
			ids = append(ids, c.ID)
		}
	}
	r := make(ranking, 0, len(ids))
	for _, id := range ids {
		r = append(r, a.dia[id])
	}
	return r, nil
}

func (a *mcpAsker) verdict() string { return a.lastVerdict }

func (a *mcpAsker) close() error {
	err := a.live.Stop()
	if rerr := os.RemoveAll(a.dir); err == nil {
		err = rerr
	}
	return err
}

// buildBinaries builds ihmtd and ihmt-mcp (and ihmt) into a temporary
// directory that cleanup removes.
func buildBinaries() (testenv.Binaries, func(), error) {
	dir, err := os.MkdirTemp("", "ihmt-locomo-bin")
	if err != nil {
		return testenv.Binaries{}, nil, err
	}
	bins, err := testenv.Build(dir)
	if err != nil {
		os.RemoveAll(dir)
		return testenv.Binaries{}, nil, err
	}
	return bins, func() { os.RemoveAll(dir) }, nil
}

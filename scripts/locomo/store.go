package main

import (
	"context"
	"fmt"
	"os"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

var caller = store.Caller{Agent: leaf.Agent{Name: "locomo"}, Session: "s"}

// buildStore saves every turn, in order, into a fresh store in a temporary
// directory that close removes.
func buildStore(ctx context.Context, c conversation) (asker, error) {
	dir, err := os.MkdirTemp("", "ihmt-locomo-*")
	if err != nil {
		return nil, err
	}
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	a := &storeAsker{s: s, dir: dir, dia: map[string][]string{}}
	for _, t := range c.Turns {
		res, err := s.Save(ctx, store.SaveInput{Caller: caller, Content: t.Memory(), Scope: store.ScopeGlobal})
		if err != nil {
			a.close()
			return nil, fmt.Errorf("save %s: %w", t.DiaID, err)
		}
		a.dia[res.Leaf.ID] = append(a.dia[res.Leaf.ID], t.DiaID)
	}
	return a, nil
}

type storeAsker struct {
	s           *store.Store
	dir         string
	dia         map[string][]string // leaf id → dialog ids
	lastVerdict string
}

func (a *storeAsker) ask(q string) (ranking, error) {
	res, err := a.s.Evaluate(store.SearchInput{Caller: caller, Query: q, Limit: ks[len(ks)-1]}, store.EvalOptions{})
	if err != nil {
		a.lastVerdict = "error"
		return nil, err
	}
	a.lastVerdict = verdictName(res.Verdict)
	// Ambiguous and near-miss answers still rank their hits: use them.
	r := make(ranking, 0, len(res.Ranked))
	for _, h := range res.Ranked {
		r = append(r, a.dia[h.Leaf.ID])
	}
	return r, nil
}

func (a *storeAsker) verdict() string { return a.lastVerdict }

func (a *storeAsker) close() error {
	err := a.s.Close()
	if rerr := os.RemoveAll(a.dir); err == nil {
		err = rerr
	}
	return err
}

func verdictName(v store.Verdict) string {
	switch v {
	case store.Found:
		return "found"
	case store.Ambiguous:
		return "ambiguous"
	case store.NotFound:
		return "not_found"
	}
	return fmt.Sprintf("verdict %d", v)
}

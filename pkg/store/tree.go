package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// The summary tree (pkg/tree) lives in <store>/tree. It is derived data, like
// the index: built from the live leaves, repaired or rebuilt from them at
// any time, and never needed for a search to be right.
//
// It is kept off the save path. The writer only queues what changed
// (treeOps, under s.mu); one goroutine, treeLoop, owns the tree's mutations:
// it applies the queue, describes the new leaves and writes the branches
// (Consolidate), so a save costs the same at a thousand memories or a
// million. Searches score through the index (see score for why) and read
// the tree only to name where each answer sits, and only when it is free
// (TryRLock): a search never waits for a consolidation.
const treeDir = "tree"

// treeOp is one change for the tree: a leaf that became live (add) or
// stopped being live.
type treeOp struct {
	l   *leaf.Leaf
	add bool
}

// treeReq asks treeLoop for a consolidation and waits for it.
type treeReq struct {
	force bool
	purge string // a purged leaf to take out of the tree's files, after the queue is applied
	done  chan treeResp
}

type treeResp struct {
	written int
	purged  tree.PurgeStats
	err     error
}

// TreeStats counts what the tree holds.
type TreeStats struct {
	tree.Stats
	// Ready is false until the tree has caught up with the store after a
	// start; until then searches score through the index alone.
	Ready bool
}

// noteTree queues a leaf's new state for the tree. Callers hold s.mu.
func (s *Store) noteTree(l *leaf.Leaf) {
	if !s.treeTracking {
		return // Open: treeLoop starts from every live leaf
	}
	s.treeOps = append(s.treeOps, treeOp{l: l, add: l.Live()})
	select {
	case s.treeKick <- struct{}{}:
	default: // a kick is already pending; it will see this op too
	}
}

// treeItem is what the tree knows of a leaf, without its text.
func treeItem(l *leaf.Leaf) tree.Item {
	return tree.Item{ID: l.ID, Group: l.Part(), Title: l.Title, Tags: l.Tags}
}

// describedItem is treeItem with the text the tree describes a new leaf
// by, read from its file when s.docs no longer holds it (an unreadable one
// is logged and described by its title and tags alone).
func (s *Store) describedItem(l *leaf.Leaf) tree.Item {
	it := treeItem(l)
	it.Text = s.shown(l).Text
	return it
}

// treeLoop owns the tree: it opens it, catches it up with the live leaves,
// then consolidates whenever the writer queues changes or a person asks.
func (s *Store) treeLoop() {
	t, err := tree.Open(filepath.Join(s.dir, treeDir), tree.Options{})
	if err != nil {
		// Searches never needed the tree; say so and keep serving.
		s.log.Error("the summary tree cannot be opened; searches score every memory through the index instead (ihmt rebuild recreates it)", "err", err)
		s.serveTreeRequests(fmt.Errorf("the summary tree is unavailable: %w (run ihmt rebuild)", err))
		return
	}
	for _, r := range t.Repairs() {
		s.log.Warn("summary tree repaired", "what", r)
	}
	s.catchUpTree(t)
	var settled <-chan time.Time // armed while changes wait for treeSettle
	last := time.Now()
	for {
		select {
		case <-s.closing:
			return // what is still queued is caught up by the next start's Reconcile
		case <-s.treeKick:
			if settled == nil {
				settled = time.After(treeSettle - time.Since(last))
			}
		case <-settled:
			settled = nil
			if _, err := s.consolidate(t, false); err != nil {
				s.log.Error("summary tree consolidation failed; it is retried at the next change", "err", err)
			}
			last = time.Now()
		case r := <-s.treeReqs:
			n, err := s.consolidate(t, r.force)
			var ps tree.PurgeStats
			if r.purge != "" {
				ps, err = s.purgeTree(t, r.purge)
			}
			r.done <- treeResp{written: n, purged: ps, err: err}
			last = time.Now()
		}
	}
}

// treeSettle is the least time between two consolidations the writer's
// changes start. Each one also rewrites the root and appends to the tree's
// catalog, a cost of its own beside the branches it writes; while saves
// flow, the changes of a moment are taken in together instead of one
// writer batch at a time. The tree only names where answers sit (searches
// find every leaf through the index meanwhile), and a person's request
// (Consolidate, Flush) is served at once.
const treeSettle = 200 * time.Millisecond

// catchUpTree brings the tree just opened up to date with the live leaves
// and makes it the store's, for searches to name where answers sit. From
// then on the writer queues every change for it (noteTree).
func (s *Store) catchUpTree(t *tree.Tree) {
	start := time.Now()
	s.mu.Lock()
	var live []*leaf.Leaf
	for _, l := range s.docs {
		if l.Live() {
			live = append(live, l)
		}
	}
	s.treeOps = nil // live reflects them
	s.treeTracking = true
	s.mu.Unlock()

	s.treeMu.Lock()
	written, err := s.syncTree(t, live)
	s.tree = t
	s.noteTreeStats(t)
	s.treeMu.Unlock()
	if err != nil {
		s.log.Error("summary tree consolidation failed; it is retried at the next change", "err", err)
	}
	s.purgeLeftovers(t)
	st := t.Stats()
	s.log.Info("summary tree ready", "leaves", st.Leaves, "branches", st.Branches, "layers", st.Layers,
		"root_items", st.Root, "branches_written", written, "took", time.Since(start).Round(time.Millisecond))
}

// syncTree makes the tree hold exactly the live leaves: a deterministic
// rebuild, in save order, of a new or deleted tree, else a reconcile and a
// consolidation. It returns the branch files written. Callers hold
// s.treeMu.
func (s *Store) syncTree(t *tree.Tree, live []*leaf.Leaf) (written int, err error) {
	// Texts are read only for the leaves the tree must describe: every
	// one for a rebuild, else the few it lacks.
	st := t.Stats()
	rebuild := st.Leaves == 0 && st.Branches == 0
	items := make([]tree.Item, len(live))
	for i, l := range live {
		if rebuild || !t.Holds(l.ID) {
			items[i] = s.describedItem(l)
		} else {
			items[i] = treeItem(l)
		}
	}
	switch {
	case rebuild && len(items) == 0:
		return 0, nil // nothing to build: write nothing until the first memory
	case rebuild:
		err = t.Rebuild(items)
		return t.Stats().Branches, err
	}
	added, removed, err := t.Reconcile(items)
	if err != nil {
		return 0, err
	}
	if added+removed > 0 {
		s.log.Info("summary tree caught up with the store", "added", added, "removed", removed)
	}
	return t.Consolidate(false)
}

// serveTreeRequests answers consolidation requests with err until Close.
func (s *Store) serveTreeRequests(err error) {
	for {
		select {
		case <-s.closing:
			return
		case <-s.treeKick:
		case r := <-s.treeReqs:
			r.done <- treeResp{err: err}
		}
	}
}

// consolidate applies the queued changes and writes the branches they
// complete (with force, every partial group's too).
func (s *Store) consolidate(t *tree.Tree, force bool) (int, error) {
	s.mu.Lock()
	ops := s.treeOps
	s.treeOps = nil
	s.mu.Unlock()
	s.treeMu.Lock()
	defer s.treeMu.Unlock()
	for _, op := range ops {
		if !op.add {
			t.Remove(op.l.ID)
			continue
		}
		it := treeItem(op.l)
		if !t.Holds(op.l.ID) {
			it = s.describedItem(op.l) // new to the tree: it describes it
		}
		if err := t.Add(it); err != nil {
			return 0, fmt.Errorf("add %s to the summary tree: %w", op.l.ID, err)
		}
	}
	n, err := t.Consolidate(force)
	s.noteTreeStats(t)
	if err != nil {
		return n, fmt.Errorf("consolidate the summary tree: %w", err)
	}
	return n, nil
}

// Consolidate applies every change to the tree now and writes the branches
// it completes; with force it also closes every partial group, so the
// whole memory hangs under branches. It returns the branch files written.
func (s *Store) Consolidate(ctx context.Context, force bool) (int, TreeStats, error) {
	r := treeReq{force: force, done: make(chan treeResp, 1)}
	select {
	case s.treeReqs <- r:
	case <-s.closing:
		return 0, TreeStats{}, ErrClosed
	case <-ctx.Done():
		return 0, TreeStats{}, ctx.Err()
	}
	select {
	case resp := <-r.done:
		return resp.written, s.TreeStats(), resp.err
	case <-ctx.Done():
		return 0, TreeStats{}, fmt.Errorf("%w (the consolidation may still complete)", ctx.Err())
	}
}

// TreeStats counts what the tree held after its last change; Ready is
// false until it has caught up with the store after a start.
func (s *Store) TreeStats() TreeStats {
	st := s.treeStats.Load()
	if st == nil {
		return TreeStats{}
	}
	return TreeStats{Stats: *st, Ready: true}
}

// noteTreeStats records what t holds for TreeStats. Callers hold
// s.treeMu.
func (s *Store) noteTreeStats(t *tree.Tree) {
	st := t.Stats()
	s.treeStats.Store(&st)
}

// Outline lists the tree as `ihmt tree` prints it, limited to depth levels
// (≤ 0: all) and to the groups the caller may see under scope.
func (s *Store) Outline(c Caller, scope SearchScope, depth int) ([]tree.Line, TreeStats, error) {
	if err := validateCaller(c); err != nil {
		return nil, TreeStats{}, err
	}
	if err := s.recordReadAll(c, scope, "tree"); err != nil {
		return nil, TreeStats{}, err
	}
	s.mu.RLock()
	vis, _, err := s.visible(c, scope)
	var visibleGroup func(string) bool
	if err == nil {
		// A copy, so the outline is not read under s.mu.
		groups := make(map[string]index.Group, len(s.groups))
		for p, g := range s.groups {
			groups[p] = g
		}
		visibleGroup = groupVisibility(groups, vis)
	}
	s.mu.RUnlock()
	if err != nil {
		return nil, TreeStats{}, err
	}
	s.treeMu.RLock()
	defer s.treeMu.RUnlock()
	if s.tree == nil {
		return nil, TreeStats{}, nil
	}
	var out []tree.Line
	skipping := false
	for _, l := range s.tree.Outline(depth) {
		if l.Depth == 0 {
			skipping = !visibleGroup(l.Group)
		}
		if !skipping {
			out = append(out, l)
		}
	}
	return out, TreeStats{Stats: s.tree.Stats(), Ready: true}, nil
}

// groupVisibility turns an index visibility into one over tree groups,
// given the store's project → index group map (s.groups, or a copy).
func groupVisibility(groups map[string]index.Group, vis func(index.Group) bool) func(string) bool {
	return func(g string) bool {
		project, global := leaf.PartProject(g)
		if global {
			return vis(0)
		}
		ig, ok := groups[project]
		return ok && vis(ig)
	}
}

// dropTree removes the tree's files, for a rebuild.
func dropTree(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, treeDir)); err != nil {
		return fmt.Errorf("remove the summary tree: %w", err)
	}
	return nil
}

// purgeTree takes a purged leaf's words out of the tree's files.
func (s *Store) purgeTree(t *tree.Tree, id string) (tree.PurgeStats, error) {
	s.treeMu.Lock()
	defer s.treeMu.Unlock()
	ps, err := t.Purge(id)
	s.noteTreeStats(t)
	if err != nil {
		return ps, fmt.Errorf("remove %s from the summary tree: %w", id, err)
	}
	return ps, nil
}

// purgeLeftovers finishes the purges the tree missed (a crash after a
// purge was recorded, or a tree that was unavailable then): a purged leaf
// the tree still mentions is taken out of its files.
func (s *Store) purgeLeftovers(t *tree.Tree) {
	s.mu.RLock()
	var ids []string
	for _, l := range s.docs {
		if l.Status == leaf.StatusPurged {
			ids = append(ids, l.ID)
		}
	}
	s.mu.RUnlock()
	for _, id := range ids {
		if !t.Mentions(id) {
			continue
		}
		if _, err := s.purgeTree(t, id); err != nil {
			s.log.Error("a purged memory's words are still in the summary tree; ihmt rebuild removes them", "id", id, "err", err)
		}
	}
}

// treePurge asks treeLoop to take a purged leaf out of the tree's files and
// waits for it.
func (s *Store) treePurge(ctx context.Context, id string) (tree.PurgeStats, error) {
	r := treeReq{purge: id, done: make(chan treeResp, 1)}
	select {
	case s.treeReqs <- r:
	case <-s.closing:
		return tree.PurgeStats{}, ErrClosed
	case <-ctx.Done():
		return tree.PurgeStats{}, ctx.Err()
	}
	select {
	case resp := <-r.done:
		return resp.purged, resp.err
	case <-ctx.Done():
		return tree.PurgeStats{}, fmt.Errorf("%w (the tree is cleaned when the request completes, or at the next start)", ctx.Err())
	}
}

// maxTitles bounds s.titles, the titles of branches searches have named. A
// branch id is a hash of its children and a branch file never changes, so
// a title never goes stale; the tree itself keeps titles on disk (pkg/tree
// reads a branch file to name it), which would cost a file read per level
// of every answer's path.
const maxTitles = 1 << 16

// branchTitles returns the titles of the branches above a memory, root
// first. Callers hold s.treeMu for reading.
func (s *Store) branchTitles(t *tree.Tree, id string) []string {
	var out []string
	for _, b := range t.Path(id) {
		title, ok := s.titles.Get(b)
		if !ok {
			br, found := t.Branch(b)
			if !found {
				continue // damaged: the next consolidation repairs it
			}
			title = br.Title
			s.titles.Put(b, title)
		}
		out = append(out, title)
	}
	return out
}

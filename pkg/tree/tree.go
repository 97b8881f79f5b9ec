// Package tree groups the memory's leaves into summary branches, layer over
// layer under a root, keeps that structure as plain JSON files a person can
// browse, and searches by descending it without ever missing what an
// exhaustive search would have found.
//
// # Why a tree
//
// Three readers want three things. A person wants to browse: `ihmt tree`
// prints the outline (Outline), and the files under the tree's directory
// are indented JSON that reads like a table of contents. A search wants to
// read a few branches instead of every leaf: each branch embeds, for every
// child, a title, an excerpt, keywords and tags, so a level can be ranked
// without opening the children. And an agent asking "do I know X?" needs
// "not found" to be honest: a descent prunes, so after it a guarantee pass
// (MaxScore over the query terms' posting lists) scores every leaf that
// could still beat the k-th result, and the top-k returned equals the top-k
// of an exhaustive BM25 (see Search).
//
// # Shape
//
// Leaves are consolidated per group (one domain and scope, e.g.
// "global|software.go"). Whenever BranchFactor parentless items of one group
// and one layer exist, a branch is written over them, in arrival order; the
// branch joins its group's queue one layer up, and the same rule applies
// there. Consolidate(true) also closes partial queues of two or more items.
// Items never mix groups or layers, so a branch's layer is 1 + its
// children's layer and depth grows as log(BranchFactor) of a group's size.
// The root lists every parentless item, leaves and branches, so nothing
// stored is ever unreachable.
//
// # Files
//
//	<dir>/branches/<layer>/<id>.json  one Branch, written once, never changed
//	<dir>/catalog.json                the structure (every branch's layer, group and children), removed leaves, rarity counts
//	<dir>/catalog.log                 appended changes since catalog.json
//	<dir>/root.json                   every parentless item: a leaf with its summary, a branch by title
//
// A branch id is a hash of its children's ids, so a branch's file is
// content-addressed and immutable, and rebuilding from the same items in the
// same order writes the same files. The catalog is the commit point: a
// consolidation makes its branch files durable first and only then records
// them, so a crash in between leaves at worst an orphan branch file, which
// Open deletes (its children are still parentless and are consolidated
// again). Anything Open finds inconsistent or unreadable is repaired the
// same way — dropped and re-derived, never trusted — and listed by Repairs.
//
// The catalog grows with the store, so rewriting it per consolidation would
// make each consolidation cost O(store). Changes are appended to
// catalog.log instead (one fsynced line per Consolidate call) and folded
// into catalog.json once the log outgrows it: amortised O(1) per change.
//
// # What is in memory, what is read when needed
//
// The daemon opens the whole store at start, so the tree must be cheap to
// open and to hold. A branch's file is mostly its children's summaries
// (titles, excerpts, keywords, tags), and only a search's descent, Outline
// and Branch need them, so the tree holds the structure alone: every
// branch's id, layer, group and children's ids in order, each item's
// parent, the removed leaves, and the root's items with their summaries.
// That structure is exactly what catalog.json and its log record, so Open
// reads the catalog, lists the branch files, reads root.json and the files
// of the root's branches (the descent ranks their summaries first, and the
// next consolidation embeds them), and no other branch file: a small
// fraction of the time and memory reading every file would take
// (BenchmarkOpen100k measures both).
//
// A branch's summaries are read from its file when a descent opens it,
// tokenized, and kept in a cache bounded in bytes (Options.CacheBytes),
// least recently used out first; with the default, the branches every
// search passes through stay cached and a descent reads few files beyond
// the branches no earlier search opened. Outline reads the file of every
// branch it lists the children of (it is a person's command; depth 2 costs
// the root's branches, everything costs every file). The root keeps its items' summaries: there
// are at most a few per group and layer between consolidations.
//
// Open therefore checks the structure — the catalog against itself (a
// branch's id is the hash of its children's, layers and groups agree, no
// item has two parents) and against the files present — but not the
// content of a file it does not read. A file damaged in place is found
// when it is first read: a search skips it (the guarantee still finds its
// leaves), Outline lists its children untitled, Branch reports it missing,
// and the next Consolidate drops it with the branches above it, as Open
// would have. Its leaves' summaries were only in that file, so those leaves
// are left out of the tree until the next Reconcile describes them again.
//
// The default summarizer's rarity counts the keywords of every leaf; those
// counts are kept in the catalog too (each consolidation logs the keywords
// of the leaves it files in branches), so Open reads them instead of every
// leaf's summary.
//
// # What the tree does not know
//
// The tree keeps no leaf text and no index. Leaves it has not been told
// about (a crash between a save and the next Consolidate, a forgotten
// leaf's Remove not yet persisted, a damaged branch's leaves) are caught up
// by Reconcile, which the owner calls with the live leaves after Open; it
// describes only the leaves the tree does not hold, so after a clean
// shutdown it costs a map lookup a leaf. Search does not depend on the tree
// being complete: the guarantee pass walks the caller's own posting lists.
//
// A Tree is not safe for concurrent mutation: the caller serialises Add,
// Remove, Reconcile, Consolidate and Rebuild and guards reads (Search,
// Outline, Path, Stats) against them, as the store does with its writer
// and RWMutex. Any number of reads may run at once.
package tree

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// DefaultBranchFactor is the number of items a branch gathers.
const DefaultBranchFactor = 8

// Limits on what Open accepts from disk: more layers than this would need
// BranchFactor^64 leaves, and a branch with more children than this was not
// written by a sane configuration.
const (
	maxLayer     = 64
	maxChildren  = 4096
	maxBranchLen = 16 << 20
)

// ErrBadID is returned by Add for an id that is not a leaf id (16 hex
// digits, see leaf.IsID).
var ErrBadID = errors.New("tree: not a leaf id")

// Item is a leaf as the tree sees it.
type Item struct {
	ID    string   // the leaf's id: 16 hex digits
	Group string   // consolidation group: one domain and scope, e.g. "global|software.go"
	Title string   // short title (first words, a heading, a func name); may be empty
	Text  string   // full text, for the summarizer: read only for a leaf the tree does not hold yet, never kept
	Tags  []string // the leaf's tags
}

// ChildSummary is what a branch (or the root) embeds about one child: enough
// to rank it among its siblings without opening it.
//
// Keywords are terms as tokenize emits them (lower-case, folded, stemmed)
// and are matched as they are; Title, Excerpt and Tags are tokenized when
// ranked.
type ChildSummary struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Excerpt  string   `json:"excerpt,omitempty"`
	Keywords []string `json:"keywords,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

// Branch is a summary branch: a titled group of children of one group. It
// is written once to branches/<Layer>/<ID>.json and never changed; a child
// removed later is recorded in the catalog, not here. The tree keeps
// branches on disk and reads them when needed (see the package comment).
type Branch struct {
	ID       string         `json:"id"`    // "b" + 16 hex digits, a hash of the children's ids
	Layer    int            `json:"layer"` // 1 + the children's layer; leaves are layer 0
	Group    string         `json:"group"`
	Title    string         `json:"title"`
	Keywords []string       `json:"keywords,omitempty"`
	Children []ChildSummary `json:"children"`
	Created  time.Time      `json:"created"`
}

// Summarizer names branches and describes leaves. Implementations must be
// deterministic for Rebuild to be.
type Summarizer interface {
	// Summarize returns a branch's title and keywords from its children.
	Summarize(group string, children []ChildSummary) (title string, keywords []string)
	// Describe returns what a parent embeds about a leaf.
	Describe(it Item) ChildSummary
}

// Options configure a Tree. The zero value is the default.
type Options struct {
	// BranchFactor is the number of items a branch gathers (default 8,
	// at least 2). Changing it later affects only new branches.
	BranchFactor int
	// Summarizer names branches (default Extractive).
	Summarizer Summarizer
	// Now stamps new branches (default time.Now).
	Now func() time.Time
	// CacheBytes bounds the memory of the branch summaries searches keep
	// tokenized (default 16 MiB: every branch above the first layer of a
	// large tree and some of the first; negative: none, every descent
	// reads its branches' files).
	CacheBytes int64
}

// defaultCacheBytes is Options.CacheBytes' default: about as small as a
// cache gets while a descent still reads from their files little more than
// the branches no earlier query opened (BenchmarkSearch100k reports the
// files read; each costs JSON decoding and tokenizing the summaries).
const defaultCacheBytes = 16 << 20

// Tree is the memory's summary tree. See the package comment for the rules
// of use.
type Tree struct {
	dir string
	bf  int
	sum Summarizer
	now func() time.Time

	branches map[uint64]*node      // every committed branch by number (see ids.go): the structure, not the summaries
	parent   map[uint64]uint64     // filed leaf's number → its branch's (a branch's parent is in its node)
	gone     map[string]bool       // parented leaves since removed
	root     map[string]*rootEntry // every parentless item
	queues   map[queueKey]*queue   // parentless items per group and layer, in arrival order
	ready    map[queueKey]bool     // queues holding at least bf live items
	seq      uint64                // arrival counter
	rootIdx  rootIndex

	// kwDF counts, for each term, the leaves that have it among their
	// keywords; kwN counts the leaves. They make the default summarizer's
	// rarity. They cover every leaf the catalog has filed in a branch
	// (removed or not: rarity is an estimate, and it only steers summaries)
	// and every parentless leaf; the catalog keeps the first part, so Open
	// gets them without reading a branch.
	kwDF termCounts
	kwN  int

	ops        map[string]bool // leaves removed (true) or brought back (false) since the last catalog write
	deferIndex bool            // Rebuild: index the root once it is built, not every leaf on its way through
	rootDirty  bool            // root.json lags the root
	repairs    []string

	cat     catalogFile
	bag     bagCache
	damaged damageLog // branches a read found damaged, for the next Consolidate

	// Test knobs. crash, when set, is called after the branch files of a
	// consolidation are durable and before the catalog records them; an
	// error return simulates a crash there. rewriteCatalog rewrites
	// catalog.json on every change instead of appending to the log (to
	// measure what the log saves).
	crash          func() error
	rewriteCatalog bool
	compactAt      int64 // the log size that triggers a fold (0: compactMin)
}

// rootEntry is one parentless item: a pending leaf or a top branch.
type rootEntry struct {
	sum     ChildSummary
	group   string
	layer   int
	seq     uint64
	inRoot  bool
	indexed bool    // in the root index (Rebuild indexes only what stays in the root)
	dl      float32 // weighted length of the summary's fields, for BM25
	json    []byte  // the entry as root.json renders it, once rendered
}

// queueKey names a queue: one group's parentless items of one layer.
type queueKey struct {
	group string
	layer int
}

// queue is a group's parentless items of one layer in arrival order. Items
// that left the root stay in items until the next compaction; live counts
// those still there.
type queue struct {
	items []*rootEntry
	live  int
}

// Open loads (or creates) the tree under dir: the catalog, root.json, the
// names of the branch files and the files of the root's branches, not the
// other branch files (see the package comment). Files that are unreadable
// or inconsistent are never trusted: an orphan or invalid branch is
// deleted and its children become parentless again, a damaged catalog
// entry is dropped, and each repair is listed by Repairs. Open fails only
// when the directory itself cannot be read or written.
func Open(dir string, opts Options) (*Tree, error) {
	t := newTree(dir, opts)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open tree: %w", err)
	}
	if err := t.load(); err != nil {
		return nil, fmt.Errorf("open tree %s: %w", dir, err)
	}
	return t, nil
}

// newTree returns an empty tree with opts' defaults filled in.
func newTree(dir string, opts Options) *Tree {
	t := &Tree{dir: dir, bf: opts.BranchFactor, sum: opts.Summarizer, now: opts.Now}
	if t.bf == 0 {
		t.bf = DefaultBranchFactor
	}
	t.bf = min(max(t.bf, 2), maxChildren)
	if t.sum == nil {
		t.sum = Extractive{Rarity: t.rarity}
	}
	if t.now == nil {
		t.now = time.Now
	}
	switch {
	case opts.CacheBytes == 0:
		t.bag.limit = defaultCacheBytes
	case opts.CacheBytes > 0:
		t.bag.limit = opts.CacheBytes
	}
	t.reset()
	return t
}

// reset empties the in-memory state.
func (t *Tree) reset() {
	t.branches = make(map[uint64]*node)
	t.parent = make(map[uint64]uint64)
	t.gone = make(map[string]bool)
	t.root = make(map[string]*rootEntry)
	t.queues = make(map[queueKey]*queue)
	t.ready = make(map[queueKey]bool)
	t.ops = make(map[string]bool)
	t.rootIdx = rootIndex{post: make(map[string][]rootPost)}
	t.seq = 0
	t.kwDF.reset()
	t.kwN = 0
	t.bag.clear()
	t.damaged.take()
}

// Repairs lists what Open found wrong and repaired, one line each, and
// then what later Consolidate calls repaired (damaged branch files a read
// found).
func (t *Tree) Repairs() []string { return slices.Clone(t.repairs) }

// Add records a new parentless leaf. It costs O(len(it.Text)) for the
// summarizer, independent of the store's size, and writes nothing:
// Consolidate persists it. Adding a leaf the tree already holds does
// nothing, except that a removed leaf comes back in its old branch.
func (t *Tree) Add(it Item) error {
	if !leaf.IsID(it.ID) {
		return fmt.Errorf("add %q: %w", it.ID, ErrBadID)
	}
	if t.filed(it.ID) {
		if t.gone[it.ID] {
			delete(t.gone, it.ID)
			t.ops[it.ID] = false
		}
		return nil
	}
	if _, ok := t.root[it.ID]; ok {
		return nil
	}
	s := t.sum.Describe(it)
	s.ID = it.ID
	t.countKeywords(s, 1)
	t.push(&rootEntry{sum: s, group: it.Group, layer: 0})
	return nil
}

// countKeywords counts a leaf's keywords into the rarity table (n = 1), or
// takes them out (n = -1).
func (t *Tree) countKeywords(s ChildSummary, n int32) {
	t.kwN += int(n)
	for _, k := range s.Keywords {
		t.kwDF.add(k, n)
	}
}

// committedKeywords returns the rarity counts the catalog holds: those of
// every leaf filed in a branch, that is the tree's own without the
// parentless leaves'.
func (t *Tree) committedKeywords() (map[string]int32, int) {
	df := t.kwDF.toMap()
	n := t.kwN
	for _, e := range t.root {
		if e.layer == 0 {
			n--
			for _, k := range e.sum.Keywords {
				if df[k]--; df[k] <= 0 {
					delete(df, k)
				}
			}
		}
	}
	return df, n
}

// rarity is an inverse document frequency over the leaves' keywords.
func (t *Tree) rarity(term string) float64 {
	return math.Log(1 + float64(t.kwN+1)/float64(t.kwDF.get(term)+1))
}

// push makes e a parentless item at the end of its queue.
func (t *Tree) push(e *rootEntry) {
	t.seq++
	e.seq = t.seq
	e.inRoot = true
	t.root[e.sum.ID] = e
	if !t.deferIndex {
		t.rootIdx.add(e)
	}
	k := queueKey{e.group, e.layer}
	q := t.queues[k]
	if q == nil {
		q = &queue{}
		t.queues[k] = q
	}
	q.items = append(q.items, e)
	q.live++
	if q.live >= t.bf {
		t.ready[k] = true
	}
	t.rootDirty = true
}

// unroot takes e out of the root (it got a parent, or was removed).
func (t *Tree) unroot(e *rootEntry) {
	e.inRoot = false
	delete(t.root, e.sum.ID)
	if e.indexed {
		t.rootIdx.remove(e)
	}
	k := queueKey{e.group, e.layer}
	if q := t.queues[k]; q != nil {
		q.live--
		if q.live < t.bf {
			delete(t.ready, k)
		}
		if q.live == 0 {
			delete(t.queues, k)
		} else if len(q.items) > 2*q.live+8 {
			q.items = slices.DeleteFunc(q.items, func(e *rootEntry) bool { return !e.inRoot })
		}
	}
	t.rootDirty = true
}

// Remove records that a leaf left the store (forgotten, rejected) and
// reports whether the tree held it live. A parentless leaf simply leaves
// the root. A leaf inside a branch is marked gone in the catalog: the
// branch keeps its entry (branch files are immutable, so a removal costs
// one catalog line rather than rewriting every branch up to the root),
// and Search and Outline skip it. Its words may linger in the summaries
// above it until Rebuild, which affects where a descent looks, never what a
// search returns.
func (t *Tree) Remove(id string) bool {
	if !leaf.IsID(id) {
		return false
	}
	if e, ok := t.root[id]; ok {
		// A parentless leaf leaves the rarity counts too: the catalog never
		// filed it, so after a restart it would not be counted either.
		t.countKeywords(e.sum, -1)
		t.unroot(e)
		return true
	}
	if !t.filed(id) || t.gone[id] {
		return false
	}
	t.gone[id] = true
	t.ops[id] = true
	return true
}

// Reconcile makes the tree hold exactly the given live leaves: it adds the
// ones it does not know (or knows as removed) and removes the ones not in
// items. Call it after Open with every live leaf, so that whatever a crash
// kept from the tree's files is caught up; it costs O(store) map lookups,
// describes only the leaves it adds (their Text is not read otherwise), and
// writes nothing until Consolidate.
func (t *Tree) Reconcile(items []Item) (added, removed int, err error) {
	live := make(map[uint64]bool, len(items)) // by leaf number; a bad id is Add's error
	for _, it := range items {
		if v, ok := leafNum(it.ID); ok {
			live[v] = true
		}
		if t.holds(it.ID) {
			continue
		}
		if err := t.Add(it); err != nil {
			return added, removed, err
		}
		added++
	}
	var drop []string
	for id := range t.root {
		if v, ok := leafNum(id); ok && !live[v] {
			drop = append(drop, id)
		}
	}
	for v := range t.parent {
		if !live[v] {
			if id := leafString(v); !t.gone[id] {
				drop = append(drop, id)
			}
		}
	}
	for _, id := range drop {
		if t.Remove(id) {
			removed++
		}
	}
	return added, removed, nil
}

// Holds reports whether the tree holds leaf id live: a caller that keeps
// leaf texts elsewhere reads them only for the items Reconcile must add.
func (t *Tree) Holds(id string) bool { return t.holds(id) }

// holds reports whether the tree holds leaf id live.
func (t *Tree) holds(id string) bool {
	if _, ok := t.root[id]; ok {
		return true
	}
	return t.filed(id) && !t.gone[id]
}

// Consolidate writes a branch over every BranchFactor parentless items of
// one group and layer, layer over layer, and with force also closes every
// partial queue of two or more items. It returns the number of branch files
// written. It touches only queues that are full (or, with force, every
// queue), and writes in one batch: the branch files, made durable, then one
// catalog change (a line appended to catalog.log), then root.json if the
// root changed. Running it again with nothing new writes nothing.
//
// An error before the catalog commit changes nothing in memory, so a later
// call retries; branch files already written are either orphans Open will
// delete or identical to what the retry writes. An error after it (writing
// root.json, folding the log) leaves the new branches in place and the
// failed write pending for the next call.
//
// First, Consolidate drops the branches whose files reads found damaged
// since the last call (see the package comment) and rewrites the catalog
// whole; that repair changes memory before the catalog, and if the
// rewrite fails the next call's commit rewrites it.
func (t *Tree) Consolidate(force bool) (written int, err error) {
	if err := t.repairDamaged(); err != nil {
		return 0, fmt.Errorf("consolidate: %w", err)
	}
	plan := t.plan(force)
	if len(plan) == 0 && len(t.ops) == 0 && !t.rootDirty && !t.cat.broken {
		return 0, nil
	}
	if err := t.writeBranches(plan); err != nil {
		return 0, fmt.Errorf("consolidate: %w", err)
	}
	if t.crash != nil {
		if err := t.crash(); err != nil {
			return 0, err
		}
	}
	if len(plan) > 0 || len(t.ops) > 0 || t.cat.broken {
		rec := catalogRecord{}
		for _, p := range plan {
			rec.Branches = append(rec.Branches, p.entry())
			if p.b.Layer == 1 {
				// The leaves this branch files: their keywords join the
				// catalog's rarity counts.
				for _, c := range p.b.Children {
					rec.Leaves++
					for _, k := range c.Keywords {
						if rec.Keywords == nil {
							rec.Keywords = make(map[string]int32)
						}
						rec.Keywords[k]++
					}
				}
			}
		}
		for id, g := range t.ops {
			if g {
				rec.Gone = append(rec.Gone, id)
			} else {
				rec.Back = append(rec.Back, id)
			}
		}
		slices.Sort(rec.Gone)
		slices.Sort(rec.Back)
		if err := t.commit(rec); err != nil {
			return 0, fmt.Errorf("consolidate: %w", err)
		}
	}
	t.apply(plan)
	clear(t.ops)
	if err := t.writeRoot(); err != nil {
		return len(plan), fmt.Errorf("consolidate: %w", err)
	}
	if err := t.maybeCompact(); err != nil {
		return len(plan), fmt.Errorf("consolidate: %w", err)
	}
	return len(plan), nil
}

// writeBranches writes the files of planned branches in one durable batch.
func (t *Tree) writeBranches(plan []planned) error {
	if len(plan) == 0 {
		return nil
	}
	files := make([]atomicfile.File, len(plan))
	for i, p := range plan {
		data, err := encodeJSON(p.b)
		if err != nil {
			return err
		}
		files[i] = atomicfile.File{Path: t.branchPath(p.b.Layer, p.b.ID), Data: data}
	}
	return atomicfile.WriteBatch(files, 0o600)
}

// planned is a branch Consolidate is about to write, with the root entry it
// becomes.
type planned struct {
	b    *Branch
	root *rootEntry
}

// entry is p as the catalog records it.
func (p planned) entry() branchEntry {
	e := branchEntry{ID: p.b.ID, Layer: p.b.Layer, Group: p.b.Group, Children: make([]string, len(p.b.Children))}
	for i, c := range p.b.Children {
		e.Children[i] = c.ID
	}
	return e
}

// plan decides which branches to write, without changing anything: full
// queues are cut into branches of bf items, in arrival order, layer by
// layer from the bottom (each new branch joins the queue one layer up, so
// a cascade completes in one call); with force, what is left of a queue is
// closed too when it holds two or more items.
func (t *Tree) plan(force bool) []planned {
	work := make(map[queueKey][]*rootEntry)
	get := func(k queueKey) []*rootEntry {
		if w, ok := work[k]; ok {
			return w
		}
		var w []*rootEntry
		if q := t.queues[k]; q != nil {
			w = make([]*rootEntry, 0, q.live)
			for _, e := range q.items {
				if e.inRoot {
					w = append(w, e)
				}
			}
		}
		work[k] = w
		return w
	}
	todo := make(map[int][]string) // layer → groups to look at
	minL, maxL := maxLayer+1, -1
	note := func(k queueKey) {
		todo[k.layer] = append(todo[k.layer], k.group)
		minL, maxL = min(minL, k.layer), max(maxL, k.layer)
	}
	for k := range t.ready {
		note(k)
	}
	if force {
		for k, q := range t.queues {
			if q.live >= 2 && !t.ready[k] {
				note(k)
			}
		}
	}
	var out []planned
	for layer := minL; layer <= maxL && layer < maxLayer; layer++ {
		groups := todo[layer]
		slices.Sort(groups)
		groups = slices.Compact(groups)
		for _, g := range groups {
			k := queueKey{g, layer}
			items := get(k)
			for len(items) >= t.bf || (force && len(items) >= 2) {
				n := min(len(items), t.bf)
				p := t.newBranch(g, layer+1, items[:n])
				out = append(out, p)
				items = items[n:]
				up := queueKey{g, layer + 1}
				work[up] = append(get(up), p.root)
				note(up)
			}
			work[k] = items
		}
	}
	return out
}

// newBranch summarizes children into a branch of the given layer.
func (t *Tree) newBranch(group string, layer int, children []*rootEntry) planned {
	b := &Branch{Layer: layer, Group: group, Created: t.now().UTC()}
	ids := make([]string, len(children))
	for i, e := range children {
		b.Children = append(b.Children, cloneSummary(e.sum))
		ids[i] = e.sum.ID
	}
	b.ID = branchID(ids)
	b.Title, b.Keywords = t.sum.Summarize(group, slices.Clone(b.Children))
	return planned{b: b, root: &rootEntry{sum: branchSummary(b), group: group, layer: layer}}
}

// apply makes a committed plan the in-memory state. Of each branch it keeps
// the structure; the summaries are in the file just written.
func (t *Tree) apply(plan []planned) {
	for _, p := range plan {
		e := p.entry()
		n := newNode(e.Layer, e.Group, e.Children)
		v, _ := branchNum(p.b.ID)
		for i, c := range e.Children {
			if n.leaf(i) {
				t.parent[n.kids[i]] = v
			} else if cn := t.branches[n.kids[i]]; cn != nil {
				cn.parent, cn.hasParent = v, true
			}
			if e := t.root[c]; e != nil {
				t.unroot(e)
			}
		}
		t.branches[v] = n
		t.push(p.root)
	}
}

// branchID is a branch's id: "b" and 16 hex digits of a hash of its
// children's ids in order.
func branchID(children []string) string {
	h := sha256.New()
	h.Write([]byte("ihmt-branch-v1\n"))
	for _, id := range children {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return "b" + hex.EncodeToString(h.Sum(nil)[:8])
}

// isBranchID reports whether s is shaped like a branch id.
func isBranchID(s string) bool {
	return len(s) == 17 && s[0] == 'b' && leaf.IsID(s[1:])
}

// branchSummary is what a parent embeds about branch b: its title and
// keywords, its children's commonest tags, and their titles as the excerpt.
func branchSummary(b *Branch) ChildSummary {
	s := ChildSummary{ID: b.ID, Title: b.Title, Keywords: slices.Clone(b.Keywords)}
	tags := make(map[string]int)
	var titles []string
	for _, c := range b.Children {
		for _, tg := range c.Tags {
			tags[tg]++
		}
		if c.Title != "" {
			titles = append(titles, c.Title)
		}
	}
	s.Tags = topKeys(tags, 5)
	s.Excerpt = clipText(strings.Join(titles, "; "), branchExcerptLen)
	return s
}

// cloneSummary copies s, slices included, so a branch never shares them.
func cloneSummary(s ChildSummary) ChildSummary {
	s.Keywords = slices.Clone(s.Keywords)
	s.Tags = slices.Clone(s.Tags)
	return s
}

// Rebuild discards every file the tree derived and rebuilds it from items,
// which should be every live leaf in the order it was saved: the result is
// then the tree incremental consolidation (without force) would have grown,
// and the same items in the same order always give the same branch ids and
// the same files (Branch.Created aside, which comes from Options.Now).
//
// Leaves are added and their branches written a few thousand at a time, so
// what Rebuild holds at once does not grow with the store. On error the
// tree holds the items added so far, some filed in branches whose files are
// durable, and a later Consolidate finishes the job (it writes the whole
// catalog); the items not yet added come back with Reconcile.
func (t *Tree) Rebuild(items []Item) error {
	// The catalog goes first: without it every branch left behind is an
	// orphan, so a crash half-way through is repaired by Open.
	for _, name := range []string{catalogLogName, catalogName, rootName} {
		if err := os.Remove(filepath.Join(t.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rebuild: %w", err)
		}
	}
	if err := os.RemoveAll(filepath.Join(t.dir, branchesDir)); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	if err := atomicfile.SyncDir(t.dir); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	t.reset()
	// Until the catalog is written at the end, a failure leaves the next
	// Consolidate to write it whole (writeCatalog clears broken).
	t.cat = catalogFile{broken: true}
	t.deferIndex = true
	defer func() {
		t.deferIndex = false
		// Every item passed through the root: a map never shrinks, and
		// the root is walked on every write of root.json.
		root := make(map[string]*rootEntry, len(t.root))
		for id, e := range t.root {
			root[id] = e
			if !e.indexed {
				t.rootIdx.add(e)
			}
		}
		t.root = root
	}()
	// Leaves are added and their branches written a slice at a time, so
	// the summaries held at once are a slice's, not the store's. Cutting
	// full queues as they fill gives the tree planning everything at once
	// would (branches are cut in arrival order, layer by layer).
	const slice = 4096
	for len(items) > 0 {
		n := min(len(items), slice)
		for _, it := range items[:n] {
			if err := t.Add(it); err != nil {
				return fmt.Errorf("rebuild: %w", err)
			}
		}
		items = items[n:]
		plan := t.plan(false)
		if err := t.writeBranches(plan); err != nil {
			return fmt.Errorf("rebuild: %w", err)
		}
		t.apply(plan)
	}
	if err := t.writeSnapshot(1); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	if err := t.writeRoot(); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	return nil
}

// Stats counts what the tree holds.
type Stats struct {
	Leaves   int // live leaves, parented or not
	Gone     int // removed leaves still listed by their branch
	Pending  int // parentless leaves
	Branches int
	Layers   int // the highest branch layer
	Root     int // parentless items
}

// Stats counts what the tree holds, in O(store), from memory.
func (t *Tree) Stats() Stats {
	s := Stats{Branches: len(t.branches), Gone: len(t.gone), Root: len(t.root)}
	s.Leaves = len(t.parent)
	for id := range t.gone {
		if t.filed(id) {
			s.Leaves--
		}
	}
	for id := range t.root {
		if leaf.IsID(id) {
			s.Pending++
			s.Leaves++
		}
	}
	for _, b := range t.branches {
		s.Layers = max(s.Layers, int(b.layer))
	}
	return s
}

// Branch returns branch id, read from its file; false when the tree holds
// no such branch or its file is damaged (the next Consolidate repairs it).
func (t *Tree) Branch(id string) (Branch, bool) {
	b, err := t.readBranch(id)
	if err != nil {
		return Branch{}, false
	}
	return *b, true
}

// Path returns the branch ids from the root down to item id (excluded):
// empty for a parentless item, nil for one the tree does not hold.
func (t *Tree) Path(id string) []string {
	if _, ok := t.root[id]; ok {
		return []string{}
	}
	p, ok := t.parentOf(id)
	if !ok {
		return nil
	}
	// The branches from the bottom up, spelled out top down in one
	// allocation.
	var up [maxLayer + 1]uint64
	depth := 0
	for {
		up[depth] = p
		depth++
		n := t.branches[p]
		if n == nil || !n.hasParent || depth == len(up) {
			break // the last: unreachable, Open rejects cycles
		}
		p = n.parent
	}
	var b strings.Builder
	b.Grow(17 * depth)
	for i := depth - 1; i >= 0; i-- {
		var buf [17]byte
		buf[0] = 'b'
		putHex(buf[1:], up[i])
		b.Write(buf[:])
	}
	all := b.String()
	path := make([]string, depth)
	for i := range path {
		path[i] = all[17*i : 17*(i+1)]
	}
	return path
}

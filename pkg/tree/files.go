package tree

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// File names under the tree's directory.
const (
	branchesDir    = "branches"
	catalogName    = "catalog.json"
	catalogLogName = "catalog.log"
	rootName       = "root.json"
)

// catalogVersion is written into catalog.json, rootVersion into root.json;
// Open treats any other version as unreadable and re-derives. (Version 1 of
// the catalog held child → parent links only, which left the rest of the
// structure to be read from every branch file.)
const (
	catalogVersion = 2
	rootVersion    = 1
)

// compactMin is the log size under which the catalog log is never folded
// into catalog.json: small logs are cheap to replay.
const compactMin = 256 << 10

// catalogSnapshot is catalog.json: the whole structure, so that Open need
// not read the branch files for it, and the rarity counts of the leaves
// filed in branches.
type catalogSnapshot struct {
	Version  int              `json:"version"`
	Gen      int              `json:"gen"`
	Leaves   int              `json:"leaves"` // leaves counted in Keywords
	Gone     []string         `json:"gone"`
	Branches []branchEntry    `json:"branches"`
	Keywords map[string]int32 `json:"keywords"` // term → leaves having it among their keywords
}

// branchEntry is a branch as the catalog records it: what Open and the
// tree's structure need, its summaries left in its file. Its id is the
// hash of Children, which lets Open check an entry without the file.
type branchEntry struct {
	ID       string   `json:"id"`
	Layer    int      `json:"layer"`
	Group    string   `json:"group"`
	Children []string `json:"children"`
}

// catalogRecord is one line of catalog.log: the changes of one Consolidate
// call. Gen ties it to the snapshot it extends, so lines a compaction folded
// in (and a crash left behind) are not applied twice to a newer snapshot.
type catalogRecord struct {
	Gen      int              `json:"gen"`
	Branches []branchEntry    `json:"branches,omitempty"`
	Gone     []string         `json:"gone,omitempty"`
	Back     []string         `json:"back,omitempty"`
	Leaves   int              `json:"leaves,omitempty"`
	Keywords map[string]int32 `json:"keywords,omitempty"`
}

// catalogFile is the state of the catalog on disk.
type catalogFile struct {
	gen       int
	snapSize  int64
	logSize   int64
	logExists bool
	broken    bool // the file lags memory (a failed append, a repair, Rebuild under way): the next commit rewrites the snapshot
}

// rootFile is root.json.
type rootFile struct {
	Version int        `json:"version"`
	Items   []rootItem `json:"items"`
}

// rootItem is one parentless item in root.json: its layer (0 for a leaf),
// group and title, and for a leaf the rest of its summary, which the tree
// keeps nowhere else (a branch's is in its file). root.json is rewritten
// whole whenever the root changes, so it holds no more than that: its
// size grows with the number of groups and layers, not with the store.
type rootItem struct {
	ID       string   `json:"id"`
	Layer    int      `json:"layer"`
	Group    string   `json:"group"`
	Title    string   `json:"title"`
	Excerpt  string   `json:"excerpt,omitempty"`
	Keywords []string `json:"keywords,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

// branchPath is where branch id of the given layer lives.
func (t *Tree) branchPath(layer int, id string) string {
	return filepath.Join(t.dir, branchesDir, strconv.Itoa(layer), id+".json")
}

// encodeJSON renders v as indented JSON for people to read, without
// escaping <, > and & (summaries of code are full of them).
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// commit makes a catalog change durable: one line appended to the log and
// fsynced, or, in rewrite mode or when the file lags memory, a new
// snapshot of memory with rec applied.
func (t *Tree) commit(rec catalogRecord) error {
	if t.rewriteCatalog || t.cat.broken {
		snap := t.snapshot()
		snap.Branches = append(snap.Branches, rec.Branches...)
		sortEntries(snap.Branches)
		gone := make(map[string]bool, len(snap.Gone)+len(rec.Gone))
		for _, id := range snap.Gone {
			gone[id] = true
		}
		for _, id := range rec.Gone {
			gone[id] = true
		}
		for _, id := range rec.Back {
			delete(gone, id)
		}
		snap.Gone = slices.Sorted(maps.Keys(gone))
		snap.Leaves += rec.Leaves
		for k, n := range rec.Keywords {
			snap.Keywords[k] += n
		}
		return t.writeCatalog(t.cat.gen+1, snap)
	}
	rec.Gen = t.cat.gen
	line, err := marshalCompact(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	path := filepath.Join(t.dir, catalogLogName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("catalog log: %w", err)
	}
	_, err = f.Write(line)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.cat.broken = true
		return fmt.Errorf("catalog log: %w", err)
	}
	if !t.cat.logExists {
		if err := atomicfile.SyncDir(t.dir); err != nil {
			t.cat.broken = true
			return err
		}
		t.cat.logExists = true
	}
	t.cat.logSize += int64(len(line))
	return nil
}

// maybeCompact folds the log into catalog.json once the log is larger than
// the snapshot: each change is then rewritten at most about once more, so
// the catalog's cost per change stays constant as the store grows.
func (t *Tree) maybeCompact() error {
	least := int64(compactMin)
	if t.compactAt > 0 {
		least = t.compactAt
	}
	if t.cat.logSize < max(t.cat.snapSize, least) {
		return nil
	}
	return t.writeSnapshot(t.cat.gen + 1)
}

// snapshot is the in-memory catalog as catalog.json records it.
func (t *Tree) snapshot() catalogSnapshot {
	snap := catalogSnapshot{Version: catalogVersion, Branches: make([]branchEntry, 0, len(t.branches))}
	for v, n := range t.branches {
		snap.Branches = append(snap.Branches, branchEntry{ID: branchString(v), Layer: int(n.layer), Group: n.group, Children: n.children()})
	}
	sortEntries(snap.Branches)
	snap.Gone = slices.Sorted(maps.Keys(t.gone))
	snap.Keywords, snap.Leaves = t.committedKeywords()
	return snap
}

// sortEntries orders branch entries as catalog.json lists them: by layer,
// then id, so the file reads (and Open checks it) bottom-up.
func sortEntries(es []branchEntry) {
	slices.SortFunc(es, func(a, b branchEntry) int {
		if a.Layer != b.Layer {
			return a.Layer - b.Layer
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// writeSnapshot writes the in-memory catalog as catalog.json of generation
// gen and drops the log it supersedes.
func (t *Tree) writeSnapshot(gen int) error {
	return t.writeCatalog(gen, t.snapshot())
}

// writeCatalog writes snap as catalog.json of generation gen, then drops the
// log it supersedes.
func (t *Tree) writeCatalog(gen int, snap catalogSnapshot) error {
	snap.Version, snap.Gen = catalogVersion, gen
	data, err := encodeCatalog(snap)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(t.dir, catalogName), data, 0o600); err != nil {
		t.cat.broken = true
		return err
	}
	// The new generation is durable; log lines of the old one are now
	// ignored, so removing the log can fail or be lost without harm.
	t.cat = catalogFile{gen: gen, snapSize: int64(len(data))}
	if err := os.Remove(filepath.Join(t.dir, catalogLogName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return atomicfile.SyncDir(t.dir)
}

// encodeCatalog renders catalog.json: JSON with a branch per line, which
// is half the size of indenting every child id and still reads line by
// line.
func encodeCatalog(snap catalogSnapshot) ([]byte, error) {
	var buf bytes.Buffer
	put := func(v any) error {
		data, err := marshalCompact(v)
		buf.Write(data)
		return err
	}
	fmt.Fprintf(&buf, "{\n  \"version\": %d,\n  \"gen\": %d,\n  \"leaves\": %d,\n  \"gone\": ", snap.Version, snap.Gen, snap.Leaves)
	if snap.Gone == nil {
		snap.Gone = []string{}
	}
	if err := put(snap.Gone); err != nil {
		return nil, err
	}
	buf.WriteString(",\n  \"branches\": [")
	for i, e := range snap.Branches {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		if err := put(e); err != nil {
			return nil, err
		}
	}
	if len(snap.Branches) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("],\n  \"keywords\": ")
	if snap.Keywords == nil {
		snap.Keywords = map[string]int32{}
	}
	if err := put(snap.Keywords); err != nil {
		return nil, err
	}
	buf.WriteString("\n}\n")
	return buf.Bytes(), nil
}

// marshalCompact is json.Marshal without escaping <, > and &.
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writeRoot rewrites root.json if the root changed since it was written.
func (t *Tree) writeRoot() error {
	if !t.rootDirty {
		return nil
	}
	data, err := t.encodeRoot()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(t.dir, rootName), data, 0o600); err != nil {
		return err
	}
	t.rootDirty = false
	return nil
}

// encodeRoot renders root.json: what encodeJSON(t.rootFile()) renders,
// byte for byte, but assembled from each entry's cached rendering, because
// it is rewritten after every save and re-encoding hundreds of entries
// each time would be most of a consolidation's cost.
func (t *Tree) encodeRoot() ([]byte, error) {
	es := t.rootOrder()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"version\": %d,\n  \"items\": [", rootVersion)
	if len(es) == 0 {
		buf.WriteString("]\n}\n")
		return buf.Bytes(), nil
	}
	buf.WriteString("\n")
	for i, e := range es {
		if e.json == nil {
			var one bytes.Buffer
			enc := json.NewEncoder(&one)
			enc.SetEscapeHTML(false)
			enc.SetIndent("    ", "  ")
			if err := enc.Encode(e.item()); err != nil {
				return nil, err
			}
			e.json = bytes.TrimSuffix(one.Bytes(), []byte("\n"))
		}
		buf.WriteString("    ")
		buf.Write(e.json)
		if i < len(es)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("  ]\n}\n")
	return buf.Bytes(), nil
}

// rootOrder returns the parentless items by group, then layer from the top
// down (a browsing person sees the big branches first), then arrival.
func (t *Tree) rootOrder() []*rootEntry {
	es := make([]*rootEntry, 0, len(t.root))
	for _, e := range t.root {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *rootEntry) int {
		if c := strings.Compare(a.group, b.group); c != 0 {
			return c
		}
		if a.layer != b.layer {
			return b.layer - a.layer
		}
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	return es
}

// rootFile is root.json's content (encodeRoot renders it).
func (t *Tree) rootFile() rootFile {
	f := rootFile{Version: rootVersion, Items: []rootItem{}}
	for _, e := range t.rootOrder() {
		f.Items = append(f.Items, e.item())
	}
	return f
}

// item is e as root.json lists it.
func (e *rootEntry) item() rootItem {
	s := e.sum
	it := rootItem{ID: s.ID, Layer: e.layer, Group: e.group, Title: s.Title}
	if e.layer == 0 {
		// A branch's summary is in its own file; a parentless leaf's is
		// nowhere else.
		it.Excerpt, it.Keywords, it.Tags = s.Excerpt, s.Keywords, s.Tags
	}
	return it
}

// load reads the tree's files, repairing what is inconsistent. See Open.
// It reads the catalog, root.json, the names of the branch files and the
// files of the root's branches; no other branch file.
func (t *Tree) load() error {
	entries, gone, catRepaired, err := t.loadCatalog()
	if err != nil {
		return err
	}
	rootItems, rootRaw, err := t.loadRoot()
	if err != nil {
		return err
	}
	files, err := t.listBranches()
	if err != nil {
		return err
	}
	if t.acceptBranches(entries, files) {
		catRepaired = true
	}
	if err := t.removeOrphans(files); err != nil {
		return err
	}
	read, dropped, err := t.readRootBranches()
	if err != nil {
		return err
	}
	if dropped {
		catRepaired = true
	}
	if t.keepGone(gone) {
		catRepaired = true
	}
	t.fillRoot(rootItems, read)
	t.kwDF.clip()
	return t.writeRepairs(catRepaired, rootRaw)
}

// catalogEntry is a branch the catalog records, by number.
type catalogEntry struct {
	v uint64
	n *node
}

// acceptBranches takes into the tree the catalog's branches that are
// sound. A branch counts only if its file is there, it is the only branch
// listing each of its children, and its child branches count (so,
// bottom-up, the whole subtree is sound). Anything else is dropped: its
// children are parentless again. It reports whether it dropped any.
func (t *Tree) acceptBranches(entries map[uint64]*node, files map[string][]int) (dropped bool) {
	order := make([]catalogEntry, 0, len(entries))
	leaves := 0
	for v, n := range entries {
		order = append(order, catalogEntry{v, n})
		if n.layer == 1 {
			leaves += len(n.kids)
		}
	}
	// Numbers order as the ids they spell.
	slices.SortFunc(order, func(a, b catalogEntry) int {
		if a.n.layer != b.n.layer {
			return int(a.n.layer - b.n.layer)
		}
		return cmp.Compare(a.v, b.v)
	})
	// The leaves' parents are most of what the tree holds: sized once.
	t.parent = make(map[uint64]uint64, leaves)
	for _, e := range order {
		id := branchString(e.v)
		if why := t.unsound(e.n, files[id]); why != "" {
			t.note("dropped branch %s from the catalog: %s", id, why)
			dropped = true
			continue
		}
		t.attach(e.v, e.n)
	}
	return dropped
}

// unsound says why branch n, whose file is found under the given layers,
// cannot join the tree as it stands, or "" if it can.
func (t *Tree) unsound(n *node, layers []int) string {
	if !slices.Contains(layers, int(n.layer)) {
		return "its file is missing"
	}
	top := int32(0)
	for i, c := range n.kids {
		if n.leaf(i) {
			if p, ok := t.parent[c]; ok {
				return fmt.Sprintf("its child %s is %s's", n.child(i), branchString(p))
			}
			continue
		}
		switch cn := t.branches[c]; {
		case cn == nil:
			return fmt.Sprintf("its child branch %s is missing or dropped", n.child(i))
		case cn.hasParent:
			return fmt.Sprintf("its child %s is %s's", n.child(i), branchString(cn.parent))
		case cn.group != n.group:
			return fmt.Sprintf("its child branch %s is of another group", n.child(i))
		default:
			top = max(top, cn.layer)
		}
	}
	if n.layer != top+1 {
		return "its layer disagrees with its children's"
	}
	return ""
}

// attach puts branch v in the tree as its children's parent.
func (t *Tree) attach(v uint64, n *node) {
	t.branches[v] = n
	for i, c := range n.kids {
		if n.leaf(i) {
			t.parent[c] = v
		} else {
			cn := t.branches[c]
			cn.parent, cn.hasParent = v, true
		}
	}
}

// removeOrphans deletes the branch files the tree does not account for:
// orphans of an interrupted consolidation, or strays, never trusted.
func (t *Tree) removeOrphans(files map[string][]int) error {
	for _, id := range slices.Sorted(maps.Keys(files)) {
		for _, layer := range files[id] {
			if _, n := t.node(id); n != nil && int(n.layer) == layer {
				continue
			}
			t.note("removed orphan branch (an interrupted consolidation) %s", filepath.Join(branchesDir, strconv.Itoa(layer), id+".json"))
			if err := removeFile(t.branchPath(layer, id)); err != nil {
				return err
			}
		}
	}
	return nil
}

// readRootBranches reads the files of the root's branches: their
// summaries, which the descent ranks first and the next consolidation
// embeds, come from there. A damaged one is dropped, and its child
// branches are root branches instead. It reports whether it dropped any.
func (t *Tree) readRootBranches() (read map[string]*Branch, dropped bool, err error) {
	var tops []string
	for v, n := range t.branches {
		if !n.hasParent {
			tops = append(tops, branchString(v))
		}
	}
	slices.Sort(tops)
	read = make(map[string]*Branch, len(tops))
	for len(tops) > 0 {
		id := tops[0]
		tops = tops[1:]
		_, n := t.node(id)
		b, err := t.loadBranch(id, n)
		if err == nil {
			read[id] = b
			continue
		}
		if !errors.Is(err, errDamaged) {
			return nil, false, err
		}
		t.note("dropped branch %s: %v", id, err)
		dropped = true
		rise, _ := t.drop([]string{id})
		tops = append(tops, rise...)
	}
	return read, dropped, nil
}

// keepGone keeps as the tree's forgotten leaves those of gone still filed
// in a branch. It reports whether it let any go.
func (t *Tree) keepGone(gone map[string]bool) (changed bool) {
	for id := range gone {
		if !t.filed(id) {
			delete(gone, id)
			changed = true
		}
	}
	t.gone = gone
	return changed
}

// fillRoot builds the root: parentless leaves from root.json (their
// summaries live nowhere else) and parentless branches, read, in
// root.json's order, which is arrival order within a group and layer;
// branches root.json does not list yet (a crash after the catalog, before
// root.json) follow by creation.
func (t *Tree) fillRoot(rootItems []rootItem, read map[string]*Branch) {
	listed := make(map[string]bool)
	for _, it := range rootItems {
		if listed[it.ID] {
			continue
		}
		if _, ok := t.parentOf(it.ID); ok {
			continue
		}
		if it.Layer == 0 && leaf.IsID(it.ID) {
			listed[it.ID] = true
			s := ChildSummary{ID: it.ID, Title: it.Title, Excerpt: it.Excerpt, Keywords: it.Keywords, Tags: it.Tags}
			t.countKeywords(s, 1)
			t.push(&rootEntry{sum: s, group: it.Group})
		} else if b := read[it.ID]; b != nil {
			listed[it.ID] = true
			t.push(&rootEntry{sum: branchSummary(b), group: b.Group, layer: b.Layer})
		}
	}
	var rest []*Branch
	for id, b := range read {
		if !listed[id] {
			rest = append(rest, b)
		}
	}
	slices.SortFunc(rest, func(a, b *Branch) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, b := range rest {
		t.push(&rootEntry{sum: branchSummary(b), group: b.Group, layer: b.Layer})
	}
}

// writeRepairs writes back what load repaired: a new catalog snapshot if
// catRepaired, and root.json if it differs from rootRaw, as read.
func (t *Tree) writeRepairs(catRepaired bool, rootRaw []byte) error {
	if catRepaired {
		if err := t.writeSnapshot(t.cat.gen + 1); err != nil {
			return err
		}
	}
	want, err := t.encodeRoot()
	if err != nil {
		return err
	}
	t.rootDirty = !bytes.Equal(want, rootRaw)
	return t.writeRoot()
}

// errDamaged marks a branch file that cannot be trusted: missing,
// unreadable as a branch, or disagreeing with the catalog. Other read
// errors (out of file descriptors, say) say nothing about the file.
var errDamaged = errors.New("damaged branch file")

// readBranch reads committed branch id from its file. A damaged file is
// noted for the next Consolidate to repair; the caller treats the branch
// as unreadable. Safe for concurrent readers.
func (t *Tree) readBranch(id string) (*Branch, error) {
	_, n := t.node(id)
	if n == nil {
		return nil, fmt.Errorf("no branch %s", id)
	}
	b, err := t.loadBranch(id, n)
	if errors.Is(err, errDamaged) {
		t.damaged.note(id, err.Error())
	}
	return b, err
}

// loadBranch reads branch id's file and checks it against n, the catalog's
// record of it: same id, layer, group, and children in the same order.
// Children's ids are not checked further: the catalog's were, and a
// branch's id is their hash.
func (t *Tree) loadBranch(id string, n *node) (*Branch, error) {
	damaged := func(why string) error { return fmt.Errorf("%w %s: %s", errDamaged, id, why) }
	data, err := readSmall(t.branchPath(int(n.layer), id), maxBranchLen)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, damaged("too large")
	case err != nil && !transient(err):
		return nil, damaged(err.Error())
	case err != nil:
		return nil, err
	case data == nil:
		return nil, damaged("missing")
	}
	var b Branch
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, damaged("not a branch: " + err.Error())
	}
	if b.ID != id || b.Layer != int(n.layer) || b.Group != n.group || len(b.Children) != len(n.kids) {
		return nil, damaged("disagrees with the catalog")
	}
	for i, c := range b.Children {
		if !n.isChild(i, c.ID) {
			return nil, damaged("disagrees with the catalog")
		}
	}
	return &b, nil
}

// transient reports whether a read error is the process's condition rather
// than the file's.
func transient(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOMEM) || errors.Is(err, syscall.EINTR)
}

// drop takes committed branches out of the tree with every branch above
// them (a branch file is immutable, so a parent cannot stop naming a
// child): their child branches not dropped become parentless (returned in
// rise, for the caller to put in the root or drop in turn) and their
// leaves are forgotten until Reconcile adds them back (counted in lost:
// their summaries were only in the dropped files). Memory is updated
// whole before any file is touched; the files are then deleted as far as
// possible — one left behind is an orphan the catalog does not list, which
// Open deletes. The catalog must be rewritten whole: the caller sees to
// that.
func (t *Tree) drop(ids []string) (rise []string, lost int) {
	doomed := make(map[uint64]bool) // branch numbers
	for _, id := range ids {
		for v, n := t.node(id); n != nil && !doomed[v]; v, n = n.parent, t.branches[n.parent] {
			doomed[v] = true
			if !n.hasParent {
				break
			}
		}
	}
	var paths []string
	for _, v := range slices.Sorted(maps.Keys(doomed)) { // numbers order as their ids
		id, n := branchString(v), t.branches[v]
		delete(t.branches, v)
		if e := t.root[id]; e != nil {
			t.unroot(e)
		}
		t.bag.remove(id)
		for i, c := range n.kids {
			switch {
			case !n.leaf(i) && doomed[c]:
			case !n.leaf(i):
				if cn := t.branches[c]; cn != nil {
					cn.parent, cn.hasParent = 0, false
				}
				rise = append(rise, branchString(c))
			default:
				delete(t.parent, c)
				lf := leafString(c)
				if !t.gone[lf] {
					lost++
				}
				delete(t.gone, lf)
				delete(t.ops, lf)
			}
		}
		paths = append(paths, t.branchPath(int(n.layer), id))
	}
	for _, p := range paths {
		if err := removeFile(p); err != nil {
			t.note("could not remove %s (the next Open will): %v", p, err)
		}
	}
	return rise, lost
}

// repairDamaged drops the branches reads found damaged since the last
// call, as Open drops what it finds damaged: the branch and those above
// it go, their other child branches return to the root, their leaves
// return with the next Reconcile. Unlike the rest of Consolidate it
// changes memory before the catalog: if rewriting the catalog fails, the
// next commit rewrites it whole.
func (t *Tree) repairDamaged() error {
	bad := t.damaged.take()
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(bad)) {
		_, n := t.node(id)
		if n == nil {
			continue // already dropped, or rebuilt
		}
		// Read again: a file restored since is not damage.
		if _, err := t.loadBranch(id, n); errors.Is(err, errDamaged) {
			t.note("dropped branch %s: %v", id, err)
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	t.cat.broken = true
	lost := 0
	for len(ids) > 0 {
		rise, n := t.drop(ids)
		lost += n
		ids = ids[:0]
		for _, id := range rise {
			// A branch rising to the root needs its summary, from its
			// file; one that cannot be read now, for whatever reason,
			// goes too (its leaves come back with Reconcile).
			_, n := t.node(id)
			b, err := t.loadBranch(id, n)
			if err != nil {
				t.note("dropped branch %s: %v", id, err)
				ids = append(ids, id)
				continue
			}
			t.push(&rootEntry{sum: branchSummary(b), group: n.group, layer: int(n.layer)})
		}
	}
	if lost > 0 {
		t.note("%d leaves of dropped branches wait for Reconcile", lost)
	}
	return t.writeSnapshot(t.cat.gen + 1)
}

// damageLog collects the branches reads found damaged. Reads run
// concurrently under the caller's read lock, so it has its own mutex.
type damageLog struct {
	mu sync.Mutex
	m  map[string]string
}

func (d *damageLog) note(id, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = make(map[string]string)
	}
	d.m[id] = why
}

// take returns what was noted and forgets it.
func (d *damageLog) take() map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.m
	d.m = nil
	return m
}

// note records a repair for Repairs.
func (t *Tree) note(format string, args ...any) {
	t.repairs = append(t.repairs, fmt.Sprintf(format, args...))
}

// removeFile removes path; a file already gone is not an error.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// errTooLarge is readSmall's refusal of an oversized file.
var errTooLarge = errors.New("file too large")

// readSmall reads a file, refusing one larger than limit (errTooLarge). A
// missing file reads as nil.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read into a buffer of the file's size (and a byte, to see the end),
	// not through a bytes.Buffer: that wants 512 bytes of room before each
	// read, so it reallocated every file to more than twice its size — and
	// the tree keeps what it reads.
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() < limit {
		size = fi.Size() + 1
	}
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err != nil && err != io.EOF {
			return nil, err
		}
		if int64(len(data)) > limit {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return data, nil
		}
	}
}

// maxCatalogLen bounds catalog.json and catalog.log: some 50 bytes an item,
// so room for tens of millions of items.
const maxCatalogLen = 1 << 30

// loadCatalog reads catalog.json and replays catalog.log into the
// structure they record, unchecked but for each entry's own shape (Open
// checks the rest). Malformed entries are dropped; a damaged snapshot
// counts as empty (every branch file then reads as an orphan and is
// re-derived); the log is replayed up to its first damaged line. repaired
// says the snapshot must be rewritten.
func (t *Tree) loadCatalog() (entries map[uint64]*node, gone map[string]bool, repaired bool, err error) {
	c := &catalogReader{t: t, entries: make(map[uint64]*node), gone: make(map[string]bool), groups: make(interner)}
	if err := c.readSnapshot(); err != nil {
		return nil, nil, false, err
	}
	if err := c.replayLog(); err != nil {
		return nil, nil, false, err
	}
	return c.entries, c.gone, c.repaired, nil
}

// catalogReader gathers what catalog.json and catalog.log record, for
// loadCatalog.
type catalogReader struct {
	t        *Tree
	entries  map[uint64]*node
	gone     map[string]bool
	groups   interner
	repaired bool
}

// readSnapshot reads catalog.json; a damaged one counts as empty.
func (c *catalogReader) readSnapshot() error {
	t := c.t
	data, err := readSmall(filepath.Join(t.dir, catalogName), maxCatalogLen)
	if err != nil && !errors.Is(err, errTooLarge) {
		return err
	}
	if len(data) == 0 && err == nil {
		return nil
	}
	var snap catalogSnapshot
	if err != nil || json.Unmarshal(data, &snap) != nil || snap.Version != catalogVersion || snap.Gen < 0 {
		t.note("catalog.json unreadable: starting from an empty catalog")
		c.repaired = true
		return nil
	}
	t.cat.gen, t.cat.snapSize = snap.Gen, int64(len(data))
	c.add("catalog.json", snap.Branches)
	for _, id := range snap.Gone {
		c.gone[id] = true
	}
	c.count(snap.Leaves, snap.Keywords)
	return nil
}

// replayLog applies the lines of catalog.log that extend the snapshot read,
// up to the first damaged one.
func (c *catalogReader) replayLog() error {
	t := c.t
	f, err := os.Open(filepath.Join(t.dir, catalogLogName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	t.cat.logExists = true
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		t.cat.logSize += int64(len(line))
		var rec catalogRecord
		if err == io.EOF || t.cat.logSize > maxCatalogLen || json.Unmarshal(line, &rec) != nil {
			// A torn last line is what a crash mid-append leaves: that
			// consolidation never committed. Anything after a damaged
			// line is not trusted either.
			t.note("catalog.log damaged at line %d: ignoring it and what follows", n)
			c.repaired = true
			return nil
		}
		if rec.Gen != t.cat.gen {
			continue // folded into a newer snapshot already
		}
		c.add(fmt.Sprintf("catalog.log line %d", n), rec.Branches)
		for _, id := range rec.Gone {
			c.gone[id] = true
		}
		for _, id := range rec.Back {
			delete(c.gone, id)
		}
		c.count(rec.Leaves, rec.Keywords)
	}
}

// add records the well-formed entries of es, read from where; of two
// records of one branch the first counts.
func (c *catalogReader) add(where string, es []branchEntry) {
	for _, e := range es {
		if why := checkEntry(e); why != "" {
			c.t.note("%s: dropped malformed branch %q: %s", where, e.ID, why)
			c.repaired = true
			continue
		}
		v, _ := branchNum(e.ID)
		if n := c.entries[v]; n != nil {
			if int(n.layer) != e.Layer || n.group != e.Group {
				c.t.note("%s: dropped a second, different record of branch %s", where, e.ID)
				c.repaired = true
			}
			continue
		}
		c.entries[v] = newNode(e.Layer, c.groups.str(e.Group), e.Children)
	}
}

// count adds the rarity counts of leaves filed in branches.
func (c *catalogReader) count(leaves int, kw map[string]int32) {
	t := c.t
	t.kwN += max(leaves, 0)
	t.kwDF.reserve(len(kw))
	for k, n := range kw {
		if n > 0 && k != "" {
			t.kwDF.add(k, n)
		}
	}
}

// checkEntry checks a catalog entry on its own: ids shaped as ids, children
// distinct and not the branch itself, the id the hash of the children, a
// sane layer and number of children. It returns why not, or "".
func checkEntry(e branchEntry) string {
	if !isBranchID(e.ID) {
		return "bad id"
	}
	if e.Layer < 1 || e.Layer > maxLayer {
		return "bad layer"
	}
	if len(e.Children) == 0 || len(e.Children) > maxChildren {
		return "bad number of children"
	}
	for i, c := range e.Children {
		if (!leaf.IsID(c) && !isBranchID(c)) || c == e.ID {
			return "bad child id"
		}
		// Quadratic, but over a branch's few children: cheaper than a
		// set per entry, for every entry Open reads.
		if i < 64 && slices.Contains(e.Children[:i], c) {
			return "bad child id"
		}
	}
	if len(e.Children) > 64 {
		seen := make(map[string]bool, len(e.Children))
		for _, c := range e.Children {
			if seen[c] {
				return "bad child id"
			}
			seen[c] = true
		}
	}
	if branchID(e.Children) != e.ID {
		return "id does not match its children"
	}
	return ""
}

// maxRootLen bounds root.json.
const maxRootLen = 256 << 20

// loadRoot reads root.json. Only its leaves' summaries and its order are
// used; a damaged file loses those leaves until Reconcile adds them back.
func (t *Tree) loadRoot() ([]rootItem, []byte, error) {
	data, err := readSmall(filepath.Join(t.dir, rootName), maxRootLen)
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, nil, err
	}
	if len(data) == 0 && err == nil {
		return nil, nil, nil
	}
	var f rootFile
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != rootVersion {
		t.note("root.json unreadable: its parentless leaves must be added again")
		return nil, nil, nil
	}
	items := f.Items[:0]
	for _, it := range f.Items {
		if (it.Layer == 0 && leaf.IsID(it.ID)) || (it.Layer > 0 && isBranchID(it.ID)) {
			items = append(items, it)
		}
	}
	return items, data, nil
}

// listBranches lists the branch files by id, with the layers each is
// found under, without reading them. Leftovers of an interrupted atomic
// write are deleted; names that are not branch files are noted and left
// alone.
func (t *Tree) listBranches() (map[string][]int, error) {
	out := make(map[string][]int)
	root := filepath.Join(t.dir, branchesDir)
	layers, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, ld := range layers {
		layer, err := strconv.Atoi(ld.Name())
		if err != nil || !ld.IsDir() || layer < 1 || layer > maxLayer || strconv.Itoa(layer) != ld.Name() {
			t.note("ignored unexpected %s", filepath.Join(branchesDir, ld.Name()))
			continue
		}
		dir := filepath.Join(root, ld.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, fe := range files {
			name := fe.Name()
			if strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp") {
				if err := removeFile(filepath.Join(dir, name)); err != nil {
					return nil, err
				}
				continue
			}
			id, ok := strings.CutSuffix(name, ".json")
			if !ok || !isBranchID(id) || !fe.Type().IsRegular() {
				t.note("ignored unexpected %s", filepath.Join(branchesDir, ld.Name(), name))
				continue
			}
			out[id] = append(out[id], layer)
		}
	}
	return out, nil
}

// interner shares equal strings: the catalog names a group once per
// branch, and there are few groups.
type interner map[string]string

func (in interner) str(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

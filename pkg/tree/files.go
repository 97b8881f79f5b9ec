package tree

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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

// fileVersion is written into catalog.json and root.json; Open treats any
// other version as unreadable and re-derives.
const fileVersion = 1

// compactMin is the log size under which the catalog log is never folded
// into catalog.json: small logs are cheap to replay.
const compactMin = 256 << 10

// catalogSnapshot is catalog.json.
type catalogSnapshot struct {
	Version int               `json:"version"`
	Gen     int               `json:"gen"`
	Parents map[string]string `json:"parents"`
	Gone    []string          `json:"gone,omitempty"`
}

// catalogRecord is one line of catalog.log: the changes of one Consolidate
// call. Gen ties it to the snapshot it extends, so lines a compaction folded
// in (and a crash left behind) are not applied twice to a newer snapshot.
type catalogRecord struct {
	Gen     int               `json:"gen"`
	Parents map[string]string `json:"parents,omitempty"`
	Gone    []string          `json:"gone,omitempty"`
	Back    []string          `json:"back,omitempty"`
}

// catalogFile is the state of the catalog on disk.
type catalogFile struct {
	gen       int
	snapSize  int64
	logSize   int64
	logExists bool
	broken    bool // an append failed: the log's tail is suspect, so the next commit rewrites the snapshot
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
// fsynced, or, in rewrite mode or after a failed append, a new snapshot.
func (t *Tree) commit(rec catalogRecord) error {
	if t.rewriteCatalog || t.cat.broken {
		parents := make(map[string]string, len(t.parent)+len(rec.Parents))
		for k, v := range t.parent {
			parents[k] = v
		}
		for k, v := range rec.Parents {
			parents[k] = v
		}
		gone := make(map[string]bool, len(t.gone)+len(rec.Gone))
		for k := range t.gone {
			gone[k] = true
		}
		for _, id := range rec.Gone {
			gone[id] = true
		}
		for _, id := range rec.Back {
			delete(gone, id)
		}
		return t.writeCatalog(t.cat.gen+1, parents, gone)
	}
	rec.Gen = t.cat.gen
	line, err := json.Marshal(rec)
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

// writeSnapshot writes the in-memory catalog as catalog.json of generation
// gen and drops the log it supersedes.
func (t *Tree) writeSnapshot(gen int) error {
	return t.writeCatalog(gen, t.parent, t.gone)
}

// writeCatalog writes catalog.json of generation gen from parents and gone,
// then drops the log it supersedes.
func (t *Tree) writeCatalog(gen int, parents map[string]string, gone map[string]bool) error {
	snap := catalogSnapshot{Version: fileVersion, Gen: gen, Parents: parents}
	for id := range gone {
		snap.Gone = append(snap.Gone, id)
	}
	slices.Sort(snap.Gone)
	if snap.Parents == nil {
		snap.Parents = map[string]string{}
	}
	data, err := encodeJSON(snap)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(t.dir, catalogName), data, 0o600); err != nil {
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
	fmt.Fprintf(&buf, "{\n  \"version\": %d,\n  \"items\": [", fileVersion)
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
	f := rootFile{Version: fileVersion, Items: []rootItem{}}
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
func (t *Tree) load() error {
	parents, gone, catRepaired, err := t.loadCatalog()
	if err != nil {
		return err
	}
	rootItems, rootRaw, err := t.loadRoot()
	if err != nil {
		return err
	}
	branches, err := t.loadBranches()
	if err != nil {
		return err
	}

	// A branch counts only if the catalog points every child at it and its
	// children count (so, bottom-up, the whole subtree is sound). Anything
	// else is an orphan of an interrupted consolidation, or damage: delete
	// it, and its children are parentless again.
	byLayer := make(map[int][]*Branch)
	for _, b := range branches {
		byLayer[b.Layer] = append(byLayer[b.Layer], b)
	}
	for layer := 1; layer <= maxLayer; layer++ {
		bs := byLayer[layer]
		slices.SortFunc(bs, func(a, b *Branch) int { return strings.Compare(a.ID, b.ID) })
		for _, b := range bs {
			ok, pointed := t.sound(b, parents)
			if ok {
				t.branches[b.ID] = b
				continue
			}
			why := "inconsistent branch"
			if !pointed {
				why = "orphan branch (an interrupted consolidation)"
			}
			t.note("removed %s %s", why, b.ID)
			if err := removeFile(t.branchPath(b.Layer, b.ID)); err != nil {
				return err
			}
		}
	}
	dropped := 0
	for c, p := range parents {
		if b := t.branches[p]; b == nil || (isBranchID(c) && t.branches[c] == nil) {
			delete(parents, c)
			dropped++
		}
	}
	if dropped > 0 {
		t.note("dropped %d catalog entries pointing at missing or unsound branches", dropped)
		catRepaired = true
	}
	for id := range gone {
		if _, ok := parents[id]; !ok || !leaf.IsID(id) {
			delete(gone, id)
			catRepaired = true
		}
	}
	t.parent, t.gone = parents, gone
	for _, b := range t.branches {
		for _, c := range b.Children {
			if leaf.IsID(c.ID) {
				t.countKeywords(c)
			}
		}
	}

	// The root: parentless leaves from root.json (their summaries live
	// nowhere else) and parentless branches, in root.json's order, which
	// is arrival order within a group and layer; branches root.json does
	// not list yet (a crash after the catalog, before root.json) follow by
	// creation.
	listed := make(map[string]bool)
	for _, it := range rootItems {
		if listed[it.ID] {
			continue
		}
		if _, ok := parents[it.ID]; ok {
			continue
		}
		if it.Layer == 0 && leaf.IsID(it.ID) {
			listed[it.ID] = true
			s := ChildSummary{ID: it.ID, Title: it.Title, Excerpt: it.Excerpt, Keywords: it.Keywords, Tags: it.Tags}
			t.countKeywords(s)
			t.push(&rootEntry{sum: s, group: it.Group})
		} else if b := t.branches[it.ID]; b != nil {
			listed[it.ID] = true
			t.push(&rootEntry{sum: branchSummary(b), group: b.Group, layer: b.Layer})
		}
	}
	var rest []*Branch
	for id, b := range t.branches {
		if _, ok := parents[id]; !ok && !listed[id] {
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

// sound reports whether b is a committed branch given the catalog and the
// branches already accepted below it, and whether any catalog entry points
// at it at all.
func (t *Tree) sound(b *Branch, parents map[string]string) (ok, pointed bool) {
	ok = true
	top := 0
	for _, c := range b.Children {
		if parents[c.ID] == b.ID {
			pointed = true
		} else {
			ok = false
		}
		if isBranchID(c.ID) {
			cb := t.branches[c.ID]
			if cb == nil || cb.Group != b.Group {
				ok = false
				continue
			}
			top = max(top, cb.Layer)
		}
	}
	return ok && b.Layer == top+1, pointed
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
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// maxCatalogLen bounds catalog.json and catalog.log: some 50 bytes an item,
// so room for tens of millions of items.
const maxCatalogLen = 1 << 30

// loadCatalog reads catalog.json and replays catalog.log. Entries that are
// not shaped like ids are dropped; a damaged snapshot counts as empty (every
// branch then reads as an orphan and is re-derived); the log is replayed up
// to its first damaged line. repaired says the snapshot must be rewritten.
func (t *Tree) loadCatalog() (parents map[string]string, gone map[string]bool, repaired bool, err error) {
	parents = make(map[string]string)
	gone = make(map[string]bool)
	snapPath := filepath.Join(t.dir, catalogName)
	data, err := readSmall(snapPath, maxCatalogLen)
	if err != nil && !errors.Is(err, errTooLarge) {
		return nil, nil, false, err
	}
	if len(data) > 0 || err != nil {
		var snap catalogSnapshot
		if err != nil || json.Unmarshal(data, &snap) != nil || snap.Version != fileVersion || snap.Gen < 0 {
			t.note("catalog.json unreadable: starting from an empty catalog")
			repaired = true
		} else {
			t.cat.gen, t.cat.snapSize = snap.Gen, int64(len(data))
			for c, p := range snap.Parents {
				if (leaf.IsID(c) || isBranchID(c)) && isBranchID(p) {
					parents[c] = p
				} else {
					t.note("catalog.json: dropped malformed entry %q → %q", c, p)
					repaired = true
				}
			}
			for _, id := range snap.Gone {
				gone[id] = true
			}
		}
	}

	logPath := filepath.Join(t.dir, catalogLogName)
	f, err := os.Open(logPath)
	if errors.Is(err, os.ErrNotExist) {
		return parents, gone, repaired, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	t.cat.logExists = true
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			return nil, nil, false, err
		}
		t.cat.logSize += int64(len(line))
		var rec catalogRecord
		if err == io.EOF || t.cat.logSize > maxCatalogLen || json.Unmarshal(line, &rec) != nil {
			// A torn last line is what a crash mid-append leaves: that
			// consolidation never committed. Anything after a damaged
			// line is not trusted either.
			t.note("catalog.log damaged at line %d: ignoring it and what follows", n)
			repaired = true
			break
		}
		if rec.Gen != t.cat.gen {
			continue // folded into a newer snapshot already
		}
		for c, p := range rec.Parents {
			if (leaf.IsID(c) || isBranchID(c)) && isBranchID(p) {
				parents[c] = p
			} else {
				t.note("catalog.log line %d: dropped malformed entry %q → %q", n, c, p)
				repaired = true
			}
		}
		for _, id := range rec.Gone {
			gone[id] = true
		}
		for _, id := range rec.Back {
			delete(gone, id)
		}
	}
	return parents, gone, repaired, nil
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
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != fileVersion {
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

// loadBranches reads every branch file that is well formed on its own:
// named by its id under its layer, id matching its children, children
// distinct and shaped like ids. Malformed ones are deleted; leftovers of an
// interrupted atomic write too.
func (t *Tree) loadBranches() (map[string]*Branch, error) {
	out := make(map[string]*Branch)
	root := filepath.Join(t.dir, branchesDir)
	layers, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	dup := make(map[string]bool)
	in := make(interner)
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
			path := filepath.Join(dir, name)
			if strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp") {
				if err := removeFile(path); err != nil {
					return nil, err
				}
				continue
			}
			id, ok := strings.CutSuffix(name, ".json")
			if !ok || !isBranchID(id) || !fe.Type().IsRegular() {
				t.note("ignored unexpected %s", filepath.Join(branchesDir, ld.Name(), name))
				continue
			}
			b, why := readBranch(path, id, layer)
			if b != nil && out[id] != nil {
				b, why = nil, "listed under two layers"
				dup[id] = true
			}
			if b == nil {
				t.note("removed unreadable branch %s: %s", filepath.Join(branchesDir, ld.Name(), name), why)
				if err := removeFile(path); err != nil {
					return nil, err
				}
				continue
			}
			out[id] = in.branch(b)
		}
	}
	for id := range dup {
		b := out[id]
		delete(out, id)
		if err := removeFile(t.branchPath(b.Layer, id)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readBranch parses and checks one branch file on its own; it returns nil
// and why when the file cannot be trusted.
func readBranch(path, id string, layer int) (*Branch, string) {
	data, err := readSmall(path, maxBranchLen)
	if err != nil {
		return nil, err.Error()
	}
	var b Branch
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, "not a branch: " + err.Error()
	}
	if b.ID != id || b.Layer != layer {
		return nil, "id or layer disagrees with its path"
	}
	if len(b.Children) == 0 || len(b.Children) > maxChildren {
		return nil, "bad number of children"
	}
	ids := make([]string, len(b.Children))
	seen := make(map[string]bool, len(b.Children))
	for i, c := range b.Children {
		if (!leaf.IsID(c.ID) && !isBranchID(c.ID)) || seen[c.ID] || c.ID == id {
			return nil, "bad child id"
		}
		seen[c.ID] = true
		ids[i] = c.ID
	}
	if branchID(ids) != id {
		return nil, "id does not match its children"
	}
	return &b, ""
}

// interner shares equal strings (keywords, tags and groups repeat across
// thousands of summaries) and trims the slices JSON decoding over-allocates:
// loaded branches are most of what the tree holds in memory.
type interner map[string]string

func (in interner) str(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

func (in interner) strs(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = in.str(s)
	}
	return out
}

func (in interner) branch(b *Branch) *Branch {
	b.Group = in.str(b.Group)
	b.Keywords = in.strs(b.Keywords)
	children := make([]ChildSummary, len(b.Children))
	for i, c := range b.Children {
		c.Keywords = in.strs(c.Keywords)
		c.Tags = in.strs(c.Tags)
		children[i] = c
	}
	b.Children = children
	return b
}

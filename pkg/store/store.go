// Package store is the memory engine the daemon owns: leaf files on disk, an
// append-only log that makes every mutation durable, and the in-memory index
// that answers searches.
//
// # Durability: the log first, group commit, leaves after
//
// Every mutation goes through one writer goroutine. It takes whatever saves
// have queued up, appends one log entry for each to log.jsonl (the entry
// carries the complete leaf), and fsyncs once for the whole batch — a group
// commit, so sixteen concurrent saves cost one sync, not sixteen. Only then
// does it publish the new memories to the index and acknowledge the callers:
// an acknowledged save is in the log on stable storage.
//
// The leaf files are then written by a second goroutine, atomically (temp
// file, sync, rename, directory sync) and in batches, off the acknowledgement
// path. If the process dies before a leaf reaches its file, the log still has
// it: Open replays the log and rewrites every leaf that is missing or does
// not match its checksum. So the leaf files and the log are each enough to
// rebuild the index, and deleting every derived file loses nothing.
//
// # Reads
//
// Searches run concurrently under a read lock on the index. The writer takes
// the write lock only to publish a batch that is already durable, so a
// reader sees a save entirely or not at all.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// Errors callers tell apart with errors.Is. Each is wrapped with the reason.
var (
	// ErrInvalid: the request is malformed; nothing was changed.
	ErrInvalid = leaf.ErrInvalid
	// ErrNotFound: no memory with that id is visible to the caller.
	ErrNotFound = errors.New("not found")
	// ErrClosed: the store is shutting down.
	ErrClosed = errors.New("store closed")
)

const (
	logName    = "log.jsonl"
	leavesDir  = "leaves"
	leafSuffix = ".txt"
	// maxBatch bounds one group commit, so one sync never carries an
	// unbounded amount of data while later callers wait.
	maxBatch = 512
)

// Caller says who is asking and for which project.
type Caller struct {
	Agent   leaf.Agent
	Session string
	Project string
	// Person is true for the person at the command line, as opposed to an
	// agent: review decisions, restores, purges and imports are theirs, and
	// an agent's correction of what they verified waits for them.
	Person bool
}

// IsPerson reports whether the caller is the person.
func (c Caller) IsPerson() bool { return c.Person }

// Options configure a store.
type Options struct {
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// ReviewAll holds every agent save for a person's review (config
	// "review = all"), not just the suspicious ones.
	ReviewAll bool
	// Facts extracts facts from saved text; nil means facts.Default().
	Facts *facts.Extractor
}

// Store is an open memory store. Only one process may have a store open:
// the daemon holds a lock file for that; the store itself assumes it.
type Store struct {
	dir       string
	log       *slog.Logger
	now       func() time.Time
	reviewAll bool
	extract   *facts.Extractor
	reqs      chan *request
	leaves    *leafQueue
	written   writtenLeaves // leaves whose files were written: see texts.go

	mu       sync.RWMutex // guards everything below
	ix       *index.Index
	docs     []*leaf.Leaf // by index.Doc; their texts are in the files (texts.go)
	byID     map[string]index.Doc
	groups   map[string]index.Group // project → group; "" is global (0)
	projects []string               // group → project
	entries  int64                  // log entries
	tl       *timeline.Timeline     // facts and links of live memories
	// unsaved are the facts extracted since facts.snapshot was written
	// (see saveFacts): what the snapshot holds is not held twice.
	unsaved map[string][]facts.Fact
	sources map[string][]string // sourceKey → leaves of that document
	plain   bool                // rank by BM25 alone (tests compare)
	// extractions counts texts whose facts were extracted (not taken from
	// the snapshot): what Open reports and tests check.
	extractions atomic.Int64
	// factsMu serialises saveFacts; savingFacts is set while a background
	// save (saveFactsIfMany) runs, factsSaves waits for it.
	factsMu     sync.Mutex
	savingFacts atomic.Bool
	factsSaves  sync.WaitGroup
	// lastSaved is, per conversation (session, day and group), the last
	// memories saved in it, newest first: a new one is linked to them.
	lastSaved map[conversation]recent
	pending   int // memories waiting for review
	gone      int // forgotten or purged memories

	// closeMu orders Save against Close: a Save holds it shared while it
	// enqueues, so once Close holds it exclusively every accepted request is
	// in reqs, where the writer's final drain finds it.
	// The summary tree: see tree.go. treeOps and treeTracking are guarded
	// by mu; tree by treeMu, which is only ever taken after mu or alone.
	treeOps      []treeOp
	treeTracking bool
	treeKick     chan struct{}
	treeReqs     chan treeReq
	treeMu       sync.RWMutex
	tree         *tree.Tree
	titles       titleCache

	closeMu   sync.RWMutex
	closed    bool
	closeOnce sync.Once
	closing   chan struct{}
	writerErr error
	done      chan struct{} // closed when the writer and leaf writer have stopped
}

// Open opens the store in dir (created 0700 if missing), loads every leaf
// file, replays the log to restore anything the files lack, and starts the
// writer.
func Open(dir string, opts Options) (*Store, error) {
	s := &Store{
		dir:       dir,
		log:       opts.Logger,
		now:       opts.Now,
		reviewAll: opts.ReviewAll,
		extract:   opts.Facts,
		reqs:      make(chan *request, maxBatch),
		leaves:    newLeafQueue(),
		written:   writtenLeaves{kick: make(chan struct{}, 1)},
		tl:        timeline.New(),
		unsaved:   map[string][]facts.Fact{},
		sources:   map[string][]string{},
		ix:        index.New(),
		byID:      make(map[string]index.Doc),
		lastSaved: map[conversation]recent{},
		treeKick:  make(chan struct{}, 1),
		treeReqs:  make(chan treeReq),
		groups:    map[string]index.Group{"": 0},
		projects:  []string{""},
		closing:   make(chan struct{}),
		done:      make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.extract == nil {
		s.extract = facts.Default()
	}
	if err := CheckDir(dir, s.log); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, leavesDir), 0o700); err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	start := time.Now()
	// The leaf files load (in parallel) while this goroutine reads the log:
	// each is a large part of a start. The log is only read here; it is
	// opened for writing (which may cut off a torn tail, or add a line)
	// after both, as when they ran one after the other.
	type leaves struct {
		loaded map[string]*leaf.Leaf
		bad    map[string]bool
		err    error
	}
	loading := make(chan leaves, 1)
	go func() {
		loaded, bad, err := s.loadLeaves()
		loading <- leaves{loaded, bad, err}
	}()
	lg, logErr := openLogIndex(filepath.Join(dir, logName))
	defer lg.close()
	ls := <-loading
	if ls.err != nil {
		return nil, ls.err
	}
	if logErr != nil {
		return nil, logErr
	}
	loaded, bad := ls.loaded, ls.bad
	j, err := journal.Open(filepath.Join(dir, logName))
	if err != nil {
		return nil, err
	}
	// Opening the journal may have added a line (naming lines a crash
	// damaged) after those read above; replay reads every line.
	if err := lg.readMore(); err != nil {
		j.Close()
		return nil, err
	}
	repaired, err := s.replay(loaded, bad, lg, j)
	if err != nil {
		j.Close()
		return nil, err
	}
	lg.close()
	// Index in record order, so the order of documents (which breaks score
	// ties, newer first) is the same at every start.
	all := make([]*leaf.Leaf, 0, len(loaded))
	for _, l := range loaded {
		all = append(all, l)
	}
	slices.SortFunc(all, func(a, b *leaf.Leaf) int {
		if c := a.RecordedAt.Compare(b.RecordedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	// Publishing runs in two goroutines side by side, each in record order:
	// the inverted index in one (tokenizing every text is the largest part
	// of opening a large store, and the index must be built by one
	// goroutine), the catalog, facts and timeline in this one. They touch
	// disjoint parts of the store (see indexLeaf and catalog), and an empty
	// index numbers documents 0, 1, 2..., so leaf i is document i here too.
	indexed := make(chan error, 1)
	go func() {
		for i, l := range all {
			if d := s.indexLeaf(l); d != index.Doc(i) {
				indexed <- fmt.Errorf("open store: leaf %s indexed as document %d, not %d", l.ID, d, i)
				return
			}
		}
		indexed <- nil
	}()
	// Fact extraction is the costly part of cataloguing; it runs in parallel
	// (the extractor is safe for that), cataloguing stays in record order.
	fs := make([][]facts.Fact, len(all))
	extracted := make([]bool, len(all))
	snap := s.loadFacts()
	var next atomic.Int64
	var extracting sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		extracting.Go(func() {
			for i := int(next.Add(1) - 1); i < len(all); i = int(next.Add(1) - 1) {
				if !isLive(all[i]) {
					fs[i] = []facts.Fact{}
					continue
				}
				if got, ok := snap[all[i].ID]; ok {
					if got == nil {
						// gob reads an empty list back as nil, which
						// publishWith would take for "not extracted yet".
						got = []facts.Fact{}
					}
					fs[i] = got
				} else {
					fs[i], extracted[i] = s.extractFacts(all[i].Text), true
				}
			}
		})
	}
	extracting.Wait()
	for i, l := range all {
		s.catalog(l, index.Doc(i), fs[i])
	}
	if err := <-indexed; err != nil {
		j.Close()
		return nil, err
	}
	// Every leaf is on disk now (replay restored what the files lacked),
	// and the index and the facts have what they need of the texts.
	for _, l := range all {
		dropText(l)
	}
	// Cataloguing noted every memory's facts as unsaved; only those not
	// taken from the snapshot are (a new map: a map never shrinks).
	s.unsaved = make(map[string][]facts.Fact)
	for i, l := range all {
		if extracted[i] && isLive(l) {
			s.unsaved[l.ID] = fs[i]
		}
	}
	s.entries = j.Entries()
	if len(s.unsaved) > openSaveFacts {
		s.saveFacts() // so that a crash later does not cost this again
	}
	s.log.Info("store open", "dir", dir, "memories", len(s.docs), "log_entries", s.entries, "facts", s.tl.Facts(),
		"repaired_leaves", repaired, "unreadable_leaves", len(bad), "facts_extracted", s.extractions.Load(), "took", time.Since(start).Round(time.Millisecond))

	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.writeLoop(j) }()
	go func() { defer wg.Done(); s.leafLoop() }()
	go func() { defer wg.Done(); s.treeLoop() }()
	go func() { wg.Wait(); close(s.done) }()
	return s, nil
}

// Close stops accepting writes, finishes every write already accepted,
// writes out pending leaf files and syncs the log. It is safe to call more
// than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closeMu.Lock()
		s.closed = true
		s.closeMu.Unlock()
		close(s.closing)
	})
	<-s.done
	s.factsSaves.Wait()
	s.saveFacts()
	return s.writerErr
}

func (s *Store) leafPath(id string) string {
	return filepath.Join(s.dir, leavesDir, id[:2], id+leafSuffix)
}

// loadLeaves reads and verifies every leaf file, in parallel: opening a
// large store is mostly this. Unreadable leaves are reported by id (when the
// file name gives one) so replay can restore them.
func (s *Store) loadLeaves() (loaded map[string]*leaf.Leaf, bad map[string]bool, err error) {
	root := filepath.Join(s.dir, leavesDir)
	// The walk hands the files it finds to the readers in batches as it
	// goes, so that reading starts with the first directory, not after the
	// last; the batches are put back in walk order afterwards.
	type batch struct {
		first  int // walk order of paths[0]
		paths  []string
		leaves []*leaf.Leaf
		errs   []error
	}
	const batchLen = 64
	todo := make(chan *batch, 16)
	read := make(chan *batch, 16)
	var wg sync.WaitGroup
	for range leafReaders() {
		wg.Go(func() {
			// One buffer for every file a reader reads: Parse copies what
			// it keeps.
			buf := make([]byte, 16<<10)
			for b := range todo {
				b.leaves = make([]*leaf.Leaf, len(b.paths))
				b.errs = make([]error, len(b.paths))
				for i, path := range b.paths {
					var data []byte
					var err error
					data, buf, err = readFile(path, buf)
					if err != nil {
						b.errs[i] = fmt.Errorf("read leaf: %w", err)
						continue
					}
					l, err := leaf.Parse(data)
					if err == nil && filepath.Base(path) != l.ID+leafSuffix {
						err = fmt.Errorf("%w: file name does not match id %s", leaf.ErrMalformed, l.ID)
					}
					if err != nil {
						b.errs[i] = err
						continue
					}
					b.leaves[i] = &l
				}
				read <- b
			}
		})
	}
	// walkErr and tempsRemoved are the walker's until it closes todo; the
	// readers finish after that, and read is closed after them.
	var walkErr error
	tempsRemoved := 0
	go func() {
		defer close(todo)
		cur, n := &batch{}, 0
		walkErr = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			switch {
			case d.IsDir():
			case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp"):
				// A temp file of an atomic write cut short by a crash. We
				// hold the store lock, so no writer owns it; the log
				// restores its leaf.
				if err := os.Remove(path); err != nil {
					return fmt.Errorf("remove leftover temp file: %w", err)
				}
				tempsRemoved++
			case strings.HasSuffix(name, leafSuffix) && !strings.HasPrefix(name, "."):
				cur.paths = append(cur.paths, path)
				n++
				if len(cur.paths) == batchLen {
					todo <- cur
					cur = &batch{first: n}
				}
			}
			return nil
		})
		if len(cur.paths) > 0 {
			todo <- cur
		}
	}()
	go func() { wg.Wait(); close(read) }()
	var batches []*batch
	n := 0
	for b := range read {
		batches = append(batches, b)
		n += len(b.paths)
	}
	if walkErr != nil {
		return nil, nil, fmt.Errorf("load leaves from %s: %w", root, walkErr)
	}
	if tempsRemoved > 0 {
		s.log.Info("removed temp files left by an interrupted write", "files", tempsRemoved)
	}
	slices.SortFunc(batches, func(a, b *batch) int { return a.first - b.first })

	loaded = make(map[string]*leaf.Leaf, n)
	bad = map[string]bool{}
	for _, b := range batches {
		for i, l := range b.leaves {
			switch {
			case errors.Is(b.errs[i], leaf.ErrMalformed):
				s.log.Warn("unreadable leaf; it will be restored from the log if the log has it", "path", b.paths[i], "err", b.errs[i])
				bad[strings.TrimSuffix(filepath.Base(b.paths[i]), leafSuffix)] = true
			case b.errs[i] != nil:
				return nil, nil, b.errs[i]
			default:
				loaded[l.ID] = l
			}
		}
	}
	return loaded, bad, nil
}

// leafReaders is how many goroutines read leaf files at Open. Reading is
// mostly waiting for the disk when the files are not cached, and a disk
// serves several reads at once, so there are more readers than processors.
func leafReaders() int { return max(runtime.GOMAXPROCS(0), 8) }

// readFile reads the file at path into buf, growing it when the file does
// not fit, and returns what it read and the buffer for the next file. It
// is os.ReadFile without an os.File: opening one also stats the file and
// offers it to the runtime's poller (which refuses a regular file) — two
// more system calls for each of a large store's files, and an allocation
// the size of the file.
func readFile(path string, buf []byte) (data, next []byte, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, buf, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			buf = slices.Grow(buf[:n], len(buf))[:2*len(buf)]
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, buf, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			return buf[:n], buf, nil
		}
		n += m
	}
}

// replay brings the loaded leaves up to date with the log: it restores
// every logged leaf whose file is missing or unreadable, and applies every
// logged change of a header (a link, a forget, a review...) that its file
// does not show yet, rewriting those files. Each entry carries the complete
// new state of what it changed, so replaying in order ends in the state of
// the last entry whatever the files held, and replaying twice changes
// nothing.
//
// A damaged line is skipped, loudly, rather than failing the start: a crash
// in the middle of a batch can leave one (the kernel may write a batch's
// pages in any order before its fsync), and nothing in such a batch was
// acknowledged. Damage anywhere else loses at most that entry's copy of a
// leaf, and the leaf file normally still has it.
func (s *Store) replay(loaded map[string]*leaf.Leaf, bad map[string]bool, lg *logIndex, j *journal.Journal) (int, error) {
	rewrite := map[string]*leaf.Leaf{}
	onDisk := map[string]leaf.Header{} // as the files show them, for leaves an entry changes
	change := func(l *leaf.Leaf) {
		if cur, ok := loaded[l.ID]; ok {
			if _, seen := onDisk[l.ID]; !seen && rewrite[l.ID] == nil {
				onDisk[l.ID] = cur.Header
			}
		}
		loaded[l.ID] = l
		rewrite[l.ID] = l
	}
	// Purged leaves whose text a log line may still hold (a crash between
	// the purge entry and the log rewrite): those lines are read in full.
	purged := map[string]bool{}
	for id, l := range loaded {
		if l.Status == leaf.StatusPurged {
			purged[id] = true
		}
	}
	strip := false
	lineNo, damaged := 0, 0
	skip := func(why string, args ...any) {
		damaged++
		s.log.Warn("skipped a damaged log line", append([]any{"line", lineNo, "why", why}, args...)...)
	}
	var line []byte
	apply := func(head logLine) error {
		lineNo++
		// Most entries are saves of a leaf that loaded: the op and id read
		// with the log's index are enough to tell.
		if head.err != nil {
			skip("not JSON", "err", head.err)
			return nil
		}
		carriesLeaf := head.Op == opSave || head.Op == opImport
		if _, ok := loaded[head.ID]; ok && head.Op == opSave && !purged[head.ID] {
			return nil
		}
		if head.Op == opReadAll {
			return nil
		}
		var err error
		if line, err = lg.line(head, line); err != nil {
			return err
		}
		var e entry
		if err := json.Unmarshal(line, &e); err != nil {
			skip("not an entry", "id", head.ID, "err", err)
			return nil
		}
		if carriesLeaf {
			if e.Leaf == nil {
				skip("a save without its leaf", "id", head.ID)
				return nil
			}
			if purged[e.ID] {
				strip = strip || e.Text != ""
				if head.Op == opSave {
					return nil
				}
			}
			l := &leaf.Leaf{Header: *e.Leaf, Text: e.Text}
			if l.Status == leaf.StatusPurged {
				l.Text = ""
			}
			if (l.Status != leaf.StatusPurged && leaf.Checksum(l.Text) != l.Checksum) || !leaf.IsID(l.ID) || l.ID != head.ID {
				skip("fails its checksum", "id", head.ID)
				return nil
			}
			if cur, ok := loaded[l.ID]; ok && headerEqual(cur.Header, l.Header) {
				return nil
			}
			change(l)
			delete(bad, l.ID)
			return nil
		}
		for i := range e.Leaves {
			h := e.Leaves[i]
			cur, ok := loaded[h.ID]
			if !ok && h.Status == leaf.StatusPurged {
				// Its save lost its text to the purge; the header is all
				// there is, and all it needs.
				cur, ok = &leaf.Leaf{Header: h}, true
				change(cur)
				continue
			}
			if !ok || headerEqual(cur.Header, h) {
				continue
			}
			l := &leaf.Leaf{Header: h, Text: cur.Text}
			if h.Status == leaf.StatusPurged {
				l.Text = ""
				strip = strip || !purged[h.ID]
				purged[h.ID] = true
			}
			change(l)
		}
		return nil
	}
	for _, head := range lg.lines {
		if err := apply(head); err != nil {
			return 0, fmt.Errorf("replay log: %w", err)
		}
	}
	if damaged > 0 {
		s.log.Warn("the log has damaged lines; they were skipped", "lines", damaged, "log", filepath.Join(s.dir, logName))
	}
	if strip {
		// A purge was cut short after its entry was durable: finish it.
		n, err := j.Rewrite(stripText(purged))
		if err != nil {
			return 0, err
		}
		s.log.Info("finished an interrupted purge: removed text from the log", "entries", n)
	}
	// Entries are applied one after another, so a leaf changed twice may end
	// just as its file already shows it: only a final state that differs
	// from the file is written.
	restore := make([]*leaf.Leaf, 0, len(rewrite))
	for id, l := range rewrite {
		if h, ok := onDisk[id]; ok && headerEqual(h, l.Header) && !bad[id] {
			continue
		}
		restore = append(restore, l)
	}
	if err := s.writeLeaves(restore); err != nil {
		return 0, err
	}
	return len(restore), nil
}

// headerEqual compares two headers as their files would show them.
func headerEqual(a, b leaf.Header) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// publishWith adds a durable leaf to the index and, when it is live, to
// the fact timeline, with its facts already extracted (nil: extract them
// here). Callers hold s.mu or run before the store is shared.
func (s *Store) publishWith(l *leaf.Leaf, fs []facts.Fact) {
	s.catalog(l, s.indexLeaf(l), fs)
}

// indexLeaf is publishWith's half that builds the inverted index: the
// leaf's group, its text and its links to its neighbours. It touches only
// s.groups, s.projects, s.lastSaved and s.ix — nothing catalog touches —
// so that Open can run the two halves side by side.
func (s *Store) indexLeaf(l *leaf.Leaf) index.Doc {
	g, ok := s.groups[l.Project]
	if !ok {
		g = index.Group(len(s.projects))
		s.groups[l.Project] = g
		s.projects = append(s.projects, l.Project)
	}
	if l.Scope == leaf.ScopeGlobal {
		g = 0
	}
	d := s.ix.Add(l.Text, g)
	s.linkNeighbours(l, d, g)
	if !isLive(l) {
		s.ix.SetLive(d, false)
	}
	return d
}

// catalog is publishWith's other half: the leaf becomes document d of the
// catalog, is counted and, when live, has its facts put in the timeline.
// It never reads what indexLeaf writes.
func (s *Store) catalog(l *leaf.Leaf, d index.Doc, fs []facts.Fact) {
	s.docs = append(s.docs, l)
	s.byID[l.ID] = d
	s.count(l, 1)
	s.noteSource(l)
	if !isLive(l) {
		return
	}
	s.addFacts(l, fs)
	s.noteTree(l)
}

// neighbours is how many memories before it a new one is linked to.
const neighbours = 2

// conversation identifies memories saved one after another in one session,
// on one day, in one scope: a conversation's turns, or the notes an agent
// takes during one task.
type conversation struct {
	session string
	day     string
	group   index.Group
}

// linkNeighbours links a new memory to the ones saved just before it in the
// same conversation, so each also ranks for the other's words at a lower
// weight (index.Link, index.NeighbourWeight): "yes, in May" is found by the
// question the turn before asked. Memories are published in record order,
// at every start too, so the links are the same each time. Callers hold
// s.mu.
func (s *Store) linkNeighbours(l *leaf.Leaf, d index.Doc, g index.Group) {
	if l.Session == "" {
		return
	}
	k := conversation{session: l.Session, day: l.ValidFrom.UTC().Format(time.DateOnly), group: g}
	prev := s.lastSaved[k]
	for i, p := range prev.docs[:prev.n] {
		s.ix.Link(d, p, index.NeighbourWeight(i+1))
	}
	next := recent{n: min(prev.n+1, neighbours)}
	next.docs[0] = d
	copy(next.docs[1:], prev.docs[:])
	s.lastSaved[k] = next
}

// recent is the last memories of a conversation, newest first.
type recent struct {
	docs [neighbours]index.Doc
	n    int
}

// replace publishes a new version of a stored leaf (a header change).
// Callers hold s.mu.
func (s *Store) replace(l *leaf.Leaf) { s.replaceWith(l, nil) }

// replaceWith is replace with the leaf's facts already extracted (nil:
// extract them here if needed).
func (s *Store) replaceWith(l *leaf.Leaf, fs []facts.Fact) {
	d, ok := s.byID[l.ID]
	if !ok {
		s.publishWith(l, fs)
		return
	}
	old := s.docs[d]
	s.count(old, -1)
	s.count(l, 1)
	s.docs[d] = l
	s.ix.SetLive(d, isLive(l))
	s.tl.Remove(l.ID)
	delete(s.unsaved, l.ID)
	if isLive(l) {
		s.addFacts(l, fs)
	}
	s.noteTree(l)
}

// addFacts puts a live leaf's facts and links into the timeline. A link to
// a memory that is not live (pending, forgotten) waits until it is.
func (s *Store) addFacts(l *leaf.Leaf, fs []facts.Fact) {
	if fs == nil {
		full := s.shown(l) // every caller passes a leaf with its text; in case one does not
		fs = s.extractFacts(full.Text)
	}
	s.unsaved[l.ID] = fs
	s.tl.Add(timeline.Source{Leaf: l.ID, Scope: partition(l), ValidFrom: l.ValidFrom, RecordedAt: l.RecordedAt}, fs)
	// Links take effect between live memories of one partition only,
	// whatever an imported or hand-edited header says.
	linkable := func(id string) bool {
		d, ok := s.byID[id]
		return ok && isLive(s.docs[d]) && partition(s.docs[d]) == partition(l)
	}
	for _, c := range l.Corrects {
		if linkable(c.ID) {
			s.tl.Link(c.ID, l.ID, c.At)
		}
	}
	for _, c := range l.CorrectedBy {
		if linkable(c.ID) {
			s.tl.Link(l.ID, c.ID, c.At)
		}
	}
}

// extractFacts extracts a text's facts, never nil: nil means "not extracted
// yet" to publishWith and addFacts, which would otherwise extract again —
// in the writer, under the lock.
func (s *Store) extractFacts(text string) []facts.Fact {
	s.extractions.Add(1)
	fs := s.extract.Extract(text)
	if fs == nil {
		return []facts.Fact{}
	}
	// A fact's words are pieces of the text (its phrase is built anew);
	// the timeline keeps the fact for the memory's life, and the text is
	// only kept on disk (texts.go).
	for i := range fs {
		f := &fs[i]
		f.Subject, f.Attribute = strings.Clone(f.Subject), strings.Clone(f.Attribute)
		f.Value, f.From = strings.Clone(f.Value), strings.Clone(f.From)
	}
	return fs
}

// count keeps the per-state counters. Callers hold s.mu.
func (s *Store) count(l *leaf.Leaf, n int) {
	switch {
	case l.Status == leaf.StatusForgotten || l.Status == leaf.StatusPurged:
		s.gone += n
	case l.Trust == leaf.TrustPending:
		s.pending += n
	}
}

// isLive reports whether a memory answers searches: active, and neither
// waiting for review nor rejected.
func isLive(l *leaf.Leaf) bool {
	return l.Status == leaf.StatusActive && (l.Trust == leaf.TrustAsserted || l.Trust == leaf.TrustVerified)
}

// partition is the timeline partition of a leaf: facts of one project never
// touch another project's or the global memories.
func partition(l *leaf.Leaf) string {
	if l.Scope == leaf.ScopeGlobal {
		return ""
	}
	return l.Project
}

func (s *Store) writeLeaves(ls []*leaf.Leaf) error {
	files := make([]atomicfile.File, 0, len(ls))
	for _, l := range ls {
		if onDisk(l) {
			// A header change of a memory whose text is on disk: every
			// path that changes one reads it back first (withText); this
			// makes sure no file is ever written without it.
			full, err := s.withText(l)
			if err != nil {
				return fmt.Errorf("write leaves: %w", err)
			}
			l = &full
		}
		data, err := leaf.Encode(*l)
		if err != nil {
			return err
		}
		files = append(files, atomicfile.File{Path: s.leafPath(l.ID), Data: data})
	}
	if err := atomicfile.WriteBatch(files, 0o600); err != nil {
		return fmt.Errorf("write leaves: %w", err)
	}
	return nil
}

// leafBatch bounds how many leaf files one atomic batch writes and syncs.
const leafBatch = 1024

// leafLoop writes leaf files for leaves the writer has made durable. A
// failure here loses nothing (the log has every leaf, and the next start
// rewrites it) but is logged loudly, because the files are what a person
// reads.
func (s *Store) leafLoop() {
	for {
		batch, ok := s.leaves.take(leafBatch)
		if !ok {
			return
		}
		if err := s.writeLeaves(batch); err != nil {
			s.log.Error("writing leaf files failed; they will be restored from the log at the next start", "leaves", len(batch), "err", err)
		} else {
			s.written.add(batch)
		}
		s.leaves.done(len(batch))
	}
}

// Flush waits until the leaf writer has handled every acknowledged save:
// written its file, or failed to and logged why (the next start restores
// it from the log); and until the summary tree has taken in every change
// and written the branches they complete. Saves are durable before that, in
// the log; Flush is for whoever reads the files themselves, such as a test
// or a backup. Once it returns, the texts of the leaves written are no
// longer held in memory either (texts.go): the writer drops them before it
// takes the empty operation Flush sends it.
func (s *Store) Flush() {
	s.flushFiles()
	s.do(context.Background(), func(time.Time) (*change, error) { return &change{}, nil }) // ErrClosed: nothing to wait for
}

// flushFiles is Flush for the writer itself (which cannot wait for itself):
// the leaf files and the tree.
func (s *Store) flushFiles() {
	s.leaves.wait()
	if _, _, err := s.Consolidate(context.Background(), false); err != nil && !errors.Is(err, ErrClosed) {
		s.log.Warn("flush: the summary tree did not catch up", "err", err)
	}
}

// parseDate reads an optional caller date.
func parseDate(s string) (time.Time, bool, error) {
	if strings.TrimSpace(s) == "" {
		return time.Time{}, false, nil
	}
	t, err := dates.Parse(s)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return t, true, nil
}

// visible returns the predicate for what a caller may see under a scope,
// and a description of it for people.
func (s *Store) visible(c Caller, scope SearchScope) (func(index.Group) bool, string, error) {
	own, hasOwn := s.groups[c.Project]
	if c.Project == "" {
		hasOwn = false
	}
	switch scope {
	case ScopeDefault:
		if c.Project == "" {
			return func(g index.Group) bool { return g == 0 }, "global (no project)", nil
		}
		return func(g index.Group) bool { return g == 0 || (hasOwn && g == own) }, "global + project " + c.Project, nil
	case ScopeOnlyProject:
		if c.Project == "" {
			return nil, "", fmt.Errorf("%w: scope project needs a project: run inside a git repository or set IHMT_PROJECT", ErrInvalid)
		}
		return func(g index.Group) bool { return hasOwn && g == own }, "project " + c.Project, nil
	case ScopeOnlyGlobal:
		return func(g index.Group) bool { return g == 0 }, "global", nil
	case ScopeAll:
		return func(index.Group) bool { return true }, "all projects + global", nil
	}
	return nil, "", fmt.Errorf("%w: unknown search scope %d: use default, project, global or all", ErrInvalid, scope)
}

// Get returns the memory with id if the caller may see it under scope.
// Another project's memory reads as not found, not as forbidden, so ids do
// not leak which projects exist.
func (s *Store) Get(c Caller, id string, scope SearchScope) (leaf.Leaf, error) {
	if !leaf.IsID(id) {
		return leaf.Leaf{}, fmt.Errorf("%w: %q is not a memory id (16 hex digits)", ErrInvalid, clip(id, 40))
	}
	if err := validateCaller(c); err != nil {
		return leaf.Leaf{}, err
	}
	if err := s.recordReadAll(c, scope, "get "+id); err != nil {
		return leaf.Leaf{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, _, err := s.visible(c, scope)
	if err != nil {
		return leaf.Leaf{}, err
	}
	d, ok := s.byID[id]
	if !ok || !vis(s.groupOf(s.docs[d])) {
		return leaf.Leaf{}, fmt.Errorf("%w: no memory %s in %s", ErrNotFound, id, scopeName(scope))
	}
	return s.withText(s.docs[d])
}

func (s *Store) groupOf(l *leaf.Leaf) index.Group {
	if l.Scope == leaf.ScopeGlobal {
		return 0
	}
	return s.groups[l.Project]
}

// Stats are counts over the store.
type Stats struct {
	Memories        int // live memories: what searches can return
	GlobalMemories  int
	ProjectMemories int // of the caller's project
	Projects        int
	LogEntries      int64
	PendingReview   int
	Forgotten       int
	Facts           int
}

// Stats counts memories, overall and for the caller's project.
func (s *Store) Stats(c Caller) Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Stats{Memories: s.ix.Len(), GlobalMemories: s.ix.GroupLen(0), LogEntries: s.entries,
		PendingReview: s.pending, Forgotten: s.gone, Facts: s.tl.Facts()}
	if g, ok := s.groups[c.Project]; ok && c.Project != "" {
		st.ProjectMemories = s.ix.GroupLen(g)
	}
	st.Projects = s.ix.Groups()
	if st.GlobalMemories > 0 {
		st.Projects--
	}
	return st
}

func validateCaller(c Caller) error {
	if err := leaf.ValidateName("agent name", c.Agent.Name); err != nil {
		return err
	}
	if err := leaf.ValidateName("agent version", c.Agent.Version); err != nil {
		return err
	}
	if err := leaf.ValidateName("session id", c.Session); err != nil {
		return err
	}
	return leaf.ValidateProject(c.Project)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

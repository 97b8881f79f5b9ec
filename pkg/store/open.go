package store

import (
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

	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/memo"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// Open opens the store in dir (created 0700 if missing), loads every leaf
// file, replays the log to restore anything the files lack, and starts the
// writer.
func Open(dir string, opts Options) (*Store, error) {
	off, err := recall.ParseSwitches(opts.SignalsOff)
	if err != nil {
		return nil, err
	}
	s := newStore(dir, opts)
	s.engine = recall.New(off)
	if err := CheckDir(dir, s.log); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, leavesDir), 0o700); err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	start := time.Now()
	if err := removeStaleTemps(dir, s.log); err != nil {
		return nil, err
	}
	snaps := s.readSnapshots()
	d, j, err := s.readDisk()
	if err != nil {
		return nil, err
	}
	s.entries = j.Entries()
	var fromSnapshot bool
	fromSnapshot, err = s.publishAll(byRecord(d.loaded), <-snaps)
	if err != nil {
		j.Close()
		return nil, err
	}
	if len(s.unsaved) > openSaveFacts {
		s.saveFacts() // so that a crash later does not cost this again
	}
	s.log.Info("store open", "dir", dir, "memories", len(s.docs), "log_entries", s.entries, "facts", s.tl.Facts(),
		"repaired_leaves", d.repaired, "unreadable_leaves", d.unreadable, "facts_extracted", s.extractions.Load(),
		"index_from_snapshot", fromSnapshot, "took", time.Since(start).Round(time.Millisecond))
	s.startLoops(j)
	return s, nil
}

// newStore is an empty store in dir, not yet read from disk.
func newStore(dir string, opts Options) *Store {
	s := &Store{
		dir:       dir,
		log:       opts.Logger,
		now:       opts.Now,
		reviewAll: opts.ReviewAll,
		extract:   opts.Facts,
		lex:       opts.Lexicon,
		engine:    recall.New(nil),
		texts:     newTextCache(),
		titles:    memo.New[string, string](maxTitles, nil),
		likely:    map[index.Doc][]recall.Edge{},
		reqs:      make(chan *request, maxBatch),
		leaves:    newLeafQueue(),
		written:   writtenLeaves{kick: make(chan struct{}, 1)},
		tl:        timeline.New(),
		unsaved:   map[string][]facts.Fact{},
		sources:   map[string][]string{},
		ix:        index.New(),
		byID:      make(map[string]index.Doc),
		lastSaved: map[conversation]recent{},
		definers:  map[index.Group][]recall.Definer{},
		treeKick:  make(chan struct{}, 1),
		treeReqs:  make(chan treeReq),
		groups:    map[string]index.Group{"": 0},
		projects:  []string{""},
		closing:   make(chan struct{}),
		indexAt:   -1,
		done:      make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.lex == nil {
		s.lex = lexicon.Default()
	}
	if s.extract == nil {
		s.extract = facts.Default()
	}
	return s
}

// snapshots are the facts and index snapshots as read from their files,
// not yet checked against the leaves.
type snapshots struct {
	facts map[string][]facts.Fact
	index readIndex
}

// readSnapshots reads the snapshots in the background: decoding them is
// a large part of a start that needs nothing from the leaves and the log,
// which are read meanwhile.
func (s *Store) readSnapshots() <-chan snapshots {
	ch := make(chan snapshots, 1)
	go func() {
		var snaps snapshots
		var wg sync.WaitGroup
		wg.Go(func() { snaps.index = s.readIndexFile() })
		snaps.facts = s.loadFacts()
		wg.Wait()
		ch <- snaps
	}()
	return ch
}

// onDiskState is what Open read from the leaf files and the log.
type onDiskState struct {
	loaded     map[string]*leaf.Leaf // every leaf, as replay left it
	unreadable int                   // leaf files neither readable nor restored from the log
	repaired   int                   // leaf files replay rewrote
}

// readDisk loads the leaf files and the log, replays the log over the
// leaves and returns them with the journal, open for writing.
//
// The leaf files load (in parallel) while this goroutine reads the log:
// each is a large part of a start. The log is only read here; it is opened
// for writing (which may cut off a torn tail, or add a line) after both, as
// when they ran one after the other.
func (s *Store) readDisk() (onDiskState, *journal.Journal, error) {
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
	lg, logErr := openLogIndex(filepath.Join(s.dir, logName))
	defer lg.close()
	ls := <-loading
	if ls.err != nil {
		return onDiskState{}, nil, ls.err
	}
	if logErr != nil {
		return onDiskState{}, nil, logErr
	}
	j, err := journal.Open(filepath.Join(s.dir, logName))
	if err != nil {
		return onDiskState{}, nil, err
	}
	// Opening the journal may have added a line (naming lines a crash
	// damaged) after those read above; replay reads every line.
	if err := lg.readMore(); err != nil {
		j.Close()
		return onDiskState{}, nil, err
	}
	repaired, err := s.replay(ls.loaded, ls.bad, lg, j)
	if err != nil {
		j.Close()
		return onDiskState{}, nil, err
	}
	return onDiskState{loaded: ls.loaded, unreadable: len(ls.bad), repaired: repaired}, j, nil
}

// byRecord lists the leaves in record order, so that the order of
// documents (which breaks score ties, newer first) is the same at every
// start.
func byRecord(loaded map[string]*leaf.Leaf) []*leaf.Leaf {
	all := make([]*leaf.Leaf, 0, len(loaded))
	for _, l := range loaded {
		all = append(all, l)
	}
	slices.SortFunc(all, compareRecord)
	return all
}

// publishAll publishes the leaves Open read, in record order, then leaves
// their texts to their files. It reports whether the index came from its
// snapshot.
//
// Publishing runs in two goroutines side by side, each in record order:
// the inverted index in one (tokenizing every text is the largest part of
// opening a large store, and the index must be built by one goroutine),
// the catalog, facts and timeline in this one. They touch disjoint parts of
// the store (see indexLeaf and catalog), and an empty index numbers
// documents 0, 1, 2..., so leaf i is document i here too. The index is
// read from its snapshot instead when that was built from these leaves;
// when it is built here, the snapshot is written for the next start.
func (s *Store) publishAll(all []*leaf.Leaf, snaps snapshots) (fromSnapshot bool, err error) {
	indexed := make(chan error, 1)
	go func() {
		var err error
		fromSnapshot, err = s.indexAll(all, snaps.index)
		indexed <- err
	}()
	fs, extracted := s.factsOf(all, snaps.facts)
	for i, l := range all {
		s.catalog(l, index.Doc(i), fs[i])
	}
	if err := <-indexed; err != nil {
		return false, err
	}
	if !fromSnapshot && len(all) > 0 {
		// Encoded now, while the texts are here and nothing else runs;
		// written in the background.
		snap := s.snapshotIndex(all)
		s.factsSaves.Go(func() {
			if s.writeIndex(snap) {
				s.mu.Lock()
				s.indexAt = snap.Entries
				s.mu.Unlock()
			}
		})
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
		if extracted[i] && l.Live() {
			s.unsaved[l.ID] = fs[i]
		}
	}
	return fromSnapshot, nil
}

// indexAll builds the index of all (Open's leaves, in record order), or
// takes it from its snapshot (setting s.indexAt) when that fits them,
// reporting which.
func (s *Store) indexAll(all []*leaf.Leaf, snap readIndex) (fromSnapshot bool, err error) {
	if s.loadIndex(snap, all) {
		s.indexAt = s.entries
		return true, nil
	}
	for i, l := range all {
		if d := s.indexLeaf(l); d != index.Doc(i) {
			return false, fmt.Errorf("open store: leaf %s indexed as document %d, not %d", l.ID, d, i)
		}
	}
	return false, nil
}

// factsOf returns the facts of every live leaf, taken from the snapshot
// (snap, as loadFacts read it) or else extracted (extracted[i] says which); a leaf that is not live has
// none. Extraction is the costly part of cataloguing, so it runs in
// parallel (the extractor is safe for that); cataloguing stays in record
// order.
func (s *Store) factsOf(all []*leaf.Leaf, snap map[string][]facts.Fact) (fs [][]facts.Fact, extracted []bool) {
	fs = make([][]facts.Fact, len(all))
	extracted = make([]bool, len(all))
	var next atomic.Int64
	var extracting sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		extracting.Go(func() {
			for i := int(next.Add(1) - 1); i < len(all); i = int(next.Add(1) - 1) {
				if !all[i].Live() {
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
					fs[i], extracted[i] = s.extractFacts(all[i]), true
				}
			}
		})
	}
	extracting.Wait()
	return fs, extracted
}

// startLoops starts the writer, the leaf writer and the tree's goroutine;
// s.done is closed once all three have stopped.
func (s *Store) startLoops(j *journal.Journal) {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.writeLoop(j) }()
	go func() { defer wg.Done(); s.leafLoop() }()
	go func() { defer wg.Done(); s.treeLoop() }()
	go func() { wg.Wait(); close(s.done) }()
}

// readBatch is a batch of leaf files the walk hands to the readers, and
// what they read of them.
type readBatch struct {
	first  int // walk order of paths[0]
	paths  []string
	leaves []*leaf.Leaf
	errs   []error
}

// readBatchLen is how many files the walk puts in a batch.
const readBatchLen = 64

// loadLeaves reads and verifies every leaf file, in parallel: opening a
// large store is mostly this. Unreadable leaves are reported by id (when the
// file name gives one) so replay can restore them.
//
// The walk hands the files it finds to the readers in batches as it goes,
// so that reading starts with the first directory, not after the last; the
// batches are put back in walk order afterwards.
func (s *Store) loadLeaves() (loaded map[string]*leaf.Leaf, bad map[string]bool, err error) {
	root := filepath.Join(s.dir, leavesDir)
	todo := make(chan *readBatch, 16)
	read := make(chan *readBatch, 16)
	var readers sync.WaitGroup
	for range leafReaders() {
		readers.Go(func() { readBatches(todo, read) })
	}
	// walkErr and tempsRemoved are the walker's until it closes todo; the
	// readers finish after that, and read is closed after them.
	var walkErr error
	tempsRemoved := 0
	go func() {
		defer close(todo)
		tempsRemoved, walkErr = walkLeaves(root, todo)
	}()
	go func() { readers.Wait(); close(read) }()
	var batches []*readBatch
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
	slices.SortFunc(batches, func(a, b *readBatch) int { return a.first - b.first })
	return s.sortRead(batches, n)
}

// removeStaleTemps removes the temp files that writes cut short by a crash
// left in the store directory: the log's rewrite (".log.jsonl.*.tmp", which
// a purge writes, holding whatever the log held) and the atomic writes of
// snapshots and settings (".<name>.tmp*"). The caller holds the store lock,
// so no writer owns them; none is ever read. A purge cut short so leaves
// nothing behind that it meant to take back.
func removeStaleTemps(dir string, log *slog.Logger) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.Contains(name, ".tmp") {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("remove leftover temp file %s: %w", name, err)
		}
		n++
	}
	if n > 0 {
		log.Info("removed temp files left by an interrupted write (a purge or a snapshot)", "files", n)
	}
	return nil
}

// walkLeaves walks the leaf directory at root and hands every leaf file to
// the readers through todo, in batches. It removes the temp files crashed
// writes left behind, and returns how many.
func walkLeaves(root string, todo chan<- *readBatch) (tempsRemoved int, err error) {
	cur, n := &readBatch{}, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
			if len(cur.paths) == readBatchLen {
				todo <- cur
				cur = &readBatch{first: n}
			}
		}
		return nil
	})
	if len(cur.paths) > 0 {
		todo <- cur
	}
	return tempsRemoved, err
}

// readBatches is one reader: it reads and parses the files of every batch
// from todo and hands the batch on to read.
func readBatches(todo <-chan *readBatch, read chan<- *readBatch) {
	// One buffer for every file a reader reads: Parse copies what it
	// keeps.
	buf := make([]byte, 16<<10)
	for b := range todo {
		b.leaves = make([]*leaf.Leaf, len(b.paths))
		b.errs = make([]error, len(b.paths))
		for i, path := range b.paths {
			b.leaves[i], buf, b.errs[i] = readLeaf(path, buf)
		}
		read <- b
	}
}

// readLeaf reads and parses the leaf file at path, using buf (returned,
// perhaps grown, for the next file). A file whose name is not its leaf's
// id is malformed.
func readLeaf(path string, buf []byte) (*leaf.Leaf, []byte, error) {
	data, buf, err := readFile(path, buf)
	if err != nil {
		return nil, buf, fmt.Errorf("read leaf: %w", err)
	}
	l, err := leaf.Parse(data)
	if err == nil && filepath.Base(path) != l.ID+leafSuffix {
		err = fmt.Errorf("%w: file name does not match id %s", leaf.ErrMalformed, l.ID)
	}
	if err != nil {
		return nil, buf, err
	}
	return &l, buf, nil
}

// sortRead sorts what the readers read, in walk order, into the leaves
// that loaded and the ids of those that are malformed (logged: replay may
// restore them). Any other error fails the open.
func (s *Store) sortRead(batches []*readBatch, n int) (loaded map[string]*leaf.Leaf, bad map[string]bool, err error) {
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

package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/memo"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// Errors callers tell apart with errors.Is. Each is wrapped with the reason.
var (
	// ErrInvalid: the request is malformed; nothing was changed.
	ErrInvalid = leaf.ErrInvalid
	// ErrNotFound: no memory with that id is visible to the caller.
	ErrNotFound = leaf.ErrNotFound
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
	// Lexicon knows what texts are about and what questions ask for; nil
	// means lexicon.Default().
	Lexicon *lexicon.Lexicon
	// SignalsOff names retrieval signals (recall.Signals) to switch off, for
	// measuring what each one does; none in normal use.
	SignalsOff []string
}

// Store is an open memory store. Only one process may have a store open:
// the daemon holds a lock file for that; the store itself assumes it.
type Store struct {
	dir       string
	log       *slog.Logger
	now       func() time.Time
	reviewAll bool
	extract   *facts.Extractor
	lex       *lexicon.Lexicon
	engine    *recall.Engine // the search pipeline (pkg/recall)
	reqs      chan *request
	leaves    *leafQueue
	written   writtenLeaves                 // leaves whose files were written: see texts.go
	readLog   readLog                       // scope=all reads waiting to be logged: see audit.go
	texts     *memo.Map[string, cachedText] // texts searches read back lately: see texts.go

	mu       sync.RWMutex // guards everything below
	ix       *index.Index
	docs     []*leaf.Leaf // by index.Doc; their texts are in the files (texts.go)
	byID     map[string]index.Doc
	groups   map[string]index.Group // project → group; "" is global (0)
	projects []string               // group → project
	entries  int64                  // log entries
	tl       *timeline.Timeline     // facts and links of live memories
	// likely are the probable supersessions between live memories, from
	// the superseded one to its successors (succession.go).
	likely map[index.Doc][]recall.Edge
	// unsaved are the facts extracted since facts.snapshot was written
	// (see saveFacts): what the snapshot holds is not held twice.
	unsaved map[string][]facts.Fact
	sources map[string][]string // sourceKey → leaves of that document
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
	// definers are, per project group, the memories that define the
	// project and the words they describe it with (recall.SelfWords).
	definers map[index.Group][]recall.Definer
	// indexAt is the log entry count at which the index snapshot on disk
	// was written or read (-1: none fits), so that Close rewrites it only
	// when something changed (snapshot.go).
	indexAt int64
	pending int // memories waiting for review
	gone    int // forgotten or purged memories

	// The summary tree: see tree.go. treeOps and treeTracking are guarded
	// by mu; tree by treeMu, which is only ever taken after mu or alone.
	treeOps      []treeOp
	treeTracking bool
	treeKick     chan struct{}
	treeReqs     chan treeReq
	treeMu       sync.RWMutex
	tree         *tree.Tree
	titles       *memo.Map[string, string] // branch id → title: see branchTitles
	// treeStats is what the tree held after its last change, for Stats to
	// read without waiting for a consolidation (which holds treeMu, at a
	// large store's first start for minutes).
	treeStats atomic.Pointer[tree.Stats]

	// closeMu orders Save against Close: a Save holds it shared while it
	// enqueues, so once Close holds it exclusively every accepted request is
	// in reqs, where the writer's final drain finds it.
	closeMu   sync.RWMutex
	closed    bool
	closeOnce sync.Once
	closing   chan struct{}
	writerErr error
	done      chan struct{} // closed when the writer and leaf writer have stopped
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
	if s.writerErr == nil {
		s.saveIndexAtClose() // a log that failed to close is no state to snapshot
	}
	return s.writerErr
}

func (s *Store) leafPath(id string) string {
	return filepath.Join(s.dir, leavesDir, id[:2], id+leafSuffix)
}

// publishWith adds a durable leaf to the index and, when it is live, to
// the fact timeline, with its facts already extracted (nil: extract them
// here). Callers hold s.mu or run before the store is shared.
func (s *Store) publishWith(l *leaf.Leaf, fs []facts.Fact) {
	s.catalog(l, s.indexLeaf(l), fs)
}

// indexLeaf is publishWith's half that builds the inverted index: the
// leaf's group, its text and its links to its neighbours. It touches only
// s.groups, s.projects, s.lastSaved, s.definers and s.ix — nothing catalog touches —
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
	s.noteSelfWords(l, d, g)
	if !l.Live() {
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
	if !l.Live() {
		return
	}
	s.addFacts(l, fs)
	s.noteTree(l)
}

// noteSelfWords remembers the project's own words a new stated memory
// gives. Callers hold s.mu or run before the store is shared.
func (s *Store) noteSelfWords(l *leaf.Leaf, d index.Doc, g index.Group) {
	if l.Scope != leaf.ScopeProject || recall.KindOf(&l.Header) != recall.KindStated {
		return
	}
	if w := recall.SelfWords(l.Project, l.Text); len(w) > 0 {
		s.definers[g] = append(s.definers[g], recall.Definer{Doc: d, Words: w})
	}
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
// weight (index.Link, index.NeighbourLink): "yes, in May" is found by the
// question the turn before asked, and a question by what answered it. A
// document's blocks take no part (kind.go: lends). Memories are published
// in record order, at every start too, so the links are the same each
// time. Callers hold s.mu.
func (s *Store) linkNeighbours(l *leaf.Leaf, d index.Doc, g index.Group) {
	if l.Session == "" || !lends(l) {
		return
	}
	k := conversation{session: l.Session, day: l.ValidFrom.UTC().Format(time.DateOnly), group: g}
	prev := s.lastSaved[k]
	asks := index.Asks(l.Text)
	for i, p := range prev.docs[:prev.n] {
		toNew, toPrev := index.NeighbourLink(i+1, prev.asks[i], asks)
		s.ix.Link(d, p, toNew, toPrev)
	}
	next := recent{n: min(prev.n+1, neighbours)}
	next.docs[0], next.asks[0] = d, asks
	copy(next.docs[1:], prev.docs[:])
	copy(next.asks[1:], prev.asks[:])
	s.lastSaved[k] = next
}

// recent is the last memories of a conversation, newest first, and
// whether each asks a question.
type recent struct {
	docs [neighbours]index.Doc
	asks [neighbours]bool
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
	if l.Status == leaf.StatusPurged {
		// Under the lock, as the purged header is published: a search
		// that read the text back before now may have cached it.
		s.texts.Delete(l.ID)
		s.engine.Forget(l.ID)
	}
	s.dropProbable(old)
	s.count(old, -1)
	s.count(l, 1)
	s.docs[d] = l
	s.ix.SetLive(d, l.Live())
	s.tl.Remove(l.ID)
	delete(s.unsaved, l.ID)
	if l.Live() {
		s.addFacts(l, fs)
	}
	s.noteTree(l)
}

// addFacts puts a live leaf's facts and links into the timeline. A link to
// a memory that is not live (pending, forgotten) waits until it is.
func (s *Store) addFacts(l *leaf.Leaf, fs []facts.Fact) {
	if fs == nil {
		full := s.shown(l) // every caller passes a leaf with its text; in case one does not
		fs = s.extractFacts(&full)
	}
	s.unsaved[l.ID] = fs
	s.tl.Add(timeline.Source{Leaf: l.ID, Scope: partition(l), ValidFrom: l.ValidFrom, RecordedAt: l.RecordedAt}, fs)
	// Links take effect between live memories of one partition only,
	// whatever an imported or hand-edited header says.
	linkable := func(id string) bool {
		d, ok := s.byID[id]
		return ok && s.docs[d].Live() && partition(s.docs[d]) == partition(l)
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
	s.addProbable(l)
}

// extractFacts extracts a leaf's facts, as its kind allows (recall.KindOf),
// never nil: nil means "not extracted yet" to publishWith and addFacts,
// which would otherwise extract again — in the writer, under the lock.
func (s *Store) extractFacts(l *leaf.Leaf) []facts.Fact {
	s.extractions.Add(1)
	fs := s.extract.ExtractKind(l.Text, factKind(recall.KindOf(&l.Header)))
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

package scratch

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lookup"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

type kind uint8

const (
	kindNote kind = iota
	kindOutput
	kindFile // what read_file handed out: held, never recalled
)

var kindNames = [...]string{kindNote: "note", kindOutput: "output", kindFile: "file"}

// chunk is a searchable run of an entry: a whole note, or some lines of
// an output (so that recall returns the lines that match, not the run).
type chunk struct {
	text        string
	first, last int
	doc         index.Doc
}

type entry struct {
	id      string
	kind    kind
	label   string // an output's label; a file's path
	notedAt time.Time
	seq     int64
	bytes   int64
	chunks  []chunk
	text    string // a file's text
}

func (e *entry) public() Entry {
	return Entry{ID: e.id, Kind: kindNames[e.kind], Label: e.label, NotedAt: e.notedAt}
}

// session is one session's entries, oldest first, and their index.
type session struct {
	entries    []*entry
	files      map[string]*entry
	ix         *index.Index
	docs       map[index.Doc]docRef
	dead       int // hidden documents still in ix
	bytes      int64
	dropped    int
	next       int
	attached   int
	detachedAt time.Time
	lastUsed   time.Time
	lastWrite  time.Time
	// key is the digest of the key that opened the session; every later
	// call must bring the same key (see Sessions.Claim).
	key [32]byte
}

type docRef struct {
	e *entry
	c int
}

func newSession() *session {
	return &session{files: map[string]*entry{}, ix: index.New(), docs: map[index.Doc]docRef{}}
}

func (ss *session) newEntry(k kind, label string, at time.Time) *entry {
	ss.next++
	prefix := "n"
	if k == kindOutput {
		prefix = "o"
	}
	return &entry{id: fmt.Sprintf("%s%d", prefix, ss.next), kind: k, label: label, notedAt: at}
}

// put adds e and indexes its chunks.
func (ss *session) put(e *entry) {
	ss.entries = append(ss.entries, e)
	ss.bytes += e.bytes
	for i := range e.chunks {
		d := ss.ix.Add(e.chunks[i].text, group)
		e.chunks[i].doc = d
		ss.docs[d] = docRef{e, i}
	}
	if e.kind == kindFile {
		ss.files[e.label] = e
	}
}

// remove drops e from the session and hides its chunks; the index is
// rebuilt once hidden documents outnumber the live ones.
func (ss *session) remove(e *entry) {
	i := slices.Index(ss.entries, e)
	if i < 0 {
		return
	}
	ss.entries = slices.Delete(ss.entries, i, i+1)
	ss.bytes -= e.bytes
	if e.kind == kindFile && ss.files[e.label] == e {
		delete(ss.files, e.label)
	}
	for _, c := range e.chunks {
		ss.ix.SetLive(c.doc, false)
		delete(ss.docs, c.doc)
		ss.dead++
	}
	if ss.dead > 64 && ss.dead > ss.ix.Len() {
		ss.reindex()
	}
}

func (ss *session) reindex() {
	ss.ix, ss.docs, ss.dead = index.New(), map[index.Doc]docRef{}, 0
	for _, e := range ss.entries {
		for i := range e.chunks {
			d := ss.ix.Add(e.chunks[i].text, group)
			e.chunks[i].doc = d
			ss.docs[d] = docRef{e, i}
		}
	}
}

// dropOldest drops the oldest entry but keep; false when there is none.
func (ss *session) dropOldest(keep *entry) bool {
	for _, e := range ss.entries {
		if e != keep {
			ss.remove(e)
			return true
		}
	}
	return false
}

func (ss *session) oldestSeq(keep *entry) (int64, bool) {
	for _, e := range ss.entries {
		if e != keep {
			return e.seq, true
		}
	}
	return 0, false
}

func (ss *session) usage(lim Limits) Usage {
	n := 0
	for _, e := range ss.entries {
		if e.kind != kindFile {
			n++
		}
	}
	return Usage{Entries: n, Bytes: ss.bytes, Limit: lim.SessionBytes, DroppedTotal: ss.dropped}
}

// Hit is one note, or some lines of an output, that a recall returns.
type Hit struct {
	Entry
	Text        string
	First, Last int
	Score       float64
}

// Recall is the answer to a recall.
type Recall struct {
	Verdict    verdict.Verdict
	Confidence float64
	// Hits answer (found, or a weak ambiguous match); Candidates are the
	// tied entries of an ambiguous answer, or a not_found's near miss.
	Hits, Candidates []Hit
	Message          string
	Searched         int
	Usage            Usage
}

// maxRecall bounds the hits of one recall.
const maxRecall = 20

// Recall searches session id's notes and outputs for query.
func (s *Sessions) Recall(id, query, clue string, limit int) (Recall, error) {
	if err := validID(id); err != nil {
		return Recall{}, err
	}
	if limit < 0 || limit > maxRecall {
		return Recall{}, fmt.Errorf("%w: limit %d: use 1 to %d, or 0 for the best and two rivals", leaf.ErrInvalid, limit, maxRecall)
	}
	if limit == 0 {
		limit = 3
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.existing(id)
	ix := index.New()
	if ss != nil {
		ix = ss.ix
	}
	a, err := lookup.Search(ix, lookup.Query{Text: query, Clue: clue, Words: func(d index.Doc) []string {
		r := ss.docs[d]
		return tokenize.Terms(r.e.chunks[r.c].text)
	}})
	if err != nil {
		return Recall{}, err
	}
	out := Recall{Verdict: a.Verdict, Confidence: a.Confidence, Searched: a.Searched}
	if ss != nil {
		out.Usage = ss.usage(s.lim)
	}
	hits := make([]Hit, 0, len(a.Shown))
	for _, h := range a.Shown {
		r := ss.docs[h.Doc]
		c := r.e.chunks[r.c]
		hits = append(hits, Hit{Entry: r.e.public(), Text: c.text, First: c.first, Last: c.last, Score: h.Score})
	}
	out.Message = a.Judgment.Message(verdict.Notes, fmt.Sprintf("this session's %d notes and output chunks", a.Searched), a.Terms)
	switch {
	case a.Verdict == verdict.Found:
		out.Hits = hits[:min(limit, len(hits))]
	case a.Verdict == verdict.Ambiguous || len(hits) > 0:
		out.Candidates = hits
	case ss == nil || len(ss.docs) == 0:
		out.Message = "This session has no notes or digested outputs yet."
	}
	return out, nil
}

// Handed returns what read_file last handed session id of path.
func (s *Sessions) Handed(id, path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.existing(id)
	if ss == nil {
		return "", false
	}
	e, ok := ss.files[path]
	if !ok {
		return "", false
	}
	return e.text, true
}

// Hand records that read_file handed session id text as path's content.
// Handed files count against the session's bytes, but never push a note
// out: room is made by forgetting the session's oldest handed files, and
// a file that still does not fit is not remembered — the next read of it
// answers whole again, which costs tokens, never correctness.
func (s *Sessions) Hand(id, path, text string) error {
	if err := validID(id); err != nil {
		return err
	}
	size := int64(len(text))
	if size > s.lim.SessionBytes/2 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.session(id)
	if old := ss.files[path]; old != nil {
		s.total -= old.bytes
		ss.remove(old)
	}
	for ss.bytes+size > s.lim.SessionBytes || s.total+size > s.lim.TotalBytes {
		oldest := ss.oldestFile()
		if oldest == nil {
			return nil
		}
		s.total -= oldest.bytes
		ss.remove(oldest)
	}
	s.seq++
	ss.put(&entry{kind: kindFile, label: path, notedAt: s.now(), text: text, bytes: size, seq: s.seq})
	s.total += size
	return nil
}

// oldestFile is the session's oldest handed file, or nil.
func (ss *session) oldestFile() *entry {
	for _, e := range ss.entries {
		if e.kind == kindFile {
			return e
		}
	}
	return nil
}

func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

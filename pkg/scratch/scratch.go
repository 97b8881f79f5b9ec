// Package scratch holds each agent session's scratch memory in the
// daemon: the notes it keeps, the command outputs it digested, and what
// read_file handed it. None of it is written anywhere — not to the
// long-term store, its search, facts or audit log — and it goes when the
// session does:
//
//   - when no stream of the session has been attached for the grace period
//     (the shim exited, and did not come back: a restart within the grace
//     keeps the notes);
//   - after the TTL without a call, attached or not (a shim left running
//     for days does not keep its notes for ever);
//   - when the daemon stops.
//
// Memory is bounded per session and in total (Limits). Over a bound the
// oldest entries go first — the session's own, or over the total anyone's
// — and the call that made room says how many went. Secrets are refused,
// by the same screen the long-term store uses.
//
// Recall ranks a session's notes and output chunks with package lookup:
// the ranking, clue and verdict of a search of memories.
package scratch

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
)

// Limits bound the scratch memory; the zero value of a field means its
// default.
type Limits struct {
	// Grace is how long a session's entries outlive its last attached
	// stream.
	Grace time.Duration
	// TTL is how long they outlive the session's last call.
	TTL time.Duration
	// SessionBytes bounds one session's notes, outputs and handed files;
	// TotalBytes all sessions together.
	SessionBytes, TotalBytes int64
	// NoteBytes bounds one note, OutputBytes one digested output.
	NoteBytes, OutputBytes int
}

// The defaults: room for a long session's notes and a few large test
// runs, and files read, in a fraction of what the long-term store takes.
const (
	DefaultGrace        = 2 * time.Minute
	DefaultTTL          = 24 * time.Hour
	DefaultSessionBytes = 16 << 20
	DefaultTotalBytes   = 256 << 20
	DefaultNoteBytes    = 64 << 10
	DefaultOutputBytes  = 4 << 20
)

func (l Limits) withDefaults() Limits {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.Grace <= 0 {
		l.Grace = DefaultGrace
	}
	if l.TTL <= 0 {
		l.TTL = DefaultTTL
	}
	def(&l.SessionBytes, DefaultSessionBytes)
	def(&l.TotalBytes, DefaultTotalBytes)
	if l.NoteBytes <= 0 {
		l.NoteBytes = DefaultNoteBytes
	}
	if l.OutputBytes <= 0 {
		l.OutputBytes = DefaultOutputBytes
	}
	l.OutputBytes = int(min(int64(l.OutputBytes), l.SessionBytes))
	l.NoteBytes = int(min(int64(l.NoteBytes), l.SessionBytes))
	return l
}

// Usage is what a session holds against its limits.
type Usage struct {
	Entries                  int
	Bytes, Limit             int64
	DroppedNow, DroppedTotal int
}

// Sessions is every session's scratch memory. It is safe for concurrent
// use; one lock guards it all, since each call is small.
type Sessions struct {
	lim Limits
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]*session
	total    int64
	seq      int64 // orders entries across sessions, oldest first
	stop     chan struct{}
	stopOnce sync.Once
}

// New returns an empty set of sessions and starts sweeping expired ones
// until Close.
func New(lim Limits) *Sessions {
	s := newSessions(lim, time.Now)
	go s.sweepEvery(min(s.lim.Grace/4+time.Millisecond, time.Minute))
	return s
}

func newSessions(lim Limits, now func() time.Time) *Sessions {
	return &Sessions{lim: lim.withDefaults(), now: now, sessions: map[string]*session{}, stop: make(chan struct{})}
}

// Limits returns the limits in force.
func (s *Sessions) Limits() Limits { return s.lim }

// Close stops the sweeping and forgets every session.
func (s *Sessions) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	s.mu.Lock()
	s.sessions, s.total = map[string]*session{}, 0
	s.mu.Unlock()
}

// Done is closed by Close: attached streams end with it.
func (s *Sessions) Done() <-chan struct{} { return s.stop }

func (s *Sessions) sweepEvery(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.Sweep()
		}
	}
}

// Sweep drops the sessions whose grace or TTL has run out, and returns
// how many went.
func (s *Sessions) Sweep() int {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, ss := range s.sessions {
		// The grace runs from the later of the last detach and the last
		// write: reads (a recall) do not hold a session without a shim.
		since := ss.detachedAt
		if ss.lastWrite.After(since) {
			since = ss.lastWrite
		}
		if now.Sub(ss.lastUsed) >= s.lim.TTL || (ss.attached == 0 && now.Sub(since) >= s.lim.Grace) {
			s.total -= ss.bytes
			delete(s.sessions, id)
			n++
		}
	}
	return n
}

// Held reports whether any session holds entries or is attached: while one
// does, a daemon that exits when idle should stay, or the notes go with it.
func (s *Sessions) Held() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions) > 0
}

// Attach marks the session as having a live stream until detach is called.
func (s *Sessions) Attach(id string) (detach func(), err error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	ss := s.session(id)
	ss.attached++
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			ss.attached--
			ss.detachedAt = s.now()
		})
	}, nil
}

// ErrNotYours is a session call whose key is not the one that opened the
// session: a session id is public (every memory names the session that
// wrote it), so it alone opens nothing.
var ErrNotYours = fmt.Errorf("%w: that session belongs to another caller", leaf.ErrPermission)

// minKey is the shortest session key taken: a key is random, at least 128
// bits in hex.
const minKey = 32

// Claim checks that key may use session id: the first key to use an id
// opens the session and holds it for as long as it lives; any other key is
// ErrNotYours. Every session call claims first.
func (s *Sessions) Claim(id, key string) error {
	if err := validID(id); err != nil {
		return err
	}
	if len(key) < minKey {
		return fmt.Errorf("%w: a session call needs its session's key (gRPC metadata ihmt-session-key, at least %d characters), which ihmt-mcp sends", leaf.ErrInvalid, minKey)
	}
	sum := sha256.Sum256([]byte(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[id]
	if ss == nil {
		ss = newSession()
		ss.detachedAt, ss.lastUsed = s.now(), s.now()
		ss.key = sum
		s.sessions[id] = ss
		return nil
	}
	if subtle.ConstantTimeCompare(ss.key[:], sum[:]) != 1 {
		return ErrNotYours
	}
	return nil
}

// session returns the session id, made if new, for a write: it counts as
// used and written now. The caller holds s.mu.
func (s *Sessions) session(id string) *session {
	ss := s.sessions[id]
	if ss == nil {
		ss = newSession()
		s.sessions[id] = ss
		// A session that never attaches keeps its entries for the grace
		// after its last write.
		ss.detachedAt = s.now()
	}
	ss.lastUsed, ss.lastWrite = s.now(), s.now()
	return ss
}

// existing returns the session id if it holds anything, counting as used.
func (s *Sessions) existing(id string) *session {
	ss := s.sessions[id]
	if ss != nil {
		ss.lastUsed = s.now()
	}
	return ss
}

// add puts an entry into a session, then makes room: over the session's
// bound its oldest entries go, over the total the oldest of any session.
// The caller holds s.mu.
func (s *Sessions) add(ss *session, e *entry) Usage {
	s.seq++
	e.seq = s.seq
	ss.put(e)
	s.total += e.bytes
	dropped := 0
	for ss.bytes > s.lim.SessionBytes && ss.dropOldest(e) {
		dropped++
	}
	s.total = 0
	for _, o := range s.sessions {
		s.total += o.bytes
	}
	for s.total > s.lim.TotalBytes {
		victim := s.oldestSession(e)
		if victim == nil {
			break
		}
		before := victim.bytes
		victim.dropOldest(e)
		s.total -= before - victim.bytes
		if victim == ss {
			dropped++
		}
	}
	ss.dropped += dropped
	u := ss.usage(s.lim)
	u.DroppedNow = dropped
	return u
}

// oldestSession is the session holding the oldest entry other than keep.
func (s *Sessions) oldestSession(keep *entry) *session {
	var best *session
	var bestSeq int64
	for _, o := range s.sessions {
		if seq, ok := o.oldestSeq(keep); ok && (best == nil || seq < bestSeq) {
			best, bestSeq = o, seq
		}
	}
	return best
}

// Entry is a note or a digested output as stored.
type Entry struct {
	ID      string
	Kind    string // "note" or "output"
	Label   string
	NotedAt time.Time
}

// Note keeps text as a note of session id.
func (s *Sessions) Note(id, text string) (Entry, Usage, error) {
	if err := validID(id); err != nil {
		return Entry{}, Usage{}, err
	}
	if err := validText("note", text, s.lim.NoteBytes); err != nil {
		return Entry{}, Usage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.session(id)
	e := ss.newEntry(kindNote, "", s.now())
	e.chunks = []chunk{{text: text, first: 1, last: lineCount(text)}}
	e.bytes = int64(len(text))
	u := s.add(ss, e)
	return e.public(), u, nil
}

// validText checks a note's or an output's text: present, bounded, UTF-8,
// and free of secrets.
func validText(what, text string, limit int) error {
	switch {
	case len(text) == 0 || isBlank(text):
		return fmt.Errorf("%w: the %s is empty", leaf.ErrInvalid, what)
	case len(text) > limit:
		return fmt.Errorf("%w: the %s is %d bytes, at most %d: keep what matters", leaf.ErrInvalid, what, len(text), limit)
	case !utf8.ValidString(text):
		return fmt.Errorf("%w: the %s is not valid UTF-8", leaf.ErrInvalid, what)
	}
	for i, r := range text {
		if r == 0 || (r < 0x20 && r != '\n' && r != '\t' && r != '\r') {
			return fmt.Errorf("%w: the %s holds control character %U at byte %d", leaf.ErrInvalid, what, r, i)
		}
	}
	if f := screen.Secrets(text); len(f) > 0 {
		return fmt.Errorf("%w: the %s holds a secret (%s), so it is not kept: leave the secret out and call again", leaf.ErrInvalid, what, f[0])
	}
	return nil
}

// validID checks a session id: the shim's, short and printable.
func validID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: no session id: scratch notes belong to an ihmt-mcp session", leaf.ErrInvalid)
	}
	if len(id) > 128 || !utf8.ValidString(id) {
		return fmt.Errorf("%w: session id %s is not one a shim sends", leaf.ErrInvalid, strconv.Quote(id[:min(len(id), 40)]))
	}
	return nil
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// Group is the one index group every session's entries are in.
const group index.Group = 0

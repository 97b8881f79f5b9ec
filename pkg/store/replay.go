package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

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
	r := newReplayer(s, loaded, bad, lg)
	for _, head := range lg.lines {
		if err := r.apply(head); err != nil {
			return 0, fmt.Errorf("replay log: %w", err)
		}
	}
	if r.damaged > 0 {
		s.log.Warn("the log has damaged lines; they were skipped", "lines", r.damaged, "log", filepath.Join(s.dir, logName))
	}
	if r.strip {
		// A purge was cut short after its entry was durable: finish it.
		n, err := j.Rewrite(stripText(r.purged))
		if err != nil {
			return 0, err
		}
		s.log.Info("finished an interrupted purge: removed text from the log", "entries", n)
	}
	return r.restore()
}

// replayer is one replay of the log over the loaded leaves.
type replayer struct {
	s      *Store
	loaded map[string]*leaf.Leaf // updated as entries apply
	bad    map[string]bool       // unreadable leaf files not restored yet
	lg     *logIndex
	// rewrite holds the leaves an entry changed, in their final state;
	// onDisk their headers as the files show them.
	rewrite map[string]*leaf.Leaf
	onDisk  map[string]leaf.Header
	// purged are the purged leaves whose text a log line may still hold (a
	// crash between the purge entry and the log rewrite): those lines are
	// read in full, and strip says the log must lose that text.
	purged          map[string]bool
	strip           bool
	lineNo, damaged int
	line            []byte // the line read whole last, its buffer reused
}

func newReplayer(s *Store, loaded map[string]*leaf.Leaf, bad map[string]bool, lg *logIndex) *replayer {
	r := &replayer{s: s, loaded: loaded, bad: bad, lg: lg,
		rewrite: map[string]*leaf.Leaf{}, onDisk: map[string]leaf.Header{}, purged: map[string]bool{}}
	for id, l := range loaded {
		if l.Status == leaf.StatusPurged {
			r.purged[id] = true
		}
	}
	return r
}

// change makes l the leaf's new state, to be written to its file.
func (r *replayer) change(l *leaf.Leaf) {
	if cur, ok := r.loaded[l.ID]; ok {
		if _, seen := r.onDisk[l.ID]; !seen && r.rewrite[l.ID] == nil {
			r.onDisk[l.ID] = cur.Header
		}
	}
	r.loaded[l.ID] = l
	r.rewrite[l.ID] = l
}

// skip counts and logs a damaged line.
func (r *replayer) skip(why string, args ...any) {
	r.damaged++
	r.s.log.Warn("skipped a damaged log line", append([]any{"line", r.lineNo, "why", why}, args...)...)
}

// apply applies one line of the log. Only a failure to read the log is an
// error; a damaged line is skipped.
func (r *replayer) apply(head logLine) error {
	r.lineNo++
	// Most entries are saves of a leaf that loaded: the op and id read
	// with the log's index are enough to tell.
	if head.err != nil {
		r.skip("not JSON", "err", head.err)
		return nil
	}
	if _, ok := r.loaded[head.ID]; ok && head.Op == opSave && !r.purged[head.ID] {
		return nil
	}
	if head.Op == opReadAll {
		return nil
	}
	var err error
	if r.line, err = r.lg.line(head, r.line); err != nil {
		return err
	}
	var e entry
	if err := json.Unmarshal(r.line, &e); err != nil {
		r.skip("not an entry", "id", head.ID, "err", err)
		return nil
	}
	if head.Op == opSave || head.Op == opImport {
		r.applyLeaf(head, e)
	} else {
		r.applyHeaders(e)
	}
	return nil
}

// applyLeaf applies an entry that carries a complete leaf: a save or an
// import.
func (r *replayer) applyLeaf(head logLine, e entry) {
	if e.Leaf == nil {
		r.skip("a save without its leaf", "id", head.ID)
		return
	}
	if r.purged[e.ID] {
		r.strip = r.strip || e.Text != ""
		if head.Op == opSave {
			return
		}
	}
	l := &leaf.Leaf{Header: *e.Leaf, Text: e.Text}
	if l.Status == leaf.StatusPurged {
		l.Text = ""
	}
	if (l.Status != leaf.StatusPurged && leaf.Checksum(l.Text) != l.Checksum) || !leaf.IsID(l.ID) || l.ID != head.ID {
		r.skip("fails its checksum", "id", head.ID)
		return
	}
	if cur, ok := r.loaded[l.ID]; ok && headerEqual(cur.Header, l.Header) {
		return
	}
	r.change(l)
	delete(r.bad, l.ID)
}

// applyHeaders applies an entry that carries new headers of stored leaves
// (a link, a forget, a review...).
func (r *replayer) applyHeaders(e entry) {
	for i := range e.Leaves {
		h := e.Leaves[i]
		cur, ok := r.loaded[h.ID]
		if !ok && h.Status == leaf.StatusPurged {
			// Its save lost its text to the purge; the header is all
			// there is, and all it needs.
			r.change(&leaf.Leaf{Header: h})
			continue
		}
		if !ok || headerEqual(cur.Header, h) {
			continue
		}
		l := &leaf.Leaf{Header: h, Text: cur.Text}
		if h.Status == leaf.StatusPurged {
			l.Text = ""
			r.strip = r.strip || !r.purged[h.ID]
			r.purged[h.ID] = true
		}
		r.change(l)
	}
}

// restore writes the leaves whose final state differs from their files,
// and returns how many. Entries are applied one after another, so a leaf
// changed twice may end just as its file already shows it: only a final
// state that differs from the file is written.
func (r *replayer) restore() (int, error) {
	restore := make([]*leaf.Leaf, 0, len(r.rewrite))
	for id, l := range r.rewrite {
		if h, ok := r.onDisk[id]; ok && headerEqual(h, l.Header) && !r.bad[id] {
			continue
		}
		restore = append(restore, l)
	}
	if err := r.s.writeLeaves(restore); err != nil {
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

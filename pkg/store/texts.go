package store

import (
	"fmt"
	"os"
	"sync"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/memo"
)

// Texts live in the leaf files. s.docs holds a memory's text and checksum
// only until its file is written — found on disk at Open, or written by the
// leaf writer after a save — and then a copy without them takes its place
// (dropTexts). Every text stored would otherwise be held twice, in the
// files and in memory, and the collector would double that between
// collections; searches need no text (the index scores them), and the few
// memories an answer shows are read back from their files (withText), a
// small read each.
//
// A leaf whose text is on disk is told by its empty checksum: every leaf
// has one, a purged leaf (whose text is gone) too.

// onDisk reports whether l is a header whose text was left to its file.
func onDisk(l *leaf.Leaf) bool { return l.Checksum == "" }

// withText returns a copy of l with its text and checksum, read from its
// file when s.docs no longer holds them. On an error the copy is l as it
// is: the error says what happened and what to do. Leaf files are replaced
// atomically and a memory's text never changes (its id is derived from
// it), so the file read has the text whichever version of the header it
// carries — unless a purge took the text out since l was read.
func (s *Store) withText(l *leaf.Leaf) (leaf.Leaf, error) {
	out := *l
	if !onDisk(l) {
		return out, nil
	}
	path := s.leafPath(l.ID)
	data, err := os.ReadFile(path)
	var f leaf.Leaf
	if err == nil {
		f, err = leaf.Parse(data)
	}
	switch {
	case err != nil:
	case f.ID != l.ID:
		err = fmt.Errorf("%s holds memory %s", path, f.ID)
	case f.Status == leaf.StatusPurged && l.Status != leaf.StatusPurged:
		// Purged since l was read from s.docs (a reader that let go of
		// the lock): its text is gone for good.
		return out, fmt.Errorf("memory %s was purged meanwhile: ask again", l.ID)
	}
	if err != nil {
		return out, fmt.Errorf("read memory %s: %w (restart ihmtd to restore its file from the log)", l.ID, err)
	}
	out.Text, out.Checksum = f.Text, f.Checksum
	return out, nil
}

// shown is withText for what goes out to a caller: a text that cannot be
// read is logged and left empty rather than failing the whole answer.
func (s *Store) shown(l *leaf.Leaf) leaf.Leaf {
	out, err := s.withText(l)
	if err != nil {
		s.log.Error("a memory's leaf file is unreadable; its text is left out of the answer", "id", l.ID, "err", err)
	}
	return out
}

// docShown is shown for the current header of d, through the cache of the
// texts searches read back lately (cachedText). Callers hold s.mu for
// reading: then s.docs[d] is current, and a header whose text is on disk
// is not purged (a purge takes the lock to write and keeps the checksum),
// so a cached text — a memory's text never changes, its id is derived
// from it — is the file's.
func (s *Store) docShown(d index.Doc) leaf.Leaf {
	l := s.docs[d]
	if !onDisk(l) {
		return *l
	}
	if t, ok := s.texts.Get(l.ID); ok {
		out := *l
		out.Text, out.Checksum = t.text, t.checksum
		return out
	}
	out, err := s.withText(l)
	if err != nil {
		s.log.Error("a memory's leaf file is unreadable; its text is left out of the answer", "id", l.ID, "err", err)
		return out
	}
	s.texts.Put(l.ID, cachedText{text: out.Text, checksum: out.Checksum})
	return out
}

// cachedText is a text read back from its file, kept in s.texts: one
// search asks several times for a text (whom it names, what it holds, then
// to show it), and the next searches ask for the same popular ones. It is
// the one place texts stay in memory after their files are written (with
// the tokenizer's memo of recent texts), and it is bounded by
// maxCachedText bytes.
type cachedText struct{ text, checksum string }

const maxCachedText = 4 << 20

func newTextCache() *memo.Map[string, cachedText] {
	return memo.New(maxCachedText, func(id string, t cachedText) int { return len(id) + len(t.text) + len(t.checksum) })
}

// dropText makes l a header whose text is on disk. Only for a leaf no
// other goroutine can see yet, or a copy.
func dropText(l *leaf.Leaf) {
	if l.Status != leaf.StatusPurged {
		l.Text, l.Checksum = "", ""
	}
}

// writtenLeaves hands the leaves whose files were written from the leaf
// writer to the writer, which alone changes s.docs (it reads it without the
// lock) and so drops their texts (dropTexts).
type writtenLeaves struct {
	mu   sync.Mutex
	ls   []*leaf.Leaf
	kick chan struct{} // capacity 1: the writer has some to take
}

func (w *writtenLeaves) add(ls []*leaf.Leaf) {
	w.mu.Lock()
	w.ls = append(w.ls, ls...)
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default: // a kick is already pending
	}
}

func (w *writtenLeaves) take() []*leaf.Leaf {
	w.mu.Lock()
	defer w.mu.Unlock()
	ls := w.ls
	w.ls = nil
	return ls
}

// dropTexts replaces the leaves whose files were written by copies without
// their texts, unless a newer version has replaced them since (it is queued
// for writing in its turn); the copies leave the leaves readers hold as
// they were. Only the writer calls it. A batch of saves costs one short
// hold of the lock.
func (s *Store) dropTexts() {
	ls := s.written.take()
	if len(ls) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range ls {
		if d, ok := s.byID[l.ID]; ok && s.docs[d] == l && !onDisk(l) && l.Status != leaf.StatusPurged {
			cp := *l
			dropText(&cp)
			s.docs[d] = &cp
		}
	}
}

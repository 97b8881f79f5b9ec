// Package journal is the store's append-only log: one JSON object a line,
// and the point of durability for every mutation.
//
// A batch of lines is written with one write and made durable with one
// fsync, which is what lets concurrent saves share the cost of a sync (group
// commit): the store's writer hands over everything that queued up while
// the previous sync was running. Lines are only appended (the one exception
// is a purge, which removes a text and nothing else: Rewrite), so a crash can
// only damage the last batch: its last line may be cut short, which Open
// cuts off, and since the kernel may write the batch's pages in any order
// before the fsync, a line inside it may hold garbage, which readers must
// skip. Nothing in that batch was acknowledged: acknowledgement waits for
// the fsync.
//
// # A hash chain, so edits show
//
// Every line is a JSON object, and Append adds two fields to it: "prev", the
// hash of the line before, and "hash", the SHA-256 of the line's canonical
// form (its fields but "hash" and "text", sorted by name, compactly encoded)
// — so a changed, removed or reordered line breaks the chain at a point
// Verify can name. The "text" field is left out on purpose: a person may
// purge a memory's text (Rewrite), and that must not break the chain; the
// entry's checksum of the text keeps the text itself verifiable. The chain
// proves the log was not edited in the middle; it cannot tell that lines
// were cut from its end, which needs an anchor kept elsewhere.
package journal

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
)

// opRecovered is the op of the entry Open appends to name lines a crash
// damaged.
const opRecovered = "recovered"

type recovered struct {
	Op      string  `json:"op"`
	Detail  string  `json:"detail"`
	Damaged []int64 `json:"damaged"`
}

// maxBatchLines bounds how many damaged lines at the end of the log Open
// looks past to find where the chain continues; a crash damages at most the
// last batch, and the store's batches are smaller than this.
const maxBatchLines = 1024

// Journal is an open log, positioned for appending. It is not safe for
// concurrent use: the store's single writer owns it.
type Journal struct {
	f       *os.File
	path    string
	size    int64
	entries int64
	last    string // hash of the last line; "" before the first chained line
	lastSeq int64  // the last line's "seq", for the anchor
	anchor  *os.File
}

// Open opens (creating, mode 0600) the log at path, drops a torn last line
// left by a crash, and counts its entries.
func Open(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	j := &Journal{f: f, path: path}
	if err := j.load(); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// lineSpan is where a line of the log is: its offset and length.
type lineSpan struct{ off, n int64 }

// load reads the log Open opened: it counts the entries, cuts a torn tail,
// finds the hash the chain continues from and records crash damage.
func (j *Journal) load() error {
	// The last lines' places, to find the hash the chain continues from: a
	// crash can leave the very last lines damaged.
	var tail [maxBatchLines]lineSpan
	var good int64
	a, _, aerr := readAnchor(j.path)
	atAnchor := ""
	err := scan(j.f, 0, func(off int64, line []byte) error {
		good = off + int64(len(line)) + 1
		tail[j.entries%maxBatchLines] = lineSpan{off, int64(len(line))}
		j.entries++
		if j.entries == a.Entries {
			var l link
			if json.Unmarshal(line, &l) == nil {
				atAnchor = l.Hash
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read log %s: %w", j.path, err)
	}
	if err := j.cutTornTail(good); err != nil {
		return err
	}
	damaged, err := j.chainEnd(&tail)
	if err != nil {
		return fmt.Errorf("read log %s: %w", j.path, err)
	}
	if _, err := j.f.Seek(good, io.SeekStart); err != nil {
		return fmt.Errorf("seek log: %w", err)
	}
	if aerr == nil {
		if err := j.checkAnchor(a, atAnchor); err != nil {
			return err
		}
	}
	if len(damaged) > 0 {
		slices.Sort(damaged)
		rec, _ := json.Marshal(recovered{Op: opRecovered, Damaged: damaged,
			Detail: fmt.Sprintf("%d lines damaged by an interrupted write were skipped; nothing in them was acknowledged", len(damaged))})
		if err := j.Append([][]byte{rec}); err != nil {
			return fmt.Errorf("record damaged log lines: %w", err)
		}
	}
	if err := j.writeAnchor(); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(j.path))
}

// cutTornTail cuts the log back to good, the end of its last complete
// line: bytes after the last newline were never acknowledged.
func (j *Journal) cutTornTail(good int64) error {
	st, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("stat log: %w", err)
	}
	if st.Size() != good {
		if err := j.f.Truncate(good); err != nil {
			return fmt.Errorf("truncate torn log tail: %w", err)
		}
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("sync log: %w", err)
		}
	}
	j.size = good
	return nil
}

// chainEnd walks the tail back, tail holding the places of the last lines:
// the chain continues from the last readable line, and unreadable lines
// there are crash damage, returned (by line number) to be named once in a
// chained "recovered" entry so that Verify can tell them from an edit. The
// walk stops at the last such entry: what lies before it was named
// already.
func (j *Journal) chainEnd(tail *[maxBatchLines]lineSpan) (damaged []int64, err error) {
	found := false
	for i := j.entries - 1; i >= 0 && i >= j.entries-maxBatchLines; i-- {
		sp := tail[i%maxBatchLines]
		line := make([]byte, sp.n)
		if _, err := j.f.ReadAt(line, sp.off); err != nil {
			return nil, err
		}
		var e struct {
			Op   string `json:"op"`
			Hash string `json:"hash"`
		}
		if json.Unmarshal(line, &e) != nil {
			damaged = append(damaged, i+1)
			continue
		}
		if !found {
			j.last, found = e.Hash, true
			var l link
			if json.Unmarshal(line, &l) == nil {
				j.lastSeq = l.Seq
			}
		}
		if e.Op == opRecovered {
			break
		}
	}
	return damaged, nil
}

// Append chains objs (JSON objects on one line each, without "prev" and
// "hash" fields), writes them and fsyncs once. On any error the log is cut
// back to where it was, so a failed append — a full disk, say — leaves no
// partial entry behind, and the caller must report every line of the batch
// as not written.
func (j *Journal) Append(objs [][]byte) error {
	var buf bytes.Buffer
	last := j.last
	for _, o := range objs {
		line, hash, err := chain(o, last)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
		last = hash
	}
	var seq struct {
		Seq int64 `json:"seq"`
	}
	if len(objs) > 0 {
		_ = json.Unmarshal(objs[len(objs)-1], &seq)
	}
	n, err := j.f.Write(buf.Bytes())
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		if n > 0 {
			// Best effort: if this fails too, Open drops the torn tail.
			_ = j.f.Truncate(j.size)
			_, _ = j.f.Seek(j.size, io.SeekStart)
		}
		return fmt.Errorf("append to log: %w", err)
	}
	j.size += int64(n)
	j.entries += int64(len(objs))
	j.last, j.lastSeq = last, seq.Seq
	// The batch is durable; an anchor that fails to follow only lags.
	_ = j.writeAnchor()
	return nil
}

// chain returns obj with "prev" and "hash" added, and its hash.
func chain(obj []byte, prev string) (line []byte, hash string, err error) {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' || bytes.IndexByte(obj, '\n') >= 0 {
		return nil, "", errors.New("journal: an entry must be one JSON object on one line")
	}
	p, _ := json.Marshal(prev)
	withPrev := make([]byte, 0, len(obj)+len(p)+100)
	withPrev = append(withPrev, obj[:len(obj)-1]...)
	if len(obj) > 2 {
		withPrev = append(withPrev, ',')
	}
	withPrev = append(withPrev, `"prev":`...)
	withPrev = append(withPrev, p...)
	withPrev = append(withPrev, '}')
	hash, err = Hash(withPrev)
	if err != nil {
		return nil, "", err
	}
	line = append(withPrev[:len(withPrev)-1], `,"hash":"`...)
	line = append(line, hash...)
	line = append(line, `"}`...)
	return line, hash, nil
}

// Hash returns the chain hash of a log line: SHA-256 of its canonical form,
// every field but "hash" and "text", keys sorted, compact.
func Hash(line []byte) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return "", fmt.Errorf("journal: entry is not a JSON object: %w", err)
	}
	delete(m, "hash")
	delete(m, "text")
	canon, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("journal: canonical form: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// Rewrite replaces the log with every line passed through edit, atomically
// (a temp file, synced, renamed over the log). It is for purging text: edit
// may drop an entry's "text" field, which leaves the chain intact, and must
// change nothing else.
func (j *Journal) Rewrite(edit func(line []byte) ([]byte, error)) (changed int, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(j.path), "."+filepath.Base(j.path)+".*.tmp")
	if err != nil {
		return 0, fmt.Errorf("rewrite log: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	w := bufio.NewWriterSize(tmp, 1<<16)
	var size int64
	err = scan(j.f, 0, func(_ int64, line []byte) error {
		out, err := edit(line)
		if err != nil {
			return err
		}
		if !bytes.Equal(out, line) {
			changed++
		}
		if bytes.IndexByte(out, '\n') >= 0 {
			return errors.New("journal: an edited line contains a newline")
		}
		w.Write(out)
		w.WriteByte('\n')
		size += int64(len(out)) + 1
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("rewrite log: %w", err)
	}
	if err := os.Rename(tmp.Name(), j.path); err != nil {
		return 0, fmt.Errorf("rewrite log: %w", err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(j.path)); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(j.path, os.O_RDWR, 0o600)
	if err != nil {
		return 0, fmt.Errorf("reopen log: %w", err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return 0, fmt.Errorf("seek log: %w", err)
	}
	j.f.Close()
	j.f, j.size = f, size
	return changed, nil
}

// Problem is one break in the chain.
type Problem struct {
	Line   int64  // 1-based line number
	Seq    int64  // the entry's "seq" field as written, if it has one
	Kind   string // "changed", "removed", "reordered" or "unreadable"
	Detail string
}

// Report is the outcome of Verify.
type Report struct {
	Entries   int64
	Unchained int64 // lines written before chaining began
	// Damaged lists lines that are not readable entries, and lines that
	// chain only to such a line: what a crash in the middle of a write
	// leaves (nothing in that batch was acknowledged). They are reported
	// apart from Problems, which are edits.
	Damaged  []int64
	Problems []Problem
	// Anchor is the state of the log's anchor (see anchor.go): "ok",
	// "missing" or "damaged". A log that falls short of it is a Problem.
	Anchor string
}

// maxProblems bounds a report: after the first break, later ones are
// usually consequences of it.
const maxProblems = 20

// Verify walks the chain of the log at path. check, if not nil, is called
// for every line and may report a problem with its content (a text that no
// longer matches its checksum, say) as an error.
func Verify(path string, check func(line []byte) error) (Report, error) {
	v := &verifier{check: check, named: map[int64]bool{}}
	if err := Read(path, v.read); err != nil {
		return Report{}, err
	}
	v.walk()
	// What is missing from the end comes first: it is never a consequence
	// of another problem.
	var probs []Problem
	probs, v.rep.Anchor = anchorProblems(path, v.lines, v.cuts)
	v.problems = append(probs, v.problems...)
	v.problems = v.problems[:min(len(v.problems), maxProblems)]
	slices.SortStableFunc(v.problems, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	v.rep.Problems = v.problems
	return v.rep, nil
}

// link is a log line as the chain sees it.
type link struct {
	Seq     int64  `json:"seq"`
	Prev    string `json:"prev"`
	Hash    string `json:"hash"`
	damaged bool
}

// verifier is Verify's state: the lines read, what recovered entries name,
// the report so far.
type verifier struct {
	check    func(line []byte) error
	lines    []link
	named    map[int64]bool // lines a recovered entry names as crash damage
	rep      Report
	problems []Problem
	cuts     []Problem // what cut entries Open appended say is missing
}

// add records a problem, up to maxProblems.
func (v *verifier) add(p Problem) {
	if len(v.problems) < maxProblems {
		v.problems = append(v.problems, p)
	}
}

// read takes in one line: its place in the chain, the damage it names, and
// whether its own content still matches its hash (and check).
func (v *verifier) read(line []byte) error {
	v.rep.Entries++
	n := v.rep.Entries
	var l link
	if err := json.Unmarshal(line, &l); err != nil {
		v.lines = append(v.lines, link{damaged: true})
		return nil
	}
	var r recovered
	if json.Unmarshal(line, &r) == nil && r.Op == opRecovered {
		for _, d := range r.Damaged {
			v.named[d] = true
		}
	}
	if r.Op == opCut {
		v.cuts = append(v.cuts, Problem{Line: n, Seq: l.Seq, Kind: "removed", Detail: "found when the log was opened: " + r.Detail})
	}
	v.lines = append(v.lines, l)
	if l.Hash == "" {
		if len(v.lines) > 1 && v.lines[len(v.lines)-2].Hash != "" {
			v.add(Problem{Line: n, Seq: l.Seq, Kind: "changed", Detail: "the entry has no hash, but the entries before it do"})
		} else {
			v.rep.Unchained++
		}
		return nil
	}
	if h, err := Hash(line); err != nil || h != l.Hash {
		v.add(Problem{Line: n, Seq: l.Seq, Kind: "changed", Detail: "its content no longer matches its hash"})
	} else if v.check != nil {
		if err := v.check(line); err != nil {
			v.add(Problem{Line: n, Seq: l.Seq, Kind: "changed", Detail: err.Error()})
		}
	}
	return nil
}

// walk follows the chain from line to line, telling crash damage from
// edits.
func (v *verifier) walk() {
	lines := v.lines
	at := make(map[string]int, len(lines))
	for i, l := range lines {
		if l.Hash != "" {
			at[l.Hash] = i
		}
	}
	prev := ""
	for i, l := range lines {
		if l.damaged {
			if v.named[int64(i+1)] {
				v.rep.Damaged = append(v.rep.Damaged, int64(i+1))
			} else {
				v.add(Problem{Line: int64(i + 1), Kind: "changed", Detail: "not a readable entry, and no crash recovery names it"})
			}
			continue // the chain continues past it from the last good hash
		}
		if l.Hash == "" {
			prev = ""
			continue
		}
		if l.Prev != prev && i > 0 && lines[i-1].damaged && v.named[int64(i)] {
			// Written in the same batch as the damaged line before it.
			v.rep.Damaged = append(v.rep.Damaged, int64(i+1))
		} else if l.Prev != prev {
			v.add(v.breakAt(i, prev, at))
		}
		prev = l.Hash
	}
}

// breakAt says what broke the chain at line index i, which does not follow
// prev, the hash of the line before; at finds a line by its hash.
func (v *verifier) breakAt(i int, prev string, at map[string]int) Problem {
	lines, l := v.lines, v.lines[i]
	p := Problem{Line: int64(i + 1), Seq: l.Seq}
	switch j, ok := at[l.Prev]; {
	case ok && j > i:
		p.Kind, p.Detail = "reordered", fmt.Sprintf("it follows line %d's entry, which now comes after it", j+1)
	case l.Prev == "" && prev != "":
		p.Kind, p.Detail = "changed", "it claims to start the chain, but entries come before it"
	case i > 0 && l.Seq > 0 && l.Seq == lines[i-1].Seq+1:
		// Nothing is missing, so the entry before was edited and its own
		// hash recomputed to match.
		p = Problem{Line: int64(i), Seq: lines[i-1].Seq, Kind: "changed",
			Detail: "edited and re-hashed: the next entry no longer chains to it"}
	default:
		p.Kind, p.Detail = "removed", "the entry it follows is missing"
		if prevSeq := lines[max(i-1, 0)].Seq; l.Seq > prevSeq+1 && i > 0 {
			p.Detail = fmt.Sprintf("entries %d to %d are missing", prevSeq+1, l.Seq-1)
			if l.Seq == prevSeq+2 {
				p.Detail = fmt.Sprintf("entry %d is missing", prevSeq+1)
			}
		}
	}
	return p
}

// Entries returns the number of lines in the log.
func (j *Journal) Entries() int64 { return j.entries }

// Size returns the log's length in bytes.
func (j *Journal) Size() int64 { return j.size }

// Close syncs and closes the log.
func (j *Journal) Close() error {
	if j.anchor != nil {
		j.anchor.Close()
	}
	if err := j.f.Sync(); err != nil {
		j.f.Close()
		return fmt.Errorf("sync log: %w", err)
	}
	return j.f.Close()
}

// Read calls fn for every complete line of the log at path, in order. A
// missing log reads as empty.
func Read(path string, fn func(line []byte) error) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	defer f.Close()
	return scan(f, 0, func(_ int64, line []byte) error { return fn(line) })
}

// Scan calls fn for every complete line of r from byte offset from on, in
// order, with the line's offset, so that a reader can keep where a line is
// and read it again later (io.ReaderAt) instead of keeping it. The line is
// valid only during the call. An unterminated last line is not an entry
// and is not read.
func Scan(r io.ReaderAt, from int64, fn func(off int64, line []byte) error) error {
	return scan(r, from, fn)
}

// scan calls fn with the offset and content of each newline-terminated line.
func scan(r io.ReaderAt, from int64, fn func(off int64, line []byte) error) error {
	br := bufio.NewReaderSize(io.NewSectionReader(r, from, 1<<62), 1<<16)
	off := from
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it whole.
			full := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if err == io.EOF {
			return nil // an unterminated tail is not an entry
		}
		if err != nil {
			return err
		}
		if cbErr := fn(off, line[:len(line)-1]); cbErr != nil {
			return cbErr
		}
		off += int64(len(line))
	}
}

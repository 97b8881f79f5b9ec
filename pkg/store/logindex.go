package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/ihmt-dev/ihmt/pkg/journal"
)

// logIndex is what Open reads of every line of the log, while the leaf
// files load: where the line is, and its op and id. That is all replay
// needs of most lines — saves of leaves whose files loaded — so it reads
// again only the few lines it needs whole, instead of keeping the log (the
// size of every text stored) in memory or reading it twice.
type logIndex struct {
	path  string
	f     *os.File // nil while there is no log
	lines []logLine
	end   int64 // just past the last complete line read
}

// logLine is one line of the log, as logIndex keeps it.
type logLine struct {
	off int64
	n   int
	// Op and ID are the line's; err is set when the line is not JSON, or
	// not a JSON object.
	Op, ID string
	err    error
	// id is where ID is in the ids of the part of the log it was read
	// with, until ID is set.
	id [2]int
}

// openLogIndex reads the log at path, if there is one, into a logIndex.
// The returned logIndex is usable (and must be closed) even with an error.
func openLogIndex(path string) (*logIndex, error) {
	lg := &logIndex{path: path}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return lg, nil // journal.Open creates it
	}
	if err != nil {
		return lg, fmt.Errorf("replay log: open log: %w", err)
	}
	lg.f = f
	return lg, lg.read()
}

// readMore reads the lines appended to the log since it was last read,
// opening it if it did not exist then.
func (lg *logIndex) readMore() error {
	if lg.f == nil {
		f, err := os.Open(lg.path)
		if err != nil {
			return fmt.Errorf("replay log: open log: %w", err)
		}
		lg.f = f
	}
	return lg.read()
}

// read reads op and id of every complete line from lg.end on. Decoding
// them is the costly part (a large store's log holds every text it ever
// stored), so the log is cut into parts at line starts, one for each
// processor, read side by side.
func (lg *logIndex) read() error {
	st, err := lg.f.Stat()
	if err != nil {
		return fmt.Errorf("replay log: %w", err)
	}
	parts := 1
	if st.Size()-lg.end >= 1<<20 {
		parts = runtime.GOMAXPROCS(0)
	}
	bounds := []int64{lg.end}
	for k := 1; k < parts; k++ {
		b, err := lineStart(lg.f, lg.end+(st.Size()-lg.end)*int64(k)/int64(parts))
		if err != nil {
			return fmt.Errorf("replay log: %w", err)
		}
		if b > bounds[len(bounds)-1] {
			bounds = append(bounds, b)
		}
	}
	// The last part reads to the end, whatever the end is now.
	bounds = append(bounds, 1<<62)
	lines := make([][]logLine, len(bounds)-1)
	ends := make([]int64, len(bounds)-1)
	errs := make([]error, len(bounds)-1)
	var wg sync.WaitGroup
	for i := range lines {
		wg.Go(func() {
			ends[i] = bounds[i]
			// The ids go into one string for the part rather than a small
			// one each: they are garbage once replay is done, and small
			// ones would be scattered among the leaves that stay.
			var ids []byte
			errs[i] = journal.Scan(io.NewSectionReader(lg.f, 0, bounds[i+1]), bounds[i], func(off int64, line []byte) error {
				ln := logLine{off: off, n: len(line)}
				var id []byte
				ln.Op, id, ln.err = logHead(line)
				ln.id = [2]int{len(ids), len(ids) + len(id)}
				ids = append(ids, id...)
				lines[i] = append(lines[i], ln)
				ends[i] = off + int64(len(line)) + 1
				return nil
			})
			all := string(ids)
			for k := range lines[i] {
				lines[i][k].ID = all[lines[i][k].id[0]:lines[i][k].id[1]]
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("replay log: %w", err)
	}
	for i := range lines {
		lg.lines = append(lg.lines, lines[i]...)
		lg.end = max(lg.end, ends[i])
	}
	return nil
}

// lineStart returns the offset of the first line that starts at or after
// off in r, or where r ends when no line does.
func lineStart(r io.ReaderAt, off int64) (int64, error) {
	if off == 0 {
		return 0, nil
	}
	// The line starts after the first newline from off-1 on: off itself
	// starts one when the byte before it ends a line.
	buf := make([]byte, 64<<10)
	for at := off - 1; ; at += int64(len(buf)) {
		n, err := r.ReadAt(buf, at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1, nil
		}
		if err == io.EOF {
			return at + int64(n), nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// line reads the whole of ln again, into buf when it is large enough.
func (lg *logIndex) line(ln logLine, buf []byte) ([]byte, error) {
	if cap(buf) < ln.n {
		buf = make([]byte, ln.n)
	}
	buf = buf[:ln.n]
	if _, err := lg.f.ReadAt(buf, ln.off); err != nil {
		return nil, fmt.Errorf("read log line at byte %d: %w", ln.off, err)
	}
	return buf, nil
}

func (lg *logIndex) close() {
	if lg.f != nil {
		lg.f.Close()
		lg.f = nil
	}
}

// logHead returns the op and id of a log line exactly as
// json.Unmarshal(line, &logHeadJSON{}) would, error included, at a third
// of the cost: decoding the whole line (most of it the leaf's header and
// text) to find two short fields was most of reading a large log. A line
// that is not valid JSON, or whose op or id scanHead cannot read plainly,
// goes to json.Unmarshal itself.
//
// The id returned is valid only as long as line.
func logHead(line []byte) (op string, id []byte, err error) {
	if json.Valid(line) {
		if op, id, ok := scanHead(line); ok {
			return opName(op), id, nil
		}
	}
	var head logHeadJSON
	if err := json.Unmarshal(line, &head); err != nil {
		return "", nil, err
	}
	return head.Op, []byte(head.ID), nil
}

// opName returns op as a string, without allocating one for the ops the
// store writes.
func opName(op []byte) string {
	switch string(op) {
	case opSave:
		return opSave
	case opReadAll:
		return opReadAll
	case opImport:
		return opImport
	}
	return string(op)
}

// logHeadJSON is what replay decodes of every log line. It is declared
// inline, as it always was, so that the error reported for a damaged line
// names the same type.
type logHeadJSON = struct {
	Op string `json:"op"`
	ID string `json:"id"`
}

// scanHead reads the "op" and "id" members of a JSON object, which the
// caller has checked is valid JSON, the way encoding/json assigns them to
// logHeadJSON: a later member overrides an earlier one, keys match without
// regard to case, and null leaves a field as it was. It gives up (ok false)
// on anything where encoding/json might do more: a top level that is not
// an object, a key that is not plain ASCII (escapes; non-ASCII letters can
// fold to ASCII ones), a value for op or id that is not null or a plain
// ASCII string.
func scanHead(b []byte) (op, id []byte, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, nil, false
		}
		switch b[i] {
		case '}':
			return op, id, true
		case ',':
			i = skipSpace(b, i+1)
		}
		key, next, plain := plainString(b, i)
		if !plain {
			return nil, nil, false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(b, i+1)
		var field *[]byte
		switch {
		case asciiFold2(key, 'o', 'p'):
			field = &op
		case asciiFold2(key, 'i', 'd'):
			field = &id
		}
		if field == nil {
			if i = skipValue(b, i); i < 0 {
				return nil, nil, false
			}
			continue
		}
		if bytes.HasPrefix(b[i:], []byte("null")) {
			i += len("null")
			continue
		}
		v, next, plain := plainString(b, i)
		if !plain {
			return nil, nil, false
		}
		*field = v
		i = next
	}
}

// plainString returns the content of the JSON string at b[i], and the
// index after it, when it is plain: ASCII without escapes.
func plainString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c >= 0x80:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipValue returns the index just after the valid JSON value at b[i], or
// -1 if it runs off the end.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			// The closing quote is the first one not escaped: preceded by
			// an even number of backslashes.
			j := i + 1
			for {
				k := bytes.IndexByte(b[j:], '"')
				if k < 0 {
					return -1
				}
				j += k
				n := 0
				for n < j-i-1 && b[j-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
				j++
			}
			i = j + 1
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			depth--
			i++
		case ',':
			if depth == 0 {
				return i
			}
			i++
		default:
			// A number, true, false, null or white space.
			i++
		}
		if depth == 0 && i < len(b) && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// asciiFold2 reports whether the two-byte key equals a followed by z,
// ignoring ASCII case; a and z are lower case.
func asciiFold2(key []byte, a, z byte) bool {
	return len(key) == 2 && key[0]|0x20 == a && key[1]|0x20 == z
}

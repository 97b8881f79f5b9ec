package journal

import (
	"encoding/json"
	"fmt"
	"os"
)

// The hash chain proves the log was not edited in the middle, but lines
// cut from its end, or a log emptied, leave a shorter chain that is still
// whole. So the journal keeps an anchor beside the log (<log>.anchor): the
// number of entries, the hash and seq of the last one. It is rewritten
// after every append, and Verify checks that the log still reaches it.
//
// The anchor is written after the log's fsync and is not itself fsynced: a
// crash can leave it behind the log (an anchor that lags is consistent:
// the log holds at least what it records), never ahead of it. What it
// cannot survive is being deleted with the log; the store therefore also
// checks its leaves against the log (see store.VerifyAudit). When Open
// finds the log short of its anchor it appends a "cut" entry that names
// what is missing, so the evidence stays in the chain after the anchor
// moves on.

// opCut is the op of the entry Open appends when the log no longer reaches
// its anchor.
const opCut = "cut"

// anchor is the anchor file's content.
type anchor struct {
	Entries int64  `json:"entries"`
	Last    string `json:"last"`
	Seq     int64  `json:"seq,omitempty"`
}

// AnchorPath is where the anchor of the log at path is kept.
func AnchorPath(path string) string { return path + ".anchor" }

// readAnchor reads the anchor of the log at path; ok is false when there
// is none.
func readAnchor(path string) (a anchor, ok bool, err error) {
	data, err := os.ReadFile(AnchorPath(path))
	if os.IsNotExist(err) {
		return anchor{}, false, nil
	}
	if err != nil {
		return anchor{}, false, fmt.Errorf("read log anchor: %w", err)
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return anchor{}, true, fmt.Errorf("log anchor %s is damaged: %w", AnchorPath(path), err)
	}
	return a, true, nil
}

// anchorSize is the anchor file's fixed length: its JSON, padded with
// spaces. Every append rewrites it in place with one write, well under a
// disk sector, instead of a new file and a rename each time — the writer
// pays for it on every batch.
const anchorSize = 256

// writeAnchor records the log's current end. It is best effort (see the
// top of this file): an anchor that lags is harmless, so an error is
// returned for the caller to report but does not undo an append.
func (j *Journal) writeAnchor() error {
	if j.anchor == nil {
		f, err := os.OpenFile(AnchorPath(j.path), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("write log anchor: %w", err)
		}
		if err := f.Truncate(anchorSize); err != nil {
			f.Close()
			return fmt.Errorf("write log anchor: %w", err)
		}
		j.anchor = f
	}
	data, _ := json.Marshal(anchor{Entries: j.entries, Last: j.last, Seq: j.lastSeq})
	buf := make([]byte, anchorSize)
	for i := copy(buf, data); i < anchorSize; i++ {
		buf[i] = ' '
	}
	buf[anchorSize-1] = '\n'
	if _, err := j.anchor.WriteAt(buf, 0); err != nil {
		return fmt.Errorf("write log anchor: %w", err)
	}
	return nil
}

// cutEntry describes, as a log entry, how the log fell short of its
// anchor at Open.
type cutEntry struct {
	Op      string `json:"op"`
	Detail  string `json:"detail"`
	Entries int64  `json:"anchor_entries"`
	Seq     int64  `json:"anchor_seq,omitempty"`
}

// shortOf says how a log of n entries, whose line at a.Entries has hash
// atAnchor ("" when the log is shorter), falls short of anchor a; "" when
// it does not.
func shortOf(a anchor, n int64, atAnchor string) string {
	switch {
	case a.Entries == 0:
		return ""
	case n == 0:
		return fmt.Sprintf("the log is empty, but its anchor records %d entries (the last, seq %d): all of them are missing", a.Entries, a.Seq)
	case n == a.Entries-1:
		return fmt.Sprintf("the log ends at entry %d, but its anchor records %d (the last, seq %d): entry %d was cut off", n, a.Entries, a.Seq, a.Entries)
	case n < a.Entries:
		return fmt.Sprintf("the log ends at entry %d, but its anchor records %d (the last, seq %d): entries %d to %d were cut off", n, a.Entries, a.Seq, n+1, a.Entries)
	case atAnchor != a.Last:
		return fmt.Sprintf("entry %d is not the one the anchor records as the log's last (seq %d): the log was cut and written again after it", a.Entries, a.Seq)
	}
	return ""
}

// checkAnchor compares the log Open just read with its anchor and, when the
// log falls short, appends a cut entry naming what is missing.
func (j *Journal) checkAnchor(a anchor, atAnchor string) error {
	why := shortOf(a, j.entries, atAnchor)
	if why == "" {
		return nil
	}
	rec, _ := json.Marshal(cutEntry{Op: opCut, Detail: why, Entries: a.Entries, Seq: a.Seq})
	if err := j.Append([][]byte{rec}); err != nil {
		return fmt.Errorf("record that the log was cut: %w", err)
	}
	return nil
}

// anchorProblems is what Verify reports about the anchor: the log falling
// short of it, and every cut entry an Open recorded.
func anchorProblems(path string, lines []link, cuts []Problem) ([]Problem, string) {
	a, ok, err := readAnchor(path)
	state := "ok"
	var out []Problem
	switch {
	case err != nil:
		state = "damaged"
		out = append(out, Problem{Line: int64(len(lines)), Kind: "removed", Detail: err.Error()})
	case !ok:
		state = "missing"
	default:
		at := ""
		if a.Entries >= 1 && a.Entries <= int64(len(lines)) {
			at = lines[a.Entries-1].Hash
		}
		if why := shortOf(a, int64(len(lines)), at); why != "" {
			out = append(out, Problem{Line: min(a.Entries, int64(len(lines))+1), Seq: a.Seq, Kind: "removed", Detail: why})
		}
	}
	return append(cuts, out...), state
}

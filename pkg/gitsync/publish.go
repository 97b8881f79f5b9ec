package gitsync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/screen"
	"github.com/ihmt-dev/ihmt/pkg/version"
)

func leafAgent() leaf.Agent { return leaf.Agent{Name: "ihmt sync", Version: version.Version} }

// appendBatch bounds the lines one journal append writes.
const appendBatch = 4096

// publish writes every version of the store's memories that this device
// has not published yet into the work tree, and lists each in the
// device's journal — the file first, so a journal line never names a file
// that is not there. Each version is screened for secrets again: what the
// screen refuses (a secret a newer screen knows, a hand-edited leaf) is
// named in the report and never leaves this machine. A purge removes every
// other version of the memory, which holds its text, from the work tree.
func (s *Syncer) publish(ctx context.Context, device string, rep *Report) error {
	jpath := journalPath(s.tree, device)
	if err := os.MkdirAll(filepath.Dir(jpath), 0o700); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	j, err := journal.Open(jpath) // cuts a line a killed sync left torn
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	defer j.Close()
	published, _, err := readPublished(jpath)
	if err != nil {
		return fmt.Errorf("publish: read %s: %w", jpath, err)
	}
	var files []atomicfile.File
	var lines [][]byte
	purged := map[string]bool{}
	seq := j.Entries()
	for offset := 0; ; {
		recs, next, err := s.store.SyncRecords(offset)
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		for _, r := range recs {
			data := fileData(r)
			sum := digest(data)
			if _, ok := published[sum]; ok {
				continue
			}
			rec, err := decodeRecord(data)
			if err != nil {
				return fmt.Errorf("publish: the store exported %w", err)
			}
			if why := screenOutgoing(rec); why != "" {
				rep.Refused = append(rep.Refused, Refused{Outgoing: true, ID: rec.ID, Reason: why})
				continue
			}
			published[sum] = publication{}
			p := recordPath(rec.ID, sum)
			if !holds(filepath.Join(s.tree, p), data) {
				files = append(files, atomicfile.File{Path: filepath.Join(s.tree, p), Data: data})
			}
			seq++
			line, _ := json.Marshal(publication{Seq: seq, Time: s.now().UTC(), Op: opPublish, Device: device, ID: rec.ID, Record: sum, Status: rec.Status})
			lines = append(lines, line)
			if rec.Status == leaf.StatusPurged {
				purged[rec.ID] = true
			}
		}
		if next == 0 {
			break
		}
		offset = next
	}
	if err := atomicfile.WriteBatch(files, 0o600); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	for len(lines) > 0 {
		n := min(len(lines), appendBatch)
		if err := j.Append(lines[:n]); err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		rep.Published += n
		lines = lines[n:]
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	_, err = s.prune(sortedKeys(purged))
	return err
}

// holds reports whether the file at path holds exactly data.
func holds(path string, data []byte) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Equal(b, data)
}

// screenOutgoing screens a version before it leaves the machine, as an
// import screens it on arrival: its text and every field a person or
// agent wrote. It returns what it found, "" when nothing.
func screenOutgoing(r record) string {
	found := screen.Secrets(r.Text)
	found = append(found, screen.Field("tags", strings.Join(r.Tags, " "))...)
	found = append(found, screen.Field("domain", r.Domain)...)
	found = append(found, screen.Field("title", r.Title)...)
	found = append(found, screen.Field("review note", r.ReviewNote)...)
	if r.Tombstone != nil {
		found = append(found, screen.Field("reason", r.Tombstone.Reason)...)
	}
	if len(found) == 0 {
		return ""
	}
	return "it holds " + found[0].String() + ": secrets never leave this machine; forget and purge the memory (ihmt forget, ihmt purge) to stop seeing this"
}

// prune removes, for each purged memory, every version of it that still
// holds its text from the work tree (the next commit records the
// removal). It returns how many files it removed.
func (s *Syncer) prune(ids []string) (int, error) {
	removed := 0
	for _, id := range ids {
		dir := filepath.Join(s.tree, memoriesDir, id[:2], id)
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("prune %s: %w", id, err)
		}
		var keep, drop []string
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(p)
			if err != nil {
				return removed, fmt.Errorf("prune %s: %w", id, err)
			}
			if r, err := decodeRecord(data); err == nil && r.Status == leaf.StatusPurged && r.Text == "" {
				keep = append(keep, p)
			} else {
				drop = append(drop, p)
			}
		}
		if len(keep) == 0 {
			continue
		}
		for _, p := range drop {
			if err := os.Remove(p); err != nil {
				return removed, fmt.Errorf("prune %s: %w", id, err)
			}
			removed++
		}
	}
	return removed, nil
}

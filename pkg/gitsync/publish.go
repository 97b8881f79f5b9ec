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
//
// It returns, for each memory of which it published a version or of which
// the work tree holds several, the digest of the store's version: what
// rejoin checks against the join of them all.
func (s *Syncer) publish(ctx context.Context, device string, rep *Report) (current map[string]string, err error) {
	jpath := journalPath(s.tree, device)
	if err := os.MkdirAll(filepath.Dir(jpath), 0o700); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	j, err := journal.Open(jpath) // cuts a line a killed sync left torn
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	defer j.Close()
	published, versions, err := s.known()
	if err != nil {
		return nil, err
	}
	current = map[string]string{}
	var files []atomicfile.File
	var lines [][]byte
	published0 := rep.Published
	purged := map[string]bool{}
	seq := j.Entries()
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	for offset := 0; ; {
		recs, next, err := st.SyncRecords(offset)
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		for _, r := range recs {
			data := fileData(r)
			sum := digest(data)
			if p, ok := published[sum]; ok {
				if versions[p.ID] > 1 {
					current[p.ID] = sum
				}
				continue
			}
			rec, err := decodeRecord(data)
			if err != nil {
				return nil, fmt.Errorf("publish: the store exported %w", err)
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
			current[rec.ID] = sum
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
		return nil, fmt.Errorf("publish: %w", err)
	}
	for len(lines) > 0 {
		n := min(len(lines), appendBatch)
		if err := j.Append(lines[:n]); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		rep.Published += n
		lines = lines[n:]
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	removed, err := s.prune(sortedKeys(purged))
	if err != nil {
		return nil, err
	}
	s.dirty = s.dirty || len(files) > 0 || published0 != rep.Published || removed > 0
	return current, nil
}

// known reads every device's journal: the versions published by any, by
// digest, and how many versions of each memory they list. A version
// another device published is not published again.
func (s *Syncer) known() (map[string]publication, map[string]int, error) {
	devs, err := devices(s.tree)
	if err != nil {
		return nil, nil, err
	}
	all := map[string]publication{}
	versions := map[string]int{}
	for _, d := range devs {
		pubs, _, err := readPublished(journalPath(s.tree, d))
		if err != nil {
			return nil, nil, fmt.Errorf("publish: read the journal of %s: %w", d, err)
		}
		for sum, p := range pubs {
			if _, ok := all[sum]; !ok {
				all[sum] = p
				versions[p.ID]++
			}
		}
	}
	return all, versions, nil
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

// rejoin hands the store every version the work tree holds of a memory
// whose version in the store (current: id → digest) is not the join of
// them all: the store then holds that join, as every other machine does.
// It is what undoes here a restore of a memory forgotten elsewhere, which
// every other machine undoes on arrival (see leaf.Join).
func (s *Syncer) rejoin(ctx context.Context, device string, current map[string]string, rep *Report) error {
	known, _, err := s.known()
	if err != nil {
		return err
	}
	var as []arrival
	for _, id := range sortedKeys(current) {
		vs, err := s.versions(id, known)
		if err != nil {
			return err
		}
		if len(vs) < 2 {
			continue
		}
		var joined leaf.Leaf
		for i, a := range vs {
			r, err := decodeRecord([]byte(a.data))
			if err != nil {
				continue // refused on arrival, if it is someone's
			}
			l := leaf.Leaf{Header: r.Header, Text: r.Text}
			if i == 0 {
				joined = l
			} else {
				joined = leaf.Join(joined, l)
			}
		}
		b, err := json.Marshal(record{Header: joined.Header, Text: joined.Text})
		if err == nil && digest(fileData(string(b))) == current[id] {
			continue
		}
		for i := range vs {
			vs[i].device = device
		}
		as = append(as, vs...)
	}
	if len(as) == 0 {
		return nil
	}
	var joined Report
	if err := s.merge(ctx, device, as, &joined); err != nil {
		return err
	}
	rep.Admitted += joined.Admitted
	rep.Refused = append(rep.Refused, joined.Refused...)
	return nil
}

// versions reads every version of memory id in the work tree that a
// device's journal lists under its digest.
func (s *Syncer) versions(id string, known map[string]publication) ([]arrival, error) {
	dir := filepath.Join(s.tree, memoriesDir, id[:2], id)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the versions of %s: %w", id, err)
	}
	var out []arrival
	for _, e := range ents {
		p := filepath.ToSlash(filepath.Join(memoriesDir, id[:2], id, e.Name()))
		data, err := os.ReadFile(filepath.Join(s.tree, p))
		if err != nil {
			return nil, fmt.Errorf("read the versions of %s: %w", id, err)
		}
		if _, sum, ok := parseRecordPath(p); !ok || digest(data) != sum || known[sum].ID != id {
			continue // not a published version, or a damaged one: never joined
		}
		out = append(out, arrival{path: p, id: id, data: strings.TrimSuffix(string(data), "\n")})
	}
	return out, nil
}

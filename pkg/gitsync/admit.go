package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/journal"
)

// mergeBatch bounds the versions one store.Merge call takes.
const mergeBatch = 4000

// arrival is a version another device published, on its way to the store.
type arrival struct {
	path, id, device string
	data             string
}

// admit hands the store every version added to the work tree since the
// last admission that another device published: each must be named by the
// digest of its bytes, and listed by a device whose journal's hash chain
// verifies; store.Merge then admits it like an import. What fails any of
// these is named in the report and never stored.
func (s *Syncer) admit(ctx context.Context, st *state, rep *Report) error {
	head, err := git(ctx, s.tree, "rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("admit: %w", err)
	}
	head = strings.TrimSpace(head)
	paths, err := s.added(ctx, st.Admitted, head)
	if err != nil {
		return err
	}
	vouched, err := s.vouched(st.Device, rep)
	if err != nil {
		return err
	}
	byDevice := map[string][]arrival{}
	var ids []string
	for _, p := range paths {
		a, why := s.arrival(p, st.Device, vouched)
		switch {
		case why == "own" && !st.Readmit:
			// This machine's own versions came from its store. After an
			// init that found this device's journal on the remote (a store
			// set up again with its old device id), they are admitted
			// once like any other.
			continue
		case why == "own":
			a, why = s.arrival(p, "", vouched)
		}
		switch {
		case why != "":
			rep.Refused = append(rep.Refused, Refused{Path: p, Device: vouched[digestOf(p)].Device, Reason: why})
			continue
		case a.data == "":
			continue // pruned: a purge removed it
		}
		byDevice[a.device] = append(byDevice[a.device], a)
		ids = append(ids, a.id)
	}
	for _, dev := range sortedKeys(byDevice) {
		if err := s.merge(ctx, dev, byDevice[dev], rep); err != nil {
			return err
		}
	}
	removed, err := s.prune(ids)
	if err != nil {
		return err
	}
	s.dirty = s.dirty || removed > 0
	st.Admitted, st.Readmit = head, false
	return writeState(s.tree, *st)
}

// added lists the version files added to the work tree between commit from
// (every file when from is "" or gone) and head.
func (s *Syncer) added(ctx context.Context, from, head string) ([]string, error) {
	if from != "" {
		if _, err := git(ctx, s.tree, "cat-file", "-e", from+"^{commit}"); err == nil {
			out, err := git(ctx, s.tree, "diff", "--name-only", "--no-renames", "--diff-filter=A", from, head, "--", memoriesDir)
			if err != nil {
				return nil, fmt.Errorf("admit: %w", err)
			}
			return strings.Fields(out), nil
		}
	}
	out, err := git(ctx, s.tree, "ls-files", "--", memoriesDir)
	if err != nil {
		return nil, fmt.Errorf("admit: %w", err)
	}
	return strings.Fields(out), nil
}

// vouched reads every device's journal and returns the versions they list,
// by digest. A journal whose chain does not verify vouches for nothing
// (its device's versions are refused until it does), and is named.
func (s *Syncer) vouched(self string, rep *Report) (map[string]publication, error) {
	devs, err := devices(s.tree)
	if err != nil {
		return nil, err
	}
	out := map[string]publication{}
	for _, d := range devs {
		path := journalPath(s.tree, d)
		vr, err := journal.Verify(path, nil)
		if err != nil {
			return nil, fmt.Errorf("verify the journal of %s: %w", d, err)
		}
		if len(vr.Problems) > 0 {
			p := vr.Problems[0]
			rep.Problems = append(rep.Problems, fmt.Sprintf("device %s: its journal does not verify (line %d %s: %s); its versions are not admitted until it does", d, p.Line, p.Kind, p.Detail))
			continue
		}
		pubs, _, err := readPublished(path)
		if err != nil {
			return nil, fmt.Errorf("read the journal of %s: %w", d, err)
		}
		for sum, p := range pubs {
			if p.Device != d {
				continue // a line naming another device is not this one's to vouch for
			}
			if cur, ok := out[sum]; !ok || d == self || (cur.Device != self && d < cur.Device) {
				out[sum] = p
			}
		}
	}
	return out, nil
}

func digestOf(p string) string {
	_, sum, _ := parseRecordPath(p)
	return sum
}

// arrival reads one added file and says why it is refused ("" when it is
// not; "own" for this device's own versions, which are not admitted again).
func (s *Syncer) arrival(p, self string, vouched map[string]publication) (arrival, string) {
	id, sum, ok := parseRecordPath(p)
	if !ok {
		return arrival{}, "not a memory version's name (memories/<id[:2]>/<id>/<digest>.json)"
	}
	pub, listed := vouched[sum]
	if listed && pub.Device == self && self != "" {
		return arrival{}, "own" // this machine wrote it from its store: nothing to read
	}
	data, err := os.ReadFile(filepath.Join(s.tree, p))
	if errors.Is(err, fs.ErrNotExist) {
		return arrival{path: p}, ""
	}
	if err != nil {
		return arrival{}, fmt.Sprintf("unreadable: %v", err)
	}
	switch {
	case digest(data) != sum:
		return arrival{}, "its bytes do not match the digest it is named by: it was damaged or edited after it was published"
	case !listed:
		return arrival{}, "no device's journal lists it: it was not published by a sync"
	case pub.ID != id:
		return arrival{}, fmt.Sprintf("the journal of %s lists it as memory %s", pub.Device, pub.ID)
	}
	if rec, err := decodeRecord(data); err != nil {
		return arrival{}, err.Error()
	} else if rec.ID != id {
		return arrival{}, fmt.Sprintf("it holds memory %s", rec.ID)
	}
	return arrival{path: p, id: id, device: pub.Device, data: strings.TrimSuffix(string(data), "\n")}, ""
}

// merge hands one device's versions to the store, in batches, and names
// what it refused.
func (s *Syncer) merge(ctx context.Context, dev string, as []arrival, rep *Report) error {
	st, err := s.store()
	if err != nil {
		return err
	}
	for len(as) > 0 {
		n := min(len(as), mergeBatch)
		recs := make([]string, n)
		for i, a := range as[:n] {
			recs[i] = a.data
		}
		res, err := st.Merge(ctx, caller(dev), recs)
		if err != nil {
			return fmt.Errorf("admit the versions %s published: %w", dev, err)
		}
		rep.Received += n
		rep.Admitted += res.Admitted
		rep.Unchanged += res.Unchanged
		rep.Purged += res.Purged
		rep.Held += res.Held
		for _, r := range res.Refused {
			ref := Refused{Device: dev, Reason: r.Reason}
			if r.Index >= 0 && r.Index < n {
				ref.Path, ref.ID = as[r.Index].path, as[r.Index].id
			}
			rep.Refused = append(rep.Refused, ref)
		}
		as = as[n:]
	}
	return nil
}

package gitsync

import (
	"context"
	"strings"
	"time"
)

// Status is where a store's sync stands.
type Status struct {
	Enabled    bool   `json:"enabled"`
	Dir        string `json:"dir"`
	Remote     string `json:"remote,omitempty"`
	Device     string `json:"device,omitempty"`
	GitVersion string `json:"git_version,omitempty"`
	// LastSync is when the last sync that succeeded started; LastError why
	// the last one failed, "" when it did not.
	LastSync  time.Time `json:"last_sync,omitzero"`
	LastError string    `json:"last_error,omitempty"`
	// ToSend counts this store's versions not published yet, Unpushed the
	// commits the remote lacks; ToReceive the versions the remote holds
	// that this machine has not merged (as of Fetched, when the remote was
	// read; zero when it was not).
	ToSend    int       `json:"to_send"`
	Unpushed  int       `json:"unpushed"`
	ToReceive int       `json:"to_receive"`
	Fetched   time.Time `json:"fetched,omitzero"`
	Devices   []string  `json:"devices,omitempty"`
	Refused   []Refused `json:"refused,omitempty"`
}

// Status says where sync stands. With fetch, it first reads the remote,
// to count what waits there (a network round trip); a remote that cannot
// be read is reported in LastError, not as a failure of Status.
func (s *Syncer) Status(ctx context.Context, fetch bool) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status(ctx, fetch)
}

func (s *Syncer) status(ctx context.Context, fetch bool) (Status, error) {
	out := Status{Dir: s.tree}
	st, err := readState(s.tree)
	if err != nil {
		return out, nil // not set up: Enabled says so
	}
	out.Enabled, out.Device, out.LastSync, out.LastError, out.Refused = true, st.Device, st.LastSync, st.LastError, st.Refused
	out.GitVersion, err = Need(ctx)
	if err != nil {
		out.LastError = err.Error()
		return out, nil
	}
	remote, _ := git(ctx, s.tree, "remote", "get-url", "origin")
	out.Remote = strings.TrimSpace(remote)
	if out.ToSend, err = s.toSend(); err != nil {
		return out, err
	}
	if fetch {
		if has, err := s.remoteHasBranch(ctx); err != nil {
			out.LastError = err.Error()
		} else if has {
			if _, err := git(ctx, s.tree, "fetch", "-q", "origin", branch); err != nil {
				out.LastError = err.Error()
			} else {
				out.Fetched = s.now()
			}
		}
	}
	if _, err := git(ctx, s.tree, "rev-parse", "-q", "--verify", "origin/"+branch); err == nil {
		n, _ := git(ctx, s.tree, "rev-list", "--count", "origin/"+branch+"..HEAD")
		out.Unpushed = atoi(n)
		added, _ := git(ctx, s.tree, "diff", "--name-only", "--no-renames", "--diff-filter=A", "HEAD...origin/"+branch, "--", memoriesDir)
		out.ToReceive = len(strings.Fields(added))
	} else {
		n, _ := git(ctx, s.tree, "rev-list", "--count", "HEAD")
		out.Unpushed = atoi(n)
	}
	out.Devices, _ = devices(s.tree)
	return out, nil
}

// toSend counts the store's versions no device has published.
func (s *Syncer) toSend() (int, error) {
	published, _, err := s.known()
	if err != nil {
		return 0, err
	}
	st, err := s.store()
	if err != nil {
		return 0, err
	}
	n := 0
	for offset := 0; ; {
		recs, next, err := st.SyncRecords(offset)
		if err != nil {
			return 0, err
		}
		for _, r := range recs {
			if _, ok := published[digest(fileData(r))]; !ok {
				n++
			}
		}
		if next == 0 {
			return n, nil
		}
		offset = next
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' {
			return n
		}
		n = n*10 + int(c-'0')
	}
	return n
}

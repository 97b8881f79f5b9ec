package gitsync

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
)

// state is what this machine keeps about its sync, in the repository's
// .git directory so that it never travels: the device id chosen at init,
// how far what arrived has been admitted, and the last sync's outcome.
type state struct {
	Device string `json:"device"`
	// Admitted is the commit up to which the versions other devices
	// published have been handed to the store; "" before the first.
	// Everything added since is admitted at the next sync, so a sync cut
	// short admits at the next one what it did not get to.
	Admitted string `json:"admitted,omitempty"`
	// Readmit: init found this device's journal on the remote, so its own
	// versions there are admitted at the next sync (see admit).
	Readmit   bool      `json:"readmit,omitempty"`
	LastSync  time.Time `json:"last_sync,omitzero"`
	LastError string    `json:"last_error,omitempty"`
	// Refused are the versions the last syncs refused, each way, newest
	// last (at most maxRefused).
	Refused []Refused `json:"refused,omitempty"`
}

const maxRefused = 100

func statePath(tree string) string { return filepath.Join(tree, ".git", "ihmt-sync.json") }

func readState(tree string) (state, error) {
	data, err := os.ReadFile(statePath(tree))
	if errors.Is(err, fs.ErrNotExist) {
		return state{}, fmt.Errorf("%w: %s has no sync state", ErrNotInitialized, tree)
	}
	if err != nil {
		return state{}, fmt.Errorf("read sync state: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return state{}, fmt.Errorf("sync state %s is damaged (%v): remove %s and run `ihmt sync init` again", statePath(tree), err, filepath.Join(filepath.Dir(tree), workDir))
	}
	if !validDevice(st.Device) {
		return state{}, fmt.Errorf("sync state %s names no valid device: remove %s and run `ihmt sync init` again", statePath(tree), tree)
	}
	return st, nil
}

func writeState(tree string, st state) error {
	st.Refused = latestRefusals(st.Refused)
	if n := len(st.Refused); n > maxRefused {
		st.Refused = st.Refused[n-maxRefused:]
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(statePath(tree), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write sync state: %w", err)
	}
	return nil
}

// latestRefusals keeps the last of each refusal that repeats (an outgoing
// version is refused again at every sync), in the order of their last
// occurrence.
func latestRefusals(rs []Refused) []Refused {
	last := map[Refused]int{}
	for i, r := range rs {
		last[r] = i
	}
	out := make([]Refused, 0, len(last))
	for i, r := range rs {
		if last[r] == i {
			out = append(out, r)
		}
	}
	return out
}

package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"

	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestRebuildOffline: with no daemon running, every derived file is rebuilt
// from the leaves under the daemon's lock; while the lock is held, the
// rebuild refuses and says to go through the daemon.
func TestRebuildOffline(t *testing.T) {
	dir := t.TempDir()
	p := paths.Paths{Data: filepath.Join(dir, "data"), Socket: filepath.Join(dir, "s.sock")}
	st := testenv.OpenStore(t, p.Data)
	c := store.Caller{Agent: store.Agent{Name: "claude-code"}, Session: "s1"}
	for i := range 20 {
		text := fmt.Sprintf("Service %d logs to journald.", i)
		if i == 0 {
			text = "I live in Valencia now."
		}
		if _, err := st.Save(testenv.Context(t), store.SaveInput{Caller: c, Content: text, Scope: store.ScopeGlobal}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	// A damaged tree file must not matter: it is derived.
	os.WriteFile(filepath.Join(p.Data, "tree", "root.json"), []byte("{garbage"), 0o600)

	log := slog.New(slog.DiscardHandler)
	r, err := RebuildOffline(testenv.Context(t), p, log)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memories != 20 || r.Facts == 0 || r.Tree.Leaves != 20 || r.Tree.Branches < 2 {
		t.Fatalf("rebuild report = %+v, want 20 memories, their facts and a tree over them", r)
	}

	held := flock.New(p.LockFile())
	if ok, err := held.TryLock(); !ok || err != nil {
		t.Fatalf("take the lock: %v %v", ok, err)
	}
	defer held.Unlock()
	if _, err := RebuildOffline(testenv.Context(t), p, log); !errors.Is(err, ErrLockHeld) {
		t.Fatalf("rebuild under a held lock: %v, want ErrLockHeld", err)
	}
}

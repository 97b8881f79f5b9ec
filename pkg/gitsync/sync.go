package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/store"
)

// Errors callers tell apart with errors.Is.
var (
	// ErrNotInitialized: sync was never set up for this store.
	ErrNotInitialized = errors.New("sync is not set up")
	// ErrInvalid: a malformed request (a remote, a device name).
	ErrInvalid = store.ErrInvalid
)

// branch is the one branch sync uses.
const branch = "main"

// Syncer syncs one store. The daemon owns one per store; its methods are
// serialised, so two syncs never run git in the work tree at once.
type Syncer struct {
	open func() *store.Store
	tree string
	mu   sync.Mutex
	now  func() time.Time
	// hook, when set, is called at each step of a sync (tests stop a sync
	// there to kill it).
	hook func(step string)
	// dirty: the work tree may hold changes not committed yet. A sync
	// starts dirty (a sync killed before its commit left some).
	dirty bool
}

// New returns the Syncer of the store st, whose directory is dir.
func New(st *store.Store, dir string) *Syncer {
	return NewFor(func() *store.Store { return st }, dir)
}

// NewFor returns the Syncer of the store in dir that open returns: the
// daemon's, which a rebuild replaces (nil while it opens).
func NewFor(open func() *store.Store, dir string) *Syncer {
	return &Syncer{open: open, tree: filepath.Join(dir, workDir), now: time.Now}
}

// store is the open store, or an error saying it is opening.
func (s *Syncer) store() (*store.Store, error) {
	if st := s.open(); st != nil {
		return st, nil
	}
	return nil, fmt.Errorf("%w: the store is opening; sync again in a moment", store.ErrClosed)
}

// Dir is the work tree.
func (s *Syncer) Dir() string { return s.tree }

// Enabled reports whether sync was set up for this store.
func (s *Syncer) Enabled() bool {
	_, err := os.Stat(statePath(s.tree))
	return err == nil
}

func (s *Syncer) step(name string) {
	if s.hook != nil {
		s.hook(name)
	}
}

// caller is who the store's log names for what a sync changes: the sync,
// on behalf of the person who set it up, for the device that published it.
func caller(device string) store.Caller {
	return store.Caller{Agent: leafAgent(), Session: "device:" + device, Person: true}
}

// Init sets up sync with remote (any URL or path git accepts) and returns
// its status. The remote may be empty (it is then seeded) or already hold
// another machine's memories (they arrive at the first sync). device names
// this machine; "" chooses one from the host name. Init of a store already
// syncing with the same remote changes nothing.
func (s *Syncer) Init(ctx context.Context, remote, device string) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ver, err := Need(ctx)
	if err != nil {
		return Status{}, err
	}
	remote = strings.TrimSpace(remote)
	if remote == "" || strings.HasPrefix(remote, "-") || strings.ContainsAny(remote, "\n\x00") {
		return Status{}, fmt.Errorf("%w: %q is not a git remote: give a URL (ssh://host/path.git, git@host:me/memory.git, https://…) or the path of a bare repository", ErrInvalid, remote)
	}
	if device != "" && !validDevice(device) {
		return Status{}, fmt.Errorf("%w: device %q: use lower-case letters, digits and dashes (at most 48)", ErrInvalid, device)
	}
	if st, err := readState(s.tree); err == nil {
		cur, _ := git(ctx, s.tree, "remote", "get-url", "origin")
		if strings.TrimSpace(cur) != remote {
			return Status{}, fmt.Errorf("%w: this store already syncs with %s as device %s: remove %s first to sync with another remote", store.ErrConflict, strings.TrimSpace(cur), st.Device, s.tree)
		}
		return s.status(ctx, false)
	}
	if _, err := git(ctx, "", "ls-remote", "--", remote); err != nil {
		return Status{}, fmt.Errorf("%w: the remote %s cannot be read (%v): check the URL and that this machine can reach it (an ssh key or credential helper; the daemon cannot answer a password prompt); for a new one on local disk, run `git init --bare PATH` first", ErrInvalid, remote, err)
	}
	// A work tree without its state is an init that never finished:
	// nothing in it was published, so it is made again from the start.
	if err := os.RemoveAll(s.tree); err != nil {
		return Status{}, fmt.Errorf("remove the unfinished set-up in %s: %w", s.tree, err)
	}
	if device == "" {
		if device, err = newDevice(); err != nil {
			return Status{}, err
		}
	}
	if err := s.create(ctx, remote, device); err != nil {
		return Status{}, err
	}
	_, err = os.Stat(journalPath(s.tree, device))
	if err := writeState(s.tree, state{Device: device, Readmit: err == nil}); err != nil {
		return Status{}, err
	}
	st, err := s.status(ctx, false)
	st.GitVersion = ver
	return st, err
}

// create makes the work tree: a repository on branch main with origin
// set, its local config, and what the remote already holds checked out.
func (s *Syncer) create(ctx context.Context, remote, device string) error {
	if err := os.MkdirAll(s.tree, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.tree, err)
	}
	steps := [][]string{
		{"init", "-q", "-b", branch},
		{"config", "user.name", "ihmt sync (" + device + ")"},
		{"config", "user.email", device + "@ihmt.invalid"},
		{"config", "commit.gpgsign", "false"},
		{"config", "core.autocrlf", "false"},
		// A symbolic link from the remote is checked out as a plain file:
		// sync never follows one out of the work tree.
		{"config", "core.symlinks", "false"},
		// Versions are named by their digest and never edited: a
		// deletion beside an addition is not a rename.
		{"config", "merge.renames", "false"},
		{"config", "diff.renames", "false"},
		{"remote", "add", "origin", remote},
	}
	for _, a := range steps {
		if _, err := git(ctx, s.tree, a...); err != nil {
			return fmt.Errorf("set up %s: %w", s.tree, err)
		}
	}
	for name, data := range map[string]string{".gitignore": ignored, ".gitattributes": attributes} {
		if err := os.WriteFile(filepath.Join(s.tree, name), []byte(data), 0o600); err != nil {
			return fmt.Errorf("set up %s: %w", s.tree, err)
		}
	}
	has, err := s.remoteHasBranch(ctx)
	if err != nil {
		return err
	}
	if has {
		if _, err := git(ctx, s.tree, "fetch", "-q", "origin", branch); err != nil {
			return fmt.Errorf("fetch from %s: %w", remote, err)
		}
		if _, err := git(ctx, s.tree, "reset", "-q", "--hard", "origin/"+branch); err != nil {
			return fmt.Errorf("check out what %s holds: %w", remote, err)
		}
		return nil
	}
	if _, err := git(ctx, s.tree, "add", "-A"); err != nil {
		return err
	}
	if _, err := git(ctx, s.tree, "commit", "-q", "-m", "ihmt: a memory synced across machines"); err != nil {
		return fmt.Errorf("first commit: %w", err)
	}
	return nil
}

func (s *Syncer) remoteHasBranch(ctx context.Context) (bool, error) {
	out, err := git(ctx, s.tree, "ls-remote", "--heads", "origin", branch)
	if err != nil {
		return false, fmt.Errorf("read the remote: %w", err)
	}
	return strings.TrimSpace(out) != "", nil
}

// Refused is a version sync did not let through, with why: outgoing, a
// version of this store's that stays local; incoming, a file from the
// remote that was never stored.
type Refused struct {
	Outgoing bool   `json:"outgoing"`
	ID       string `json:"id,omitempty"`
	Path     string `json:"path,omitempty"`
	Device   string `json:"device,omitempty"`
	Reason   string `json:"reason"`
}

func (r Refused) String() string {
	what := r.Path
	if what == "" {
		what = "memory " + r.ID
	}
	if r.Outgoing {
		return fmt.Sprintf("not sent: %s: %s", what, r.Reason)
	}
	if r.Device != "" {
		what += " (from " + r.Device + ")"
	}
	return fmt.Sprintf("not admitted: %s: %s", what, r.Reason)
}

// Report says what a sync did.
type Report struct {
	Device string `json:"device"`
	Remote string `json:"remote"`
	// Published counts this store's versions sent; Received the versions
	// other devices published that arrived; Admitted, Unchanged, Purged and
	// Held what the store made of them (store.MergeResult).
	Published, Received         int
	Admitted, Unchanged, Purged int
	Held                        int
	Refused                     []Refused
	Pushed                      bool
	Commit                      string
	Took                        time.Duration
	Devices                     []string
	Problems                    []string // devices' journals that do not verify
}

// maxPushTries bounds how often a sync fetches again when another machine
// pushed between its fetch and its push.
const maxPushTries = 5

// Sync publishes what this store has that the remote lacks, fetches and
// merges what other machines published, admits it into the store and
// pushes. A sync cut short (killed, a network error) loses nothing and
// duplicates nothing: the next one resumes from the files and the journal.
func (s *Syncer) Sync(ctx context.Context) (Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.now()
	st, err := readState(s.tree)
	if err != nil {
		return Report{}, err
	}
	rep, err := s.run(ctx, &st)
	rep.Took = s.now().Sub(start)
	st.LastError = ""
	if err != nil {
		st.LastError = err.Error()
	} else {
		st.LastSync = start
	}
	st.Refused = append(st.Refused, rep.Refused...)
	if werr := writeState(s.tree, st); werr != nil && err == nil {
		err = werr
	}
	return rep, err
}

func (s *Syncer) run(ctx context.Context, st *state) (Report, error) {
	rep := Report{Device: st.Device}
	if _, err := Need(ctx); err != nil {
		return rep, err
	}
	if err := s.recover(ctx); err != nil {
		return rep, err
	}
	remote, _ := git(ctx, s.tree, "remote", "get-url", "origin")
	rep.Remote = strings.TrimSpace(remote)
	s.dirty = true
	for try := 1; ; try++ {
		current, err := s.publish(ctx, st.Device, &rep)
		if err != nil {
			return rep, err
		}
		s.step("published")
		if err := s.rejoin(ctx, st.Device, current, &rep); err != nil {
			return rep, err
		}
		if err := s.commit(ctx, fmt.Sprintf("ihmt sync: %s published %d versions", st.Device, rep.Published)); err != nil {
			return rep, err
		}
		s.step("committed")
		if err := s.fetchMerge(ctx); err != nil {
			return rep, err
		}
		s.step("merged")
		admitted := rep.Admitted
		if err := s.admit(ctx, st, &rep); err != nil {
			return rep, err
		}
		s.step("admitted")
		if rep.Admitted > admitted {
			// What the store made of what arrived (a join, a hold for
			// review) is published in the same sync.
			if _, err := s.publish(ctx, st.Device, &rep); err != nil {
				return rep, err
			}
			if err := s.commit(ctx, fmt.Sprintf("ihmt sync: %s published %d versions", st.Device, rep.Published)); err != nil {
				return rep, err
			}
		}
		if !s.ahead(ctx) {
			break
		}
		_, err = git(ctx, s.tree, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
		if err == nil {
			rep.Pushed = true
			break
		}
		if try == maxPushTries {
			return rep, fmt.Errorf("push to %s failed %d times (other machines keep pushing, or it refuses writes): %w", rep.Remote, try, err)
		}
		s.step("push-rejected")
	}
	head, _ := git(ctx, s.tree, "rev-parse", "HEAD")
	rep.Commit = strings.TrimSpace(head)
	rep.Devices, _ = devices(s.tree)
	return rep, nil
}

// recover clears what a sync killed halfway leaves in the work tree: git's
// lock files (no other git runs here: the daemon serialises syncs), a
// merge in progress, and temporary files of an interrupted write. Files
// already written stay: the next publish and commit take them in.
func (s *Syncer) recover(ctx context.Context) error {
	gitDir := filepath.Join(s.tree, ".git")
	for _, lock := range []string{"index.lock", "HEAD.lock", "ORIG_HEAD.lock", filepath.Join("refs", "heads", branch+".lock"), filepath.Join("refs", "remotes", "origin", branch+".lock")} {
		if err := os.Remove(filepath.Join(gitDir, lock)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove a stale git lock: %w", err)
		}
	}
	if _, err := os.Stat(filepath.Join(gitDir, "MERGE_HEAD")); err == nil {
		if _, err := git(ctx, s.tree, "merge", "--abort"); err != nil {
			return fmt.Errorf("abort an interrupted merge: %w", err)
		}
	}
	return filepath.WalkDir(s.tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp") {
			return os.Remove(p)
		}
		return nil
	})
}

// ahead reports whether HEAD holds commits the remote's branch (as last
// fetched) lacks — all of them when the remote has no branch yet.
func (s *Syncer) ahead(ctx context.Context) bool {
	if _, err := git(ctx, s.tree, "rev-parse", "-q", "--verify", "origin/"+branch); err != nil {
		return true
	}
	n, err := git(ctx, s.tree, "rev-list", "--count", "origin/"+branch+"..HEAD")
	return err != nil || atoi(n) > 0
}

// commit commits everything in the work tree, when anything changed.
func (s *Syncer) commit(ctx context.Context, msg string) error {
	if !s.dirty {
		return nil
	}
	if _, err := git(ctx, s.tree, "add", "-A", "--", "."); err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	if _, err := git(ctx, s.tree, "diff", "--cached", "--quiet"); err == nil {
		s.dirty = false
		return nil
	} else if exitCode(err) != 1 {
		return fmt.Errorf("stage: %w", err)
	}
	if _, err := git(ctx, s.tree, "commit", "-q", "--no-verify", "-m", msg); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.dirty = false
	return nil
}

// fetchMerge fetches the remote's branch and merges it. Versions are never
// edited and are named by their content, so the merge is a union; a
// conflict means someone edited the repository by hand, and is reported
// with the paths instead of resolved.
func (s *Syncer) fetchMerge(ctx context.Context) error {
	has, err := s.remoteHasBranch(ctx)
	if err != nil || !has {
		return err
	}
	if _, err := git(ctx, s.tree, "fetch", "-q", "origin", branch); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	_, err = git(ctx, s.tree, "merge", "-q", "--no-edit", "--allow-unrelated-histories", "origin/"+branch)
	if err == nil {
		return nil
	}
	out, _ := git(ctx, s.tree, "diff", "--name-only", "--diff-filter=U")
	_, _ = git(ctx, s.tree, "merge", "--abort")
	paths := strings.Fields(out)
	for _, p := range paths {
		if dev, ok := strings.CutSuffix(strings.TrimPrefix(p, devicesDir+"/"), journalExt); ok && !strings.Contains(dev, "/") {
			return fmt.Errorf("two machines publish as device %s (its journal %s conflicts): give this one its own id — remove %s and run `ihmt sync init REMOTE --device ANOTHER-NAME` — and sync again", dev, p, s.tree)
		}
	}
	if len(paths) > 0 {
		return fmt.Errorf("the remote's files conflict with this machine's in %s: sync never edits a file it wrote, so someone edited the repository by hand; restore those files on the remote (git log -- PATH) and sync again", strings.Join(paths, ", "))
	}
	return fmt.Errorf("merge: %w", err)
}

// sortedKeys is the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

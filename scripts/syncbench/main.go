// Command syncbench measures sync over git (pkg/gitsync) as README reports
// it: two stores on this machine and a bare repository on local disk; N new
// memories saved on one are synced out (publish, commit, push) and then in
// on the other (fetch, merge, admit), each timed; then the repository's
// size per memory, before and after `git gc`. It runs in-process (the
// daemon's sync is the same code behind an RPC) and leaves nothing behind.
//
//	go run ./scripts/syncbench [-n 10000]
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/gitsync"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

func main() {
	n := flag.Int("n", 10000, "memories to sync")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "syncbench:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "syncbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	remote := filepath.Join(tmp, "memory.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		return fmt.Errorf("git init --bare: %v: %s", err, out)
	}
	a, sa, err := open(ctx, filepath.Join(tmp, "a"), remote, "a")
	if err != nil {
		return err
	}
	defer a.Close()
	b, sb, err := open(ctx, filepath.Join(tmp, "b"), remote, "b")
	if err != nil {
		return err
	}
	defer b.Close()
	start := time.Now()
	if err := save(ctx, a, n); err != nil {
		return err
	}
	fmt.Printf("saved %d memories on a in %.1f s\n", n, time.Since(start).Seconds())
	out, err := sa.Sync(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("sync out (a: publish, commit, push %d versions): %.1f s\n", out.Published, out.Took.Seconds())
	in, err := sb.Sync(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("sync in (b: fetch, merge, admit %d versions, %d stored): %.1f s\n", in.Received, in.Admitted, in.Took.Seconds())
	again, err := sb.Sync(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("sync with nothing new (b): %.2f s\n", again.Took.Seconds())
	if st := b.Stats(store.Caller{Agent: leaf.Agent{Name: "bench"}}); st.Memories != n {
		return fmt.Errorf("b holds %d memories, want %d", st.Memories, n)
	}
	size := du(remote)
	fmt.Printf("bare repository: %.1f MiB, %.0f bytes a memory\n", float64(size)/(1<<20), float64(size)/float64(n))
	if out, err := exec.Command("git", "-C", remote, "gc", "-q", "--aggressive", "--prune=now").CombinedOutput(); err != nil {
		return fmt.Errorf("git gc: %v: %s", err, out)
	}
	size = du(remote)
	fmt.Printf("after git gc --aggressive: %.1f MiB, %.0f bytes a memory\n", float64(size)/(1<<20), float64(size)/float64(n))
	work := du(filepath.Join(tmp, "b", "sync"))
	fmt.Printf("b's work tree with its .git: %.1f MiB\n", float64(work)/(1<<20))
	return nil
}

func open(ctx context.Context, dir, remote, device string) (*store.Store, *gitsync.Syncer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		return nil, nil, err
	}
	sy := gitsync.New(st, dir)
	if _, err := sy.Init(ctx, remote, device); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, sy, nil
}

// save saves n distinct memories of a plausible length from 16 writers.
func save(ctx context.Context, st *store.Store, n int) error {
	errs := make(chan error, 16)
	for w := range 16 {
		go func() {
			c := store.Caller{Agent: leaf.Agent{Name: "bench"}, Session: fmt.Sprint("s", w)}
			for i := w; i < n; i += 16 {
				text := fmt.Sprintf("Service %d of team %d listens on port %d; its database is replica %d and it is deployed from branch release-%d on Tuesdays.", i, i%97, 10000+i, i%13, i%29)
				if _, err := st.Save(ctx, store.SaveInput{Caller: c, Content: text}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			return err
		}
	}
	st.Flush()
	return nil
}

func du(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}

package codeindex

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// bothOpens runs f with openat2 and with the O_NOFOLLOW walk, which must
// each hold on its own (the walk serves where the kernel lacks openat2).
func bothOpens(t *testing.T, f func(t *testing.T)) {
	for _, use := range []bool{true, false} {
		name := "openat2"
		if !use {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			old := useOpenat2
			useOpenat2 = use
			defer func() { useOpenat2 = old }()
			f(t)
		})
	}
}

// swapper swaps root/name between a regular file and a symlink to outside
// until stop is closed, each swap one atomic rename.
func swapper(t *testing.T, root, name, outside string, stop chan struct{}, swaps *atomic.Int64) {
	target := filepath.Join(root, name)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		tmp := filepath.Join(root, ".swap")
		os.Remove(tmp)
		var err error
		if i%2 == 0 {
			err = os.Symlink(outside, tmp)
		} else {
			err = os.WriteFile(tmp, []byte("inside the project\n"), 0o644)
		}
		if err == nil && os.Rename(tmp, target) == nil {
			swaps.Add(1)
		}
	}
}

// TestReadRace: a file swapped for a symlink out of the project thousands
// of times while it is read never returns the outside file; reads of the
// regular file meanwhile succeed, so the race is run, not avoided.
func TestReadRace(t *testing.T) {
	bothOpens(t, func(t *testing.T) {
		base := realTemp(t)
		root, outside := filepath.Join(base, "proj"), filepath.Join(base, "outside.txt")
		write(t, root, map[string]string{"a.txt": "inside the project\n"})
		if err := os.WriteFile(outside, []byte("OUTSIDE secret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var swaps atomic.Int64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); swapper(t, root, "a.txt", outside, stop, &swaps) }()
		read, refused := 0, 0
		for swaps.Load() < 2000 {
			_, text, err := Read(root, "a.txt")
			switch {
			case err == nil && strings.Contains(text, "OUTSIDE"):
				close(stop)
				wg.Wait()
				t.Fatalf("read the outside file after %d swaps", swaps.Load())
			case err == nil:
				read++
			default:
				refused++
			}
		}
		close(stop)
		wg.Wait()
		t.Logf("%d swaps: %d reads of the file, %d refusals of the symlink (or of a moment with neither)", swaps.Load(), read, refused)
		if read == 0 || refused == 0 {
			t.Fatalf("the race did not run both ways: %d reads, %d refusals", read, refused)
		}
	})
}

// TestReadCheckThenOpen is the race's positive control, made exact: a
// check of the path followed by an open by name reads the outside file
// when the swap falls between the two; the open beneath the root refuses.
func TestReadCheckThenOpen(t *testing.T) {
	bothOpens(t, func(t *testing.T) {
		base := realTemp(t)
		root, outside := filepath.Join(base, "proj"), filepath.Join(base, "outside.txt")
		write(t, root, map[string]string{"a.txt": "inside\n"})
		os.WriteFile(outside, []byte("OUTSIDE\n"), 0o644)
		abs, _, err := Resolve(root, "a.txt") // the check passes: a regular file
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(root, "a.txt"))
		if err := os.Symlink(outside, filepath.Join(root, "a.txt")); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(abs); !strings.Contains(string(data), "OUTSIDE") {
			t.Fatalf("control: the open by name should follow the swapped symlink, got %q", data)
		}
		if _, _, err := readBeneath(root, "a.txt", MaxFileBytes); !errors.Is(err, errSymlink) {
			t.Fatalf("the open beneath the root: %v, want a refused symlink", err)
		}
	})
}

// TestReadSymlinks: no step of a read path may be a symlink, inside the
// project or out of it.
func TestReadSymlinks(t *testing.T) {
	bothOpens(t, func(t *testing.T) {
		base := realTemp(t)
		root := filepath.Join(base, "proj")
		write(t, root, map[string]string{"src/main.go": "package main\n", filepath.Join("..", "out", "x.go"): "package out\n"})
		os.Symlink("src", filepath.Join(root, "dirlink"))
		os.Symlink(filepath.Join(base, "out"), filepath.Join(root, "outlink"))
		os.Symlink("main.go", filepath.Join(root, "src", "filelink"))
		for _, c := range []struct {
			path string
			ok   bool
		}{
			{"src/main.go", true},
			{filepath.Join(root, "src", "main.go"), true},
			{"dirlink/main.go", false},
			{"outlink/x.go", false},
			{"src/filelink", false},
			{"src/../../out/x.go", false},
			{"src", false},
			{"nothing.go", false},
		} {
			_, text, err := Read(root, c.path)
			if c.ok != (err == nil) {
				t.Errorf("%s: %q %v, want ok %v", c.path, text, err, c.ok)
			}
			if err != nil && !errors.Is(err, leaf.ErrInvalid) && !errors.Is(err, leaf.ErrNotFound) {
				t.Errorf("%s: %v is neither invalid nor not found", c.path, err)
			}
		}
	})
}

// TestRootNotHome: the home directory, or a directory above it, is no
// project root; a directory beneath it is (the control).
func TestRootNotHome(t *testing.T) {
	home := realTemp(t)
	t.Setenv("HOME", home)
	proj := filepath.Join(home, "src", "shop")
	os.MkdirAll(proj, 0o755)
	for _, c := range []struct {
		root string
		ok   bool
	}{{home, false}, {filepath.Dir(home), false}, {"/", false}, {proj, true}} {
		_, err := Root(c.root)
		if c.ok != (err == nil) {
			t.Errorf("Root(%s): %v, want ok %v", c.root, err, c.ok)
		}
		if !c.ok && (!errors.Is(err, ErrHomeRoot) || !strings.Contains(err.Error(), "Start the agent inside the project")) {
			t.Errorf("Root(%s): %v, want ErrHomeRoot saying how to set the project", c.root, err)
		}
	}
}

// TestCredentialsNeverShown: a private key and a .env with an AWS secret
// are refused by read_file (naming the kind and the line, never the
// secret), not indexed for find_code, and marked in project_map; the
// ordinary file beside them is read, found and mapped (the control).
func TestCredentialsNeverShown(t *testing.T) {
	root := realTemp(t)
	const awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8vR3sT2u"
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBvQm9aZ2ZrUjZ4bE1wT3FaWnZ0dWh3S2JyWk9oYkZqUAAAAJgAAAAAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
	write(t, root, map[string]string{
		".env":             "# deploy settings\nAWS_ACCESS_KEY_ID=AKIAQX7NMB2DKR5TW3PL\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\n",
		".ssh/id_ed25519":  key,
		"deploy/deploy.go": "package deploy\n\n// Rollout pushes the release to the fleet.\nfunc Rollout() {}\n",
	})
	for _, c := range []struct {
		path, kind string
	}{{".env", "line 2"}, {".ssh/id_ed25519", "private key"}} {
		_, text, err := Read(root, c.path)
		if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), c.kind) || strings.Contains(err.Error(), awsSecret) || text != "" {
			t.Errorf("%s: %q %v; want ErrSecret naming %q, never the secret", c.path, text, err, c.kind)
		}
	}
	if _, text, err := Read(root, "deploy/deploy.go"); err != nil || !strings.Contains(text, "Rollout") {
		t.Fatalf("control: %q %v", text, err)
	}
	p := New(t.TempDir(), nil).Project(root)
	m, err := p.Map("", "", "symbols")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		secret := f.Path == ".env" || f.Path == ".ssh/id_ed25519"
		if secret && (f.Skipped != "holds a credential" || len(f.Symbols) > 0) {
			t.Errorf("map: %s: skipped %q, %d symbols; want not indexed", f.Path, f.Skipped, len(f.Symbols))
		}
		if !secret && f.Skipped != "" {
			t.Errorf("map: %s skipped: %s", f.Path, f.Skipped)
		}
	}
	for _, q := range []string{"AWS secret access key", "deploy settings", "OPENSSH PRIVATE KEY"} {
		a, err := p.Find(FindQuery{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range append(a.Hits, a.Also...) {
			if h.Path == ".env" || strings.HasPrefix(h.Path, ".ssh") {
				t.Errorf("find %q: %s answered", q, h.Path)
			}
		}
	}
	if a, _ := p.Find(FindQuery{Query: "rollout release fleet"}); len(a.Hits) == 0 || a.Hits[0].Path != "deploy/deploy.go" {
		t.Errorf("control: find rollout: %+v", a.Hits)
	}
}

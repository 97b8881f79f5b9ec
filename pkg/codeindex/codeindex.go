// Package codeindex keeps a derived index of each project's code for the
// project tools: a map of the files with their symbols, and the symbols
// found by a query.
//
// One entry per symbol: each code file is split by package ingest's
// splitters (byte-exact, never cutting a declaration), one declaration a
// symbol — a small class or struct whole, a large one per member — with
// its line range. The index is derived and rebuildable: a manifest per
// project (the files' sizes, mtimes, checksums and symbols, no code) in its
// own directory under the store, code/<hash of the root>/, apart from the
// memories; deleting it costs one cold index. It never enters the
// long-term store's search, facts or audit log.
//
// Every call syncs first: each file's size and mtime are compared with the
// manifest, and only a file whose size or mtime moved is read — its
// checksum decides whether it changed (re-split) or was only touched.
// Removed files drop out. .gitignore files are honoured (see ignore.go),
// .git is skipped, symlinks are not followed, and a file over MaxFileBytes
// or that is not UTF-8 text is listed as skipped, never read again while
// its size and mtime stay.
//
// The inverted index (package index) lives in memory only, built from the
// files the first time a query needs it in this daemon's life; queries are
// ranked and judged by package lookup, as a search of memories is.
package codeindex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
	"github.com/ihmt-dev/ihmt/pkg/index"
)

// Bounds of an index.
const (
	// MaxFileBytes is the largest file indexed: bigger ones are generated
	// code, data or bundles, whose map entry says so.
	MaxFileBytes = 1 << 20
	// MaxFiles bounds one project's files; past it the walk stops and the
	// map says it was cut.
	MaxFiles = 50000
	// maxProjects bounds the projects held in memory; the least recently
	// used one is let go (its manifest stays on disk).
	maxProjects     = 16
	manifestVersion = 1
)

// Indexes is every project's index under one directory.
type Indexes struct {
	dir string
	log *slog.Logger

	mu       sync.Mutex
	projects map[string]*Project
}

// New returns the indexes kept under dir (created on first write).
func New(dir string, log *slog.Logger) *Indexes {
	if log == nil {
		log = slog.Default()
	}
	return &Indexes{dir: dir, log: log, projects: map[string]*Project{}}
}

// Project returns the index of the project at root (checked by Root),
// loading its manifest if one was kept.
func (x *Indexes) Project(root string) *Project {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.projects[root]
	if p == nil {
		if len(x.projects) >= maxProjects {
			x.evict()
		}
		sum := sha256.Sum256([]byte(root))
		p = &Project{root: root, dir: filepath.Join(x.dir, hex.EncodeToString(sum[:8])), log: x.log, files: map[string]*file{}}
		p.load()
		x.projects[root] = p
	}
	p.used = time.Now()
	return p
}

func (x *Indexes) evict() {
	var oldest string
	for r, p := range x.projects {
		if oldest == "" || p.used.Before(x.projects[oldest].used) {
			oldest = r
		}
	}
	delete(x.projects, oldest)
}

// Project is one project's index. Its methods are safe for concurrent use:
// one call at a time syncs and answers.
type Project struct {
	root, dir string
	log       *slog.Logger
	used      time.Time

	mu        sync.Mutex
	files     map[string]*file // by path relative to the root
	truncated bool
	nextGroup index.Group
	ix        *index.Index // nil until a query needs it
	docs      map[index.Doc]symRef
	dead      int
}

// file is one file as indexed.
type file struct {
	Path    string   `json:"path"`
	Size    int64    `json:"size"`
	ModTime int64    `json:"mtime"` // unix nanoseconds
	Sum     string   `json:"sum"`
	Lines   int      `json:"lines"`
	Code    bool     `json:"code,omitempty"`
	Skipped string   `json:"skipped,omitempty"` // why it is not read: "too big" or "not text"
	Symbols []Symbol `json:"symbols,omitempty"`

	group index.Group
	docs  []index.Doc // in ix, when built
}

// Symbol is one declaration: its name, what it is, and where.
type Symbol struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"` // type, func, method, imports or decl
	First int    `json:"first"`
	Last  int    `json:"last"`
	Start int    `json:"start"` // byte offsets of its text
	End   int    `json:"end"`
}

type symRef struct {
	f *file
	i int
}

type manifest struct {
	Version int     `json:"version"`
	Root    string  `json:"root"`
	Files   []*file `json:"files"`
}

// load reads the project's manifest; a missing or unreadable one means a
// cold index, never an error: the manifest is derived.
func (p *Project) load() {
	data, err := os.ReadFile(filepath.Join(p.dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var m manifest
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil || m.Version != manifestVersion || m.Root != p.root {
		p.log.Warn("code index manifest unreadable; indexing the project again", "root", p.root, "err", err)
		return
	}
	for _, f := range m.Files {
		p.nextGroup++
		f.group = p.nextGroup
		p.files[f.Path] = f
	}
}

// save writes the manifest.
func (p *Project) save() error {
	m := manifest{Version: manifestVersion, Root: p.root}
	for _, f := range p.files {
		m.Files = append(m.Files, f)
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return fmt.Errorf("code index directory: %w", err)
	}
	// A store kept under git should not carry a derived index.
	ignore := filepath.Join(filepath.Dir(p.dir), ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
		_ = os.WriteFile(ignore, []byte("# Derived from the projects' files (ihmt's code index): rebuilt when missing.\n*\n"), 0o600)
	}
	if err := atomicfile.Write(filepath.Join(p.dir, "manifest.json"), data, 0o600); err != nil {
		return fmt.Errorf("code index manifest: %w", err)
	}
	return nil
}

// Stats says what a sync did.
type Stats struct {
	Files, Symbols                           int
	Reindexed, Removed, Checksummed, Skipped int
	Took                                     time.Duration
}

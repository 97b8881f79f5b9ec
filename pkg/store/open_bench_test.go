package store_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// TestGenerateStore builds a store of IHMT_GEN_N bench memories in
// IHMT_GEN_DIR (kept), for measuring opens at scale (BenchmarkOpenKept).
// It is skipped unless both are set.
func TestGenerateStore(t *testing.T) {
	dir, n := os.Getenv("IHMT_GEN_DIR"), os.Getenv("IHMT_GEN_N")
	if dir == "" || n == "" {
		t.Skip("set IHMT_GEN_DIR and IHMT_GEN_N to generate a store")
	}
	count, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var failed atomic.Int64
	fanOut(64, count, func(i int) time.Duration {
		if _, err := s.Save(context.Background(), store.SaveInput{Caller: benchCaller(i), Content: benchText(i)}); err != nil {
			failed.Add(1)
		}
		return 0
	})
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d saves failed", n)
	}
	s.Flush()
	t.Logf("saved %d memories in %v", count, time.Since(start).Round(time.Millisecond))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkOpenKept opens the store in IHMT_OPEN_DIR (made by
// TestGenerateStore) once per iteration: open → ready.
func BenchmarkOpenKept(b *testing.B) {
	dir := os.Getenv("IHMT_OPEN_DIR")
	if dir == "" {
		b.Skip("set IHMT_OPEN_DIR to a kept store")
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	for b.Loop() {
		s, err := store.Open(dir, store.Options{Logger: logger})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// TestGrowStore adds leaf files for bench memories IHMT_GROW_FROM up to
// IHMT_GROW_TO to the closed store in IHMT_GROW_DIR, written directly (no
// log entries): a fast way to a store of a million leaves, which saves
// would take most of an hour to reach. The next open takes them in as
// leaves the log does not name, as it would hand-copied files.
func TestGrowStore(t *testing.T) {
	dir := os.Getenv("IHMT_GROW_DIR")
	from, err1 := strconv.Atoi(os.Getenv("IHMT_GROW_FROM"))
	to, err2 := strconv.Atoi(os.Getenv("IHMT_GROW_TO"))
	if dir == "" || err1 != nil || err2 != nil {
		t.Skip("set IHMT_GROW_DIR, IHMT_GROW_FROM and IHMT_GROW_TO to grow a store")
	}
	base := time.Now().UTC()
	var failed atomic.Int64
	fanOut(8, to-from, func(k int) time.Duration {
		i := from + k
		c := benchCaller(i)
		text := benchText(i)
		at := base.Add(time.Duration(k) * time.Microsecond)
		h := leaf.Header{ValidFrom: at, RecordedAt: at, Scope: leaf.ScopeProject, Project: c.Project,
			Agent: c.Agent, Session: c.Session, Trust: leaf.TrustAsserted, Status: leaf.StatusActive, Checksum: leaf.Checksum(text)}
		h.ID = leaf.ID(h, text)
		data, err := leaf.Encode(leaf.Leaf{Header: h, Text: text})
		if err == nil {
			sub := filepath.Join(dir, "leaves", h.ID[:2])
			if err = os.MkdirAll(sub, 0o700); err == nil {
				err = os.WriteFile(filepath.Join(sub, h.ID+".txt"), data, 0o600)
			}
		}
		if err != nil {
			failed.Add(1)
		}
		return 0
	})
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d leaves not written", n)
	}
}

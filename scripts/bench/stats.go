package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Lat summarizes a sample of latencies, in milliseconds.
type Lat struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

func summarize(ds []time.Duration) Lat {
	if len(ds) == 0 {
		return Lat{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	// Nearest rank: the smallest value with at least q of the sample at or
	// below it.
	rank := func(q float64) float64 {
		i := int(q*float64(len(s))+0.999999) - 1
		return ms(s[max(0, min(i, len(s)-1))])
	}
	return Lat{N: len(s), P50: rank(0.50), P90: rank(0.90), P99: rank(0.99), Max: ms(s[len(s)-1]), Mean: ms(sum / time.Duration(len(s)))}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// fmtMs prints milliseconds with precision that suits their size.
func fmtMs(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 1:
		return fmt.Sprintf("%.3f ms", v)
	case v < 10:
		return fmt.Sprintf("%.2f ms", v)
	case v < 1000:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f s", v/1000)
}

// thousands renders n with thin separators: 100,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// Mem is a memory sample of the bench process, which hosts the daemon.
type Mem struct {
	Leaves       int64   `json:"leaves"`
	HeapInuseMiB float64 `json:"heap_inuse_mib"`
	HeapAllocMiB float64 `json:"heap_alloc_mib"`
	SysMiB       float64 `json:"sys_mib"`
	RSSMiB       float64 `json:"rss_mib"`
	Note         string  `json:"note"`
}

func memSample(leaves int64) Mem {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rss, _ := procStatus(os.Getpid(), "VmRSS")
	return Mem{
		Leaves: leaves, HeapInuseMiB: mib(m.HeapInuse), HeapAllocMiB: mib(m.HeapAlloc), SysMiB: mib(m.Sys), RSSMiB: mib(rss),
		Note: "bench process: in-process daemon + bench clients, after GC",
	}
}

// procStatus reads a "kB" field of /proc/<pid>/status (Linux only) in bytes.
func procStatus(pid int, field string) (uint64, bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseUint(fs[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// countLeafFiles counts the leaf files the store has written so far.
func countLeafFiles(dataDir string) int64 {
	var n int64
	filepath.WalkDir(filepath.Join(dataDir, "leaves"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txt") && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return nil
	})
	return n
}

// dirSize is the total size of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// fsyncBaseline times append+fsync of a 600-byte record in dir: the floor
// under any durable save on this disk.
func fsyncBaseline(dir string, n int) (Lat, error) {
	f, err := os.CreateTemp(dir, "fsync")
	if err != nil {
		return Lat{}, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	rec := make([]byte, 600)
	var ds []time.Duration
	for range n {
		t := time.Now()
		if _, err := f.Write(rec); err != nil {
			return Lat{}, err
		}
		if err := f.Sync(); err != nil {
			return Lat{}, err
		}
		ds = append(ds, time.Since(t))
	}
	return summarize(ds), nil
}

// createBaseline times what the leaf writer does per file, minus the
// syncs: create a temp file, write 900 bytes, close, rename it into place,
// spread over 256 directories as the store shards leaves.
func createBaseline(dir string, n int) (Lat, error) {
	root, err := os.MkdirTemp(dir, "create")
	if err != nil {
		return Lat{}, err
	}
	defer os.RemoveAll(root)
	for i := range 256 {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("%02x", i)), 0o700); err != nil {
			return Lat{}, err
		}
	}
	data := make([]byte, 900)
	var ds []time.Duration
	for i := range n {
		d := filepath.Join(root, fmt.Sprintf("%02x", i%256))
		t := time.Now()
		f, err := os.CreateTemp(d, ".leaf.tmp*")
		if err != nil {
			return Lat{}, err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), filepath.Join(d, fmt.Sprintf("%d.txt", i)))
		}
		if err != nil {
			return Lat{}, err
		}
		ds = append(ds, time.Since(t))
	}
	return summarize(ds), nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

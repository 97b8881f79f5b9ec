package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report is what the runner prints on stdout as JSON: the figures
// scripts/bench sets beside ihmtd's. Field names match the bench's own
// where the figure is the same (a latency is n, p50_ms, p90_ms, …).
type Report struct {
	Driver     string     `json:"driver"`
	Settings   string     `json:"settings"`
	Throughput []Level    `json:"throughput"`
	Preload    []Load     `json:"preload"`
	SaveLat    []AtSize   `json:"save_latency"`
	Search     []SearchAt `json:"search"`
	Reopen     *Reopen    `json:"reopen,omitempty"`
	Disk       Disk       `json:"disk"`
	Notes      []string   `json:"notes,omitempty"`
	Seconds    float64    `json:"total_seconds"`
	Error      string     `json:"error,omitempty"`
}

// Level is one level of the concurrent-save phase.
type Level struct {
	Writers   int     `json:"writers"`
	Conns     string  `json:"connections"` // "own": one each; "shared": one for all
	Saves     int     `json:"saves"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"saves_per_second"`
	Latency   Lat     `json:"latency"`
	Before    int     `json:"memories_before"`
	Errors    int     `json:"errors"`
	FirstErr  string  `json:"first_error,omitempty"`
}

// Load is one stage of the bulk load.
type Load struct {
	From      int     `json:"from"`
	To        int     `json:"to"`
	Batch     int     `json:"batch"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"memories_per_second"`
}

// AtSize is single saves timed at a database size.
type AtSize struct {
	Memories int `json:"memories"`
	Latency  Lat `json:"latency"`
}

// SearchAt is a search sample at a database size in one scope.
type SearchAt struct {
	Memories int     `json:"memories"`
	Scope    Scope   `json:"scope"`
	Latency  Lat     `json:"latency"`
	MeanHits float64 `json:"mean_results"`
	Empty    int     `json:"searches_without_results"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
}

// Reopen is a fresh process opening the loaded database: the time from its
// start until the first question is answered, the searches it then runs
// and its resident size after them.
type Reopen struct {
	Memories     int      `json:"memories"`
	FirstAnswerS float64  `json:"open_to_first_answer_seconds"`
	Search       SearchAt `json:"search"`
	RSSMiB       float64  `json:"rss_mib"`
	MaxRSSMiB    float64  `json:"max_rss_mib"`
	Error        string   `json:"error,omitempty"`
}

// Disk is the database's files once it is closed, in bytes.
type Disk struct {
	DB    int64 `json:"db"`
	WAL   int64 `json:"wal"`
	SHM   int64 `json:"shm"`
	Total int64 `json:"total"`
}

// Lat summarizes latencies in milliseconds, as the bench's Lat does.
type Lat struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

// summarize is the bench's: nearest-rank percentiles, so both sides' p99
// mean the same thing.
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
	rank := func(q float64) float64 {
		i := int(q*float64(len(s))+0.999999) - 1
		return ms(s[max(0, min(i, len(s)-1))])
	}
	return Lat{N: len(s), P50: rank(0.50), P90: rank(0.90), P99: rank(0.99), Max: ms(s[len(s)-1]), Mean: ms(sum / time.Duration(len(s)))}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// diskOf sums the database file and its WAL and shared-memory files.
func diskOf(path string) Disk {
	size := func(p string) int64 {
		if fi, err := os.Stat(p); err == nil {
			return fi.Size()
		}
		return 0
	}
	d := Disk{DB: size(path), WAL: size(path + "-wal"), SHM: size(path + "-shm")}
	d.Total = d.DB + d.WAL + d.SHM
	return d
}

// selfStatus reads a "kB" field of /proc/self/status in bytes (Linux).
func selfStatus(field string) (uint64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return statusField(f, field)
}

func statusField(f io.Reader, field string) (uint64, bool) {
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

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fts5: "+format+"\n", args...)
}

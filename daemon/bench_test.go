package daemon_test

// BenchmarkSaveOverSocket measures durable saves through the whole stack a
// shim uses: the client library, gRPC over a real Unix socket, the daemon's
// service, and the store's group commit. scripts/bench has the fuller
// picture (latency vs store size, search, the MCP shim).

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/daemon"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

var (
	benchTechs = strings.Fields("PostgreSQL SQLite Redis Kafka NATS gRPC Docker Kubernetes Terraform Nix Bazel Go Rust Python TypeScript React Vite pytest Prometheus Grafana ClickHouse DuckDB Caddy nginx Envoy Vault etcd MinIO")
	benchParts = strings.Fields("billing auth search payments inventory shipping reporting analytics ingest export sync audit admin edge batch realtime")
	benchNouns = strings.Fields("service gateway worker scheduler indexer pipeline dashboard frontend api cache queue cluster database migration webhook proxy")
)

// benchText returns a unique memory of 200–500 bytes for (run, i).
func benchText(run uint64, i int) string {
	r := rand.New(rand.NewPCG(run, uint64(i)))
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	var b strings.Builder
	for b.Len() < 200+r.IntN(250) {
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "We chose %s over %s for the %s %s. ", pick(benchTechs), pick(benchTechs), pick(benchParts), pick(benchNouns))
		} else {
			fmt.Fprintf(&b, "The %s %s listens on port %d and talks to %s. ", pick(benchParts), pick(benchNouns), 1024+r.IntN(60000), pick(benchTechs))
		}
	}
	fmt.Fprintf(&b, "See PR #%d.", 1000+i)
	return b.String()
}

// startDaemon runs daemon.Run in a goroutine on a fresh store and waits
// until it serves. The socket lives under a short temp dir: b.TempDir paths
// can exceed the Unix socket path limit.
func startDaemon(b *testing.B) string {
	b.Helper()
	sockDir, err := os.MkdirTemp("", "ihmtb")
	if err != nil {
		b.Fatal(err)
	}
	p := paths.Paths{Data: filepath.Join(b.TempDir(), "store"), Socket: filepath.Join(sockDir, "d.sock")}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Config{Paths: p, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	}()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("daemon: %v", err)
		}
		os.RemoveAll(sockDir)
	})
	c, err := client.New(client.Options{Socket: p.Socket})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err := c.Ping(ctx); err == nil {
			return p.Socket
		} else if time.Now().After(deadline) {
			b.Fatalf("daemon not serving: %v", err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// BenchmarkSaveOverSocket: 1, 4 and 16 clients, each with its own
// connection and one save in flight at a time, as agents' shims behave.
func BenchmarkSaveOverSocket(b *testing.B) {
	var run atomic.Uint64 // every round writes texts of its own
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			sock := startDaemon(b)
			seed := run.Add(1)
			clients := make([]*client.Client, n)
			for k := range clients {
				c, err := client.New(client.Options{Socket: sock, Caller: &ihmtv1.Caller{
					AgentName: "bench", AgentVersion: "1", SessionId: fmt.Sprintf("s%d", k), Project: fmt.Sprintf("github.com/acme/svc-%d", k%5),
				}})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				clients[k] = c
				// Dial before the clock starts.
				if _, err := c.Stats(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			texts := make([]string, b.N)
			for i := range texts {
				texts[i] = benchText(seed, i)
			}
			var next, failed atomic.Int64
			lat := make([][]time.Duration, n)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for k, c := range clients {
				wg.Go(func() {
					for {
						i := int(next.Add(1) - 1)
						if i >= b.N {
							return
						}
						t := time.Now()
						resp, err := c.Save(context.Background(), &ihmtv1.SaveRequest{Content: texts[i]})
						lat[k] = append(lat[k], time.Since(t))
						if err != nil || resp.GetStatus() != ihmtv1.SaveStatus_SAVE_STATUS_SAVED {
							failed.Add(1)
						}
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if f := failed.Load(); f > 0 {
				b.Fatalf("%d of %d saves failed or were not new", f, b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "saves/s")
			all := slices.Concat(lat...)
			slices.Sort(all)
			b.ReportMetric(float64(all[(len(all)-1)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(all[(len(all)*99+99)/100-1].Microseconds()), "p99-µs")
		})
	}
}

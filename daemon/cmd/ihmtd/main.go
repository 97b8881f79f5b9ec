// Command ihmtd is the IHMT daemon: the single writer of a user's memory.
// Agents reach it through ihmt-mcp, people through ihmt; both start it on
// demand, or a systemd user unit / launchd agent keeps it running.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ihmt-dev/ihmt/daemon"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/version"
)

func main() {
	p, pathErr := paths.Default()
	data := flag.String("data", p.Data, "store directory (default: $IHMT_HOME, else the user data dir)")
	socket := flag.String("socket", p.Socket, "Unix socket to listen on (default: $IHMT_SOCKET, else the per-user runtime dir)")
	idle := flag.Duration("idle-exit", 0, "stop after this long without a call (0: never; set when started on demand)")
	level := flag.String("log-level", "info", "log level: debug, info, warn or error")
	profiles := flag.String("pprof-socket", "", "serve Go's runtime profiles (net/http/pprof) on this Unix socket, read with: curl --unix-socket SOCK http://ihmtd/debug/pprof/profile?seconds=20 > cpu.prof")
	showVersion := flag.Bool("version", false, "print the version and exit")
	signals := flag.Bool("signals", false, "list the retrieval signals (name, a tab, why) and exit; IHMT_SIGNALS_OFF=a,b switches some off, for measuring")
	rebuild := flag.Bool("rebuild", false, "rebuild every derived file (index, fact timelines, summary tree) from the leaf files, offline, and exit; fails while a daemon runs (use `ihmt rebuild` then)")
	flag.Parse()
	if *showVersion {
		fmt.Println("ihmtd", version.Describe())
		return
	}
	if *signals {
		for _, s := range recall.Signals {
			fmt.Printf("%s\t%s\n", s.Name, s.Why)
		}
		return
	}

	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(os.Stderr, "ihmtd: bad -log-level %q: use debug, info, warn or error\n", *level)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))

	if pathErr != nil && (*data == "" || *socket == "") {
		log.Error("cannot resolve paths", "err", pathErr)
		os.Exit(1)
	}
	for name, v := range map[string]string{"-data": *data, "-socket": *socket, "-pprof-socket": *profiles} {
		if !filepath.IsAbs(v) && (v != "" || name != "-pprof-socket") {
			log.Error("path must be absolute", "flag", name, "value", v)
			os.Exit(2)
		}
	}
	if *rebuild {
		r, err := daemon.RebuildOffline(context.Background(), paths.Paths{Data: *data, Socket: *socket}, log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ihmtd -rebuild:", err)
			os.Exit(1)
		}
		fmt.Printf("rebuilt %s from the leaf files in %.1f s: %d memories, %d facts, %d summary branches over %d layers\n",
			*data, r.Took.Seconds(), r.Memories, r.Facts, r.Tree.Branches, r.Tree.Layers)
		return
	}
	err := daemon.Run(context.Background(), daemon.Config{
		Paths:         paths.Paths{Data: *data, Socket: *socket},
		IdleExit:      *idle,
		Logger:        log,
		ProfileSocket: *profiles,
		SignalsOff:    signalsOff(),
	})
	switch {
	case errors.Is(err, daemon.ErrLockHeld):
		// Said plainly: a person who ran ihmtd twice needs one line, not a
		// structured log record.
		fmt.Fprintln(os.Stderr, "ihmtd:", err)
		os.Exit(daemon.ExitLockHeld)
	case err != nil:
		log.Error("ihmtd failed", "err", err)
		os.Exit(1)
	}
}

// signalsOff reads IHMT_SIGNALS_OFF: retrieval signals to switch off, for
// measuring (scripts/eval -ablate). The store refuses a name it does not
// know.
func signalsOff() []string {
	v := strings.TrimSpace(os.Getenv("IHMT_SIGNALS_OFF"))
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

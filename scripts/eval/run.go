package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// askAgent is the MCP client name the questions are asked under.
const askAgent = "ihmt-eval"

// savedSet is what -keep leaves beside the store: which set was saved,
// with which signals off, and which set id each memory the store made
// stands for.
type savedSet struct {
	SetSHA256  string            `json:"set_sha256"`
	SignalsOff []string          `json:"signals_off,omitempty"`
	IDs        map[string]string `json:"ids"` // store id → set id
}

const savedFile = "eval-saved.json"

// job is one run: a set on its own store, with some signals off.
type job struct {
	path, name string
	set        *evalSet
	off        []string // sorted; nil: every signal on
}

// keepDir is where -keep keeps a job's store: one directory per set and
// signal configuration, so that each is saved once and re-asked after.
func (j job) keepDir(keep string) string {
	if keep == "" {
		return ""
	}
	name := j.name
	if len(j.off) > 0 {
		name += ".off-" + strings.Join(j.off, "+")
	}
	return filepath.Join(keep, name)
}

// runSet saves the job's set (unless -keep names a store that holds it
// already) on a fresh ihmtd with the job's signals off, and asks every
// question. It returns the report and every question's outcome, in the
// set's order.
func runSet(ctx context.Context, cfg config, bins testenv.Binaries, j job, stderr io.Writer) (report, []outcome, error) {
	set := j.set
	rep := report{Set: j.path, Name: j.name, SignalsOff: j.off, Memories: len(set.Memories), Questions: len(set.Questions)}
	start := time.Now()
	dir, cleanup, err := runDir(j.keepDir(cfg.keep))
	if err != nil {
		return rep, nil, err
	}
	defer cleanup()
	sum, err := fileSHA256(j.path)
	if err != nil {
		return rep, nil, err
	}
	prev, err := readSaved(dir, sum, j.off)
	if err != nil {
		return rep, nil, err
	}
	var env []string
	if len(j.off) > 0 {
		env = append(env, signalsOffEnv+"="+strings.Join(j.off, ","))
	}
	w, err := testenv.StartLive(ctx, bins, filepath.Join(dir, "store"), filepath.Join(dir, "work"), env...)
	if err != nil {
		return rep, nil, err
	}
	defer w.Stop()

	// Every shim starts at once: the savers and the askers alike.
	keys := set.savers()
	if prev != nil {
		keys = nil
	}
	for _, p := range askProjects(set) {
		keys = append(keys, testenv.ShimKey{Project: p, Agent: askAgent})
	}
	shims, err := w.Shims(ctx, keys)
	if err != nil {
		return rep, nil, err
	}

	ids := map[string]string{}
	t0 := time.Now()
	if prev != nil {
		ids, rep.Reused = prev.IDs, true
	} else {
		if rep.Saved, err = saveAll(ctx, set, shims, ids, stderr); err != nil {
			return rep, nil, fmt.Errorf("%s: %w", j.name, err)
		}
		if cfg.keep != "" {
			if err := writeSaved(dir, savedSet{SetSHA256: sum, SignalsOff: j.off, IDs: ids}); err != nil {
				return rep, nil, err
			}
		}
	}
	rep.SaveSec = time.Since(t0).Seconds()

	t1 := time.Now()
	outs := askAll(ctx, set, shims, ids, cfg.workers)
	rep.AskSec = time.Since(t1).Seconds()
	rep.Kinds, rep.Total, rep.Misses = tallyRows(set, outs, cfg.verbose || cfg.json)
	err = w.Stop()
	rep.TotalSec = time.Since(start).Seconds()
	return rep, outs, err
}

// runDir is where the store and the shims' working directories go: the
// -keep directory, else a temporary one that cleanup removes.
func runDir(keep string) (string, func(), error) {
	if keep != "" {
		abs, err := filepath.Abs(keep)
		if err != nil {
			return "", nil, err
		}
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return "", nil, fmt.Errorf("-keep: %w", err)
		}
		return abs, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "ihmt-eval-*")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// readSaved returns what an earlier -keep run saved in dir, nil when dir
// holds no store yet. A store of another set, or one whose saves did not
// finish, is refused rather than asked.
func readSaved(dir, sum string, off []string) (*savedSet, error) {
	data, err := os.ReadFile(filepath.Join(dir, savedFile))
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
			return nil, fmt.Errorf("%s holds a store but no %s (an interrupted run?): remove the directory or name another", dir, savedFile)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s savedSet
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w (remove the directory to save afresh)", filepath.Join(dir, savedFile), err)
	}
	if s.SetSHA256 != sum {
		return nil, fmt.Errorf("%s holds the saves of another set (or an older version of it): remove the directory or name another", dir)
	}
	if !slices.Equal(s.SignalsOff, off) {
		return nil, fmt.Errorf("%s holds saves made with signals %v off, not %v: remove the directory or name another", dir, s.SignalsOff, off)
	}
	return &s, nil
}

func writeSaved(dir string, s savedSet) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, savedFile), data, 0o600)
}

func fileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

// askProjects lists the projects questions are asked from, in first use.
func askProjects(set *evalSet) []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range set.Questions {
		if !seen[q.Project] {
			seen[q.Project] = true
			out = append(out, q.Project)
		}
	}
	return out
}

// saveAll saves every memory in order through its (project, agent) shim,
// one at a time: order decides what corrects what. ids gets every store id
// a save made (a long text may become several). A refused save is reported
// and counted out; any other failure ends the run.
func saveAll(ctx context.Context, set *evalSet, shims map[testenv.ShimKey]*testenv.LiveShim, ids map[string]string, stderr io.Writer) (int, error) {
	n := 0
	for _, m := range set.Memories {
		args := map[string]any{"content": m.Text}
		if m.Date != "" {
			args["date"] = m.Date
		}
		if m.Project == "" {
			args["scope"] = "global"
		}
		var r saved
		if err := shims[testenv.ShimKey{Project: m.Project, Agent: m.Agent}].Call(ctx, "save_memory", args, &r); err != nil {
			return n, fmt.Errorf("save %s: %w", m.ID, err)
		}
		switch r.Status {
		case "saved", "duplicate", "pending_review":
		default:
			fmt.Fprintf(stderr, "eval: save %s: status %s\n", m.ID, r.Status)
			continue
		}
		n++
		for _, id := range append([]string{r.ID}, r.IDs...) {
			if _, ok := ids[id]; id != "" && !ok {
				ids[id] = m.ID
			}
		}
	}
	return n, nil
}

// askAll asks every question through its project's shim, a few at a time
// (reads run concurrently in the daemon), and returns the outcomes in the
// set's order.
func askAll(ctx context.Context, set *evalSet, shims map[testenv.ShimKey]*testenv.LiveShim, ids map[string]string, workers int) []outcome {
	outs := make([]outcome, len(set.Questions))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				outs[i] = ask(ctx, set.Questions[i], shims[testenv.ShimKey{Project: set.Questions[i].Project, Agent: askAgent}], ids)
			}
		})
	}
	for i := range set.Questions {
		next <- i
	}
	close(next)
	wg.Wait()
	return outs
}

func ask(ctx context.Context, q question, s *testenv.LiveShim, ids map[string]string) outcome {
	args := map[string]any{"query": q.Query, "limit": 5}
	if q.Project == "" {
		args["scope"] = "all"
	}
	if q.AsOf != "" {
		args["as_of"] = q.AsOf
	}
	var a answer
	if err := s.Call(ctx, "search_memory", args, &a); err != nil {
		return outcome{Q: q, Status: "error", Err: err.Error()}
	}
	o := outcome{Q: q, Status: a.Status}
	for _, id := range a.ranked() {
		sid, ok := ids[id]
		if !ok {
			sid = "?" + id
		}
		o.Ranked = append(o.Ranked, sid)
	}
	return o
}

// Command contextbench measures the memory hooks (`ihmt context --hook`)
// on the dev set, through the real programs: it builds ihmt and ihmtd,
// starts a daemon on a throwaway store, saves the dev set's memories with
// their dates, projects and agents, and then runs the hook exactly as an
// agent does — a new process per event, its JSON on stdin — printing:
//
//   - tokens injected per session start, for each project and globally;
//   - for each of the dev set's questions asked as a prompt (from its
//     project, each in a session of its own), whether the per-prompt hook
//     injected the right memory, nothing, or a wrong one, by kind;
//   - p50 and p95 of a hook's wall time, process start included.
//
// The figures move with retrieval: run it again after a change to search.
//
//	go run ./scripts/contextbench [-devset ../shared/data/devset/devset.jsonl] [-runs 20]
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

type line struct {
	// memory
	ID, Date, Project, Agent, Text string
	// question
	QID, Query, Kind string
	Expect, Forbid   []string
}

func main() {
	devset := flag.String("devset", "../shared/data/devset/devset.jsonl", "the dev set (JSON lines: memories, then questions)")
	runs := flag.Int("runs", 20, "session starts timed per project, for the latency figures")
	flag.Parse()
	if err := run(*devset, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "contextbench:", err)
		os.Exit(1)
	}
}

// projectKey is a dev set project as a project key.
func projectKey(p string) string {
	if p == "" {
		return ""
	}
	return "github.com/devset/" + p
}

func run(devset string, runs int) error {
	mems, qs, err := read(devset)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "ihmt-contextbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./daemon/cmd/ihmtd", "./client/cmd/ihmt")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build (run from the repository root): %v\n%s", err, out)
	}
	sock := filepath.Join(work, "run", "ihmtd.sock")
	os.MkdirAll(filepath.Dir(sock), 0o700)
	d := exec.Command(filepath.Join(bin, "ihmtd"), "-data", filepath.Join(work, "store"), "-socket", sock, "-log-level", "warn")
	d.Stderr = os.Stderr
	if err := d.Start(); err != nil {
		return err
	}
	defer func() { d.Process.Signal(os.Interrupt); d.Wait() }()
	ids, err := saveAll(sock, mems)
	if err != nil {
		return err
	}
	h := hook{bin: filepath.Join(bin, "ihmt"), sock: sock, home: work}
	if err := h.starts(mems, runs); err != nil {
		return err
	}
	return h.prompts(qs, ids)
}

func read(path string) (mems, qs []line, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if l.QID != "" {
			qs = append(qs, l)
		} else {
			mems = append(mems, l)
		}
	}
	return mems, qs, sc.Err()
}

// saveAll saves the memories in file order, each by its agent in its
// project, and returns the store's id of each dev set id.
func saveAll(sock string, mems []line) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.New(client.Options{Socket: sock, StartTimeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	for c.Ping(ctx) != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ihmtd did not start: %w", ctx.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ids := map[string]string{}
	statuses := map[string]int{}
	for _, m := range mems {
		scope := ihmtv1.Scope_SCOPE_PROJECT
		if m.Project == "" {
			scope = ihmtv1.Scope_SCOPE_GLOBAL
		}
		r, err := c.Save(ctx, &ihmtv1.SaveRequest{Content: m.Text, Date: m.Date, Scope: scope,
			Caller: &ihmtv1.Caller{AgentName: m.Agent, AgentVersion: "devset", SessionId: "devset-" + m.Date, Project: projectKey(m.Project)}})
		if err != nil {
			return nil, fmt.Errorf("save %s: %w", m.ID, err)
		}
		ids[r.GetId()] = m.ID
		statuses[strings.ToLower(strings.TrimPrefix(r.GetStatus().String(), "SAVE_STATUS_"))]++
	}
	fmt.Printf("saved %d dev set memories: %v\n\n", len(mems), statuses)
	return ids, nil
}

type hook struct{ bin, sock, home string }

// call runs one hook process and returns what it injected and its time.
func (h hook) call(project, session, event, prompt string) (string, time.Duration, error) {
	in, _ := json.Marshal(map[string]string{"session_id": session, "cwd": h.home, "hook_event_name": event, "source": "startup", "prompt": prompt})
	cmd := exec.Command(h.bin, "--socket", h.sock, "context", "--hook", "claude")
	cmd.Env = []string{"HOME=" + h.home, "PATH=" + os.Getenv("PATH"), "IHMT_PROJECT=" + project}
	if project == "" {
		// No project: a directory outside git is its own key, so the
		// global-only view needs a key no memory has.
		cmd.Env[2] = "IHMT_PROJECT=github.com/devset/none"
	}
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return "", took, fmt.Errorf("hook: %v: %s", err, errb.String())
	}
	if out.Len() == 0 {
		return "", took, nil
	}
	var v struct {
		HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		return "", took, fmt.Errorf("hook output %q: %w", out.String(), err)
	}
	return v.HookSpecificOutput.AdditionalContext, took, nil
}

// tokens is the hooks' own estimate: four characters a token.
func tokens(s string) int { return (len([]rune(s)) + 3) / 4 }

func (h hook) starts(mems []line, runs int) error {
	projects := []string{""}
	for _, m := range mems {
		if !slices.Contains(projects, m.Project) {
			projects = append(projects, m.Project)
		}
	}
	fmt.Println("session start (default budget):")
	var times []time.Duration
	total, n := 0, 0
	for _, p := range projects {
		var text string
		for i := range runs {
			t, took, err := h.call(projectKey(p), fmt.Sprintf("start-%s-%d", p, i), "SessionStart", "")
			if err != nil {
				return err
			}
			if i > 0 && t != text {
				return fmt.Errorf("project %q: two session starts gave two briefings", p)
			}
			text = t
			times = append(times, took)
		}
		name := p
		if name == "" {
			name = "(global only)"
		}
		left := regexp.MustCompile(`(\d+) more left out`).FindStringSubmatch(text)
		out := "0"
		if left != nil {
			out = left[1]
		}
		fmt.Printf("  %-14s %4d tokens, %2d lines, %3s left out\n", name, tokens(text), strings.Count(text, "\n- "), out)
		if *showBrief {
			fmt.Println(text)
		}
		total += tokens(text)
		n++
	}
	fmt.Printf("  mean %d tokens per session start\n", total/max(n, 1))
	fmt.Printf("  hook wall time, process start included: %s\n\n", quantiles(times))
	return nil
}

var idRe = regexp.MustCompile(`\(id ([0-9a-f]{16})\)`)

func (h hook) prompts(qs []line, ids map[string]string) error {
	type tally struct{ right, nothing, wrong, other, n int }
	byKind := map[string]*tally{}
	var kinds []string
	var times []time.Duration
	toks, injections := 0, 0
	var wrongs []string
	for i, q := range qs {
		text, took, err := h.call(projectKey(q.Project), fmt.Sprintf("prompt-%d", i), "UserPromptSubmit", q.Query)
		if err != nil {
			return err
		}
		times = append(times, took)
		t := byKind[q.Kind]
		if t == nil {
			t = &tally{}
			byKind[q.Kind] = t
			kinds = append(kinds, q.Kind)
		}
		t.n++
		var got []string
		for _, m := range idRe.FindAllStringSubmatch(text, -1) {
			got = append(got, ids[m[1]])
		}
		if text != "" {
			toks += tokens(text)
			injections++
		}
		verdict := h.verdict(q)
		switch {
		case len(got) == 0:
			t.nothing++
		case anyIn(got, q.Forbid) || len(q.Expect) == 0 || q.Kind == "ambiguous":
			t.wrong++
			wrongs = append(wrongs, fmt.Sprintf("%s %s %q → %v (expect %v; %s)", q.QID, q.Kind, q.Query, got, q.Expect, verdict))
		case anyIn(got, q.Expect):
			t.right++
			if *showRight {
				fmt.Printf("    right: %s %s → %v (%s)\n", q.QID, q.Kind, got, verdict)
			}
		default:
			t.other++
		}
	}
	fmt.Println("per prompt (each question as a prompt, from its project, a session each):")
	fmt.Printf("  %-11s %4s %6s %8s %6s %7s\n", "kind", "n", "right", "nothing", "wrong", "other")
	var all tally
	for _, k := range kinds {
		t := byKind[k]
		fmt.Printf("  %-11s %4d %6d %8d %6d %7d\n", k, t.n, t.right, t.nothing, t.wrong, t.other)
		all.n, all.right, all.nothing, all.wrong, all.other = all.n+t.n, all.right+t.right, all.nothing+t.nothing, all.wrong+t.wrong, all.other+t.other
	}
	fmt.Printf("  %-11s %4d %6d %8d %6d %7d\n", "all", all.n, all.right, all.nothing, all.wrong, all.other)
	fmt.Println("  right: an expected memory injected and no forbidden one; wrong: a forbidden memory, or anything for a")
	fmt.Println("  question with no answer or two readings; other: neither expected nor forbidden")
	if injections > 0 {
		fmt.Printf("  %d injections, mean %d tokens\n", injections, toks/injections)
	}
	fmt.Printf("  hook wall time, process start included: %s\n", quantiles(times))
	if len(wrongs) > 0 {
		fmt.Println("  wrong injections:")
		for _, w := range wrongs {
			fmt.Println("   ", w)
		}
	}
	return nil
}

// verdict is what the search the hook made answered, for the report.
func (h hook) verdict(q line) string {
	c, err := client.New(client.Options{Socket: h.sock, Caller: &ihmtv1.Caller{AgentName: "contextbench", SessionId: "v", Project: projectKey(q.Project)}})
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	if q.Project == "" {
		c, _ = client.New(client.Options{Socket: h.sock, Caller: &ihmtv1.Caller{AgentName: "contextbench", SessionId: "v", Project: "github.com/devset/none"}})
	}
	r, err := c.Search(context.Background(), &ihmtv1.SearchRequest{Query: q.Query, Limit: 3})
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s, confidence %.2f", strings.ToLower(strings.TrimPrefix(r.GetStatus().String(), "SEARCH_STATUS_")), r.GetConfidence())
}

var (
	showRight = flag.Bool("v", false, "also list the right injections")
	showBrief = flag.Bool("show", false, "print each project's briefing")
)

func anyIn(got, set []string) bool {
	for _, g := range got {
		if slices.Contains(set, g) {
			return true
		}
	}
	return false
}

func quantiles(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return fmt.Sprintf("p50 %s, p95 %s, max %s (n=%d)", q(0.5).Round(100*time.Microsecond), q(0.95).Round(100*time.Microsecond), s[len(s)-1].Round(100*time.Microsecond), len(s))
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// -ingest-repo checks that documents and code do not pollute the memory,
// as a new user meets it: a store holds a few personal memories
// (testdata/personal.jsonl, with questions about them); the questions are
// asked; then the repository's README.md and Go sources, and a Java class
// (testdata/Inventory.java), are ingested with `ihmt ingest` into the
// questions' project; and then it reports
//
//   - the facts the fact timelines hold from code leaves (there should be
//     none) and from document leaves, with examples;
//   - every personal question's answer before and after the ingest (the
//     answers before are the positive control);
//   - where a question about the Java method, by its name and the words of
//     its comment, ranks the method.

// ingestProject is the project the documents are ingested into and the
// questions asked from.
const ingestProject = "ihmt-repo"

// javaQuery asks for Inventory.reserveStock by its name and its comment's
// words; javaMethod is how the leaf that holds the method is recognised.
const (
	javaQuery  = "reserveStock soft hold"
	javaMethod = "public synchronized boolean reserveStock("
)

type ingestReport struct {
	Documents     int            `json:"documents"`
	NotSaved      []string       `json:"not_saved"`
	Leaves        map[string]int `json:"leaves"` // by block type
	CodeFacts     []factRow      `json:"facts_from_code"`
	DocumentFacts []factRow      `json:"facts_from_documents"`
	MemoryFacts   int            `json:"facts_from_memories"`
	DoubleCurrent []string       `json:"keys_with_two_current_values"`
	Questions     []beforeAfter  `json:"questions"`
	Java          javaAnswer     `json:"java"`
	Seconds       float64        `json:"seconds"`
}

type factRow struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Memory string `json:"memory"`
	Source string `json:"source"`
}

type beforeAfter struct {
	QID    string  `json:"qid"`
	Query  string  `json:"query"`
	Before string  `json:"before"`
	After  string  `json:"after"`
	Pass   [2]bool `json:"pass"` // before, after
}

type javaAnswer struct {
	Query  string   `json:"query"`
	Status string   `json:"status"`
	Rank   int      `json:"method_rank"` // 1-based; 0: not among the five
	Ranked []string `json:"ranked"`      // excerpts, best first
}

func runIngest(ctx context.Context, cfg config, bins testenv.Binaries, stdout, stderr io.Writer) error {
	rep, err := ingestCheck(ctx, bins, cfg.repo, cfg.workers, stderr)
	if err != nil {
		return err
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.print(stdout, cfg.verbose)
	return nil
}

// ingestCheck runs the check on repo's files with the programs in bins.
func ingestCheck(ctx context.Context, bins testenv.Binaries, repo string, workers int, stderr io.Writer) (ingestReport, error) {
	start := time.Now()
	// Empty lists, not null, in --json.
	rep := ingestReport{CodeFacts: []factRow{}, DocumentFacts: []factRow{}, DoubleCurrent: []string{}, NotSaved: []string{}}
	root, err := repoRoot()
	if err != nil {
		return rep, err
	}
	set, err := loadSet(filepath.Join(testdataDir(root), "personal.jsonl"))
	if err != nil {
		return rep, err
	}
	javaFile := filepath.Join(testdataDir(root), "Inventory.java")
	files, err := repoFiles(repo)
	if err != nil {
		return rep, err
	}
	dir, err := os.MkdirTemp("", "ihmt-eval-ingest-*")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(dir)
	w, err := testenv.StartLive(ctx, bins, filepath.Join(dir, "store"), filepath.Join(dir, "work"))
	if err != nil {
		return rep, err
	}
	defer w.Stop()
	keys := append(set.savers(), testenv.ShimKey{Project: ingestProject, Agent: askAgent})
	shims, err := w.Shims(ctx, keys)
	if err != nil {
		return rep, err
	}
	ids := map[string]string{}
	if _, err := saveAll(ctx, set, shims, ids, stderr); err != nil {
		return rep, err
	}
	before := askAll(ctx, set, shims, ids, workers)

	docs, err := ingestCLI(ctx, w, bins, repo, append(files, javaFile))
	if err != nil {
		return rep, err
	}
	sources := map[string]string{} // leaf id → "code: name" / "document: name"
	java := map[string]bool{}      // the Java file's leaves
	rep.Documents, rep.Leaves = len(docs), map[string]int{}
	for _, d := range docs {
		if d.Status != "saved" {
			rep.NotSaved = append(rep.NotSaved, d.Name+": "+d.Status+" ("+excerpt(d.Message, 80)+")")
		}
		kind := "document"
		if d.Type == "code" {
			kind = "code"
		}
		rep.Leaves[kind] += len(d.IDs)
		for _, id := range d.IDs {
			sources[id] = kind + ": " + d.Name
			java[id] = d.Name == filepath.Base(javaFile)
		}
	}
	after := askAll(ctx, set, shims, ids, workers)
	for i, q := range set.Questions {
		rep.Questions = append(rep.Questions, beforeAfter{QID: q.QID, Query: q.Query,
			Before: describe(before[i], sources), After: describe(after[i], sources),
			Pass: [2]bool{judge(before[i]).pass, judge(after[i]).pass}})
	}
	insp, err := newInspector(w)
	if err != nil {
		return rep, err
	}
	defer insp.c.Close()
	texts := func(id string) (string, error) { return insp.text(ctx, id) }
	if rep.Java, err = askJava(ctx, shims[testenv.ShimKey{Project: ingestProject, Agent: askAgent}], java, texts); err != nil {
		return rep, err
	}
	if err := insp.tallyFacts(ctx, sources, &rep); err != nil {
		return rep, err
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, w.Stop()
}

// repoFiles lists the repository's README.md and Go sources, as git
// tracks them, but for this command's own: they hold its questions, word
// for word, which would answer them.
func repoFiles(repo string) ([]string, error) {
	out, err := exec.Command("git", "-C", repo, "ls-files", "README.md", "*.go").Output()
	if err != nil {
		return nil, fmt.Errorf("-ingest-repo: list %s's files with git: %w", repo, err)
	}
	var files []string
	for _, f := range strings.Fields(string(out)) {
		if strings.HasPrefix(f, "scripts/eval/") {
			continue
		}
		files = append(files, filepath.Join(repo, f))
	}
	if len(files) < 2 {
		return nil, fmt.Errorf("-ingest-repo: %s holds no README.md and Go sources tracked by git", repo)
	}
	return files, nil
}

type ingested struct {
	Name    string   `json:"name"`
	Status  string   `json:"status"`
	Message string   `json:"message"`
	Type    string   `json:"type"`
	IDs     []string `json:"ids"`
}

// ingestCLI runs `ihmt ingest --json` on files as a person would, in the
// project, and returns what each document became.
func ingestCLI(ctx context.Context, w *testenv.Live, bins testenv.Binaries, repo string, files []string) ([]ingested, error) {
	abs := make([]string, len(files))
	for i, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		abs[i] = a
	}
	cmd := exec.CommandContext(ctx, bins.CLI, append([]string{"ingest", "--json"}, abs...)...)
	cmd.Env = w.Environ(ingestProject)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// It exits 1 when some document was refused (a test fixture that looks
	// like a secret, say) and still reports every document.
	runErr := cmd.Run()
	var r struct {
		Documents []ingested `json:"documents"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("ihmt ingest: %v, and its --json output does not parse (%w)\n%s", runErr, err, errb.String())
	}
	for i := range r.Documents {
		if rel, err := filepath.Rel(repo, r.Documents[i].Name); err == nil && !strings.HasPrefix(rel, "..") {
			r.Documents[i].Name = rel
		} else {
			r.Documents[i].Name = filepath.Base(r.Documents[i].Name)
		}
	}
	return r.Documents, nil
}

// askJava asks for the Java method through the shim and says where the
// leaf holding it ranks: a leaf of the Java file (java lists them) whose
// text declares it. texts reads a memory's whole text.
func askJava(ctx context.Context, s *testenv.LiveShim, java map[string]bool, texts func(id string) (string, error)) (javaAnswer, error) {
	var a answer
	if err := s.Call(ctx, "search_memory", map[string]any{"query": javaQuery, "limit": 5}, &a); err != nil {
		return javaAnswer{}, err
	}
	ja := javaAnswer{Query: javaQuery, Status: a.Status}
	for i, id := range a.ranked() {
		t, err := texts(id)
		if err != nil {
			return javaAnswer{}, err
		}
		ja.Ranked = append(ja.Ranked, excerpt(t, 70))
		if ja.Rank == 0 && java[id] && strings.Contains(t, javaMethod) {
			ja.Rank = i + 1
		}
	}
	return ja, nil
}

// inspector reads the store as the person does, through the client.
type inspector struct {
	c      *client.Client
	caller *ihmtv1.Caller
}

func newInspector(w *testenv.Live) (*inspector, error) {
	c, err := client.New(client.Options{Socket: w.Socket()})
	if err != nil {
		return nil, err
	}
	return &inspector{c: c, caller: &ihmtv1.Caller{AgentName: askAgent, SessionId: "inspect", Project: ingestProject}}, nil
}

func (in *inspector) text(ctx context.Context, id string) (string, error) {
	r, err := in.c.Get(ctx, &ihmtv1.GetRequest{Caller: in.caller, Id: id, Scope: ihmtv1.SearchScope_SEARCH_SCOPE_ALL})
	if err != nil {
		return "", fmt.Errorf("get %s: %w", id, err)
	}
	return r.GetMemory().GetContent(), nil
}

// tallyFacts sorts every fact the timelines hold — every value of every
// key, not only the current ones — by the kind of leaf that states it, and
// names the keys that hold two current values.
func (in *inspector) tallyFacts(ctx context.Context, sources map[string]string, rep *ingestReport) error {
	cur, err := in.c.Facts(ctx, &ihmtv1.FactsRequest{Caller: in.caller, Scope: ihmtv1.SearchScope_SEARCH_SCOPE_ALL})
	if err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	type key struct{ scope, subject, attribute string }
	seen := map[key]bool{}
	currents := map[key]int{}
	var order []key
	for _, f := range cur.GetFacts() {
		k := key{f.GetScope(), f.GetSubject(), f.GetAttribute()}
		currents[k]++
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	for _, k := range order {
		if currents[k] > 1 {
			rep.DoubleCurrent = append(rep.DoubleCurrent, fmt.Sprintf("%s %s::%s", k.scope, k.subject, k.attribute))
		}
		tl, err := in.c.Timeline(ctx, &ihmtv1.TimelineRequest{Caller: in.caller, Subject: k.subject, Attribute: k.attribute, Scope: ihmtv1.SearchScope_SEARCH_SCOPE_ALL})
		if err != nil {
			return fmt.Errorf("timeline %s::%s: %w", k.subject, k.attribute, err)
		}
		for _, f := range tl.GetFacts() {
			if f.GetScope() != k.scope {
				continue // another partition's key of the same name: counted under its own
			}
			row := factRow{Key: k.subject + "::" + k.attribute, Value: f.GetValue(), Memory: f.GetMemoryId(), Source: sources[f.GetMemoryId()]}
			switch {
			case strings.HasPrefix(row.Source, "code: "):
				rep.CodeFacts = append(rep.CodeFacts, row)
			case strings.HasPrefix(row.Source, "document: "):
				rep.DocumentFacts = append(rep.DocumentFacts, row)
			default:
				rep.MemoryFacts++
			}
		}
	}
	sort.Strings(rep.DoubleCurrent)
	return nil
}

// describe is an outcome in a few words: the status and the first three
// ranked, an ingested leaf named by its file.
func describe(o outcome, sources map[string]string) string {
	if o.Err != "" {
		return "error: " + o.Err
	}
	var ranked []string
	for _, id := range o.Ranked[:min(3, len(o.Ranked))] {
		if src, ok := sources[strings.TrimPrefix(id, "?")]; ok {
			id = src
		}
		ranked = append(ranked, id)
	}
	if len(ranked) == 0 {
		return o.Status
	}
	return o.Status + ": " + strings.Join(ranked, ", ")
}

func (r ingestReport) print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "-ingest-repo: %d documents ingested (%d code leaves, %d document leaves) into a store of personal memories\n\n", r.Documents, r.Leaves["code"], r.Leaves["document"])
	for _, n := range r.NotSaved {
		fmt.Fprintf(w, "not saved: %s\n", n)
	}
	fmt.Fprintf(w, "facts from code leaves: %d\nfacts from document leaves: %d\nfacts from memories: %d\n", len(r.CodeFacts), len(r.DocumentFacts), r.MemoryFacts)
	if len(r.DoubleCurrent) > 0 {
		fmt.Fprintf(w, "keys with two current values: %s\n", strings.Join(r.DoubleCurrent, ", "))
	}
	show := func(title string, rows []factRow) {
		n := len(rows)
		if !verbose {
			n = min(n, 10)
		}
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d of %d):\n", title, n, len(rows))
		for _, f := range rows[:n] {
			fmt.Fprintf(w, "  %s = %q  (%s)\n", f.Key, excerpt(f.Value, 40), f.Source)
		}
	}
	show("facts from code", r.CodeFacts)
	show("facts from documents", r.DocumentFacts)

	fmt.Fprintln(w, "\npersonal questions, before and after the ingest:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "qid\tquery\tbefore\tafter\t")
	passed := [2]int{}
	for _, q := range r.Questions {
		for i, p := range q.Pass {
			if p {
				passed[i]++
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s %s\t\n", q.QID, excerpt(q.Query, 45), mark2(q.Pass[0]), q.Before, mark2(q.Pass[1]), q.After)
	}
	tw.Flush()
	fmt.Fprintf(w, "passed: %d/%d before, %d/%d after\n", passed[0], len(r.Questions), passed[1], len(r.Questions))

	fmt.Fprintf(w, "\n%q → %s; the method ranks ", r.Java.Query, r.Java.Status)
	if r.Java.Rank == 0 {
		fmt.Fprintln(w, "nowhere in the five")
	} else {
		fmt.Fprintf(w, "#%d\n", r.Java.Rank)
	}
	for i, t := range r.Java.Ranked {
		fmt.Fprintf(w, "  %d. %s\n", i+1, t)
	}
	fmt.Fprintf(w, "\ntotal %.1fs\n", r.Seconds)
}

func mark2(pass bool) string {
	if pass {
		return "ok"
	}
	return "MISS"
}

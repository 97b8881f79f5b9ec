package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/ihmt-dev/ihmt/daemon"
	"github.com/ihmt-dev/ihmt/pkg/paths"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

func TestParseFlagsAnywhere(t *testing.T) {
	tests := []struct {
		args     []string
		wantPos  []string
		wantJSON bool
		wantDate string
	}{
		{[]string{"the", "staging", "db"}, []string{"the", "staging", "db"}, false, ""},
		{[]string{"--json", "a", "b"}, []string{"a", "b"}, true, ""},
		{[]string{"a", "b", "--json"}, []string{"a", "b"}, true, ""},
		{[]string{"a", "--date", "2024-03-11", "b"}, []string{"a", "b"}, false, "2024-03-11"},
		{[]string{"a", "--", "--json", "-5"}, []string{"a", "--json", "-5"}, false, ""},
		{[]string{"-"}, []string{"-"}, false, ""},
		{nil, nil, false, ""},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		asJSON := fs.Bool("json", false, "")
		date := fs.String("date", "", "")
		pos, err := parse(fs, tt.args)
		if err != nil {
			t.Errorf("parse(%q): %v", tt.args, err)
			continue
		}
		if fmt.Sprint(pos) != fmt.Sprint(tt.wantPos) || *asJSON != tt.wantJSON || *date != tt.wantDate {
			t.Errorf("parse(%q) = %q json=%v date=%q; want %q json=%v date=%q", tt.args, pos, *asJSON, *date, tt.wantPos, tt.wantJSON, tt.wantDate)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{nil, exitUsage, "Usage"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
		{[]string{"save"}, exitUsage, "nothing to save"},
		{[]string{"search", "--scope", "everywhere", "x"}, exitUsage, "use default, project, global or all"},
		{[]string{"save", "--scope", "nowhere", "x"}, exitUsage, "use global or project"},
		{[]string{"get"}, exitUsage, "give one memory id"},
		{[]string{"daemon", "restart"}, exitUsage, "unknown daemon command"},
		{[]string{"status", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"log", "codex"}, exitUsage, `unexpected argument "codex": ihmt log takes only flags`},
		{[]string{"facts", "user"}, exitUsage, "unexpected argument"},
		{[]string{"save", "--no-such-flag", "x"}, exitUsage, "flag provided but not defined"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"--socket", "/nonexistent/ihmt-test.sock"}, tt.args...), &out, &errb)
		if code != tt.wantCode || !strings.Contains(errb.String(), tt.wantErr) {
			t.Errorf("ihmt %q: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errb.String(), tt.wantCode, tt.wantErr)
		}
	}
	// Positive control: help succeeds and lists the commands.
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"help"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "daemon start") {
		t.Errorf("ihmt help: exit %d, %q", code, out.String())
	}
}

// numberAsString matches a JSON string that holds only a number.
var numberAsString = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// stringNumbers lists the members of v, by path, whose value is a number
// written as a string. Ids are hex and may happen to be all digits, so
// members named for ids are not numbers and are skipped.
func stringNumbers(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "id" || strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "ids") {
				continue
			}
			out = append(out, stringNumbers(x, path+"."+k)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, stringNumbers(x, path+"[]")...)
		}
	case string:
		if numberAsString.MatchString(v) {
			out = append(out, path+" = "+`"`+v+`"`)
		}
	}
	return out
}

// TestJSONNumbersAreNumbers runs every command that answers --json against
// a real daemon and checks that no number in any answer is a string.
func TestJSONNumbersAreNumbers(t *testing.T) {
	// Positive control: protojson alone writes 64-bit counts as strings,
	// and the check sees it.
	raw, err := protojson.Marshal(&ihmtv1.StatsResponse{Memories: 126, Pid: 29859})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if got := stringNumbers(v, ""); len(got) != 2 {
		t.Fatalf("the check missed protojson's string numbers: %v in %s", got, raw)
	}

	sock := startTestDaemon(t)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", "github.com/acme/shop"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	var ids []string
	for _, text := range []string{"2024-03-11 I live in Madrid.", "2025-09-02 I live in Valencia now.", "We deploy staging with make deploy-staging."} {
		var saved struct{ ID string }
		code, out, errs := run("save", "--json", text)
		if err := json.Unmarshal([]byte(out), &saved); code != 0 || err != nil {
			t.Fatalf("save: exit %d, %v: %s %s", code, err, out, errs)
		}
		ids = append(ids, saved.ID)
	}
	doc := filepath.Join(t.TempDir(), "notes.md")
	writeFile(t, doc, "# Deploys\n\nStaging deploys run from CI on every merge to main.\n")
	commands := [][]string{
		{"status"}, {"daemon", "status"}, {"save", "I prefer table-driven tests."},
		{"search", "where do I live"}, {"get", ids[0]}, {"facts"}, {"timeline", "user::lives_in"},
		{"conflicts"}, {"log"}, {"audit", "verify"}, {"review"}, {"tree"}, {"consolidate"},
		{"ingest", doc}, {"mark-outdated", ids[2], ids[1]}, {"forget", ids[2], "--reason", "test"},
		{"restore", ids[2]}, {"sync", "status", "--offline"}, {"ask", "where do I live"},
	}
	for _, args := range commands {
		code, out, errs := run(append(args, "--json")...)
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("ihmt %s --json: exit %d, not JSON (%v): %q %s", strings.Join(args, " "), code, err, out, errs)
			continue
		}
		if bad := stringNumbers(v, ""); len(bad) > 0 {
			t.Errorf("ihmt %s --json: numbers as strings: %v", strings.Join(args, " "), bad)
		}
		if bad := enumNames(v, ""); len(bad) > 0 {
			t.Errorf("ihmt %s --json: the proto's enum names instead of words: %v", strings.Join(args, " "), bad)
		}
	}
	// export: JSON lines on stdout, and with --json its count on stderr.
	code, out, errs := run("export", "--json")
	var count struct{ Exported int }
	if err := json.Unmarshal([]byte(errs), &count); code != 0 || err != nil || count.Exported < 3 || strings.Count(out, "\n") != count.Exported {
		t.Errorf("export --json: exit %d, count %q (%v), %d lines", code, errs, err, strings.Count(out, "\n"))
	}
}

// enumName matches a proto enum value's generated name.
var enumName = regexp.MustCompile(`^[A-Z]+(_[A-Z]+)+$`)

// enumNames lists the members of v, by path, whose value is an enum's
// generated name ("SCOPE_PROJECT") rather than its word ("project").
func enumNames(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out = append(out, enumNames(x, path+"."+k)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, enumNames(x, path+"[]")...)
		}
	case string:
		if enumName.MatchString(v) {
			out = append(out, path+" = "+v)
		}
	}
	return out
}

// TestEnumWords: every enum the API has reads, in --json, as the word the
// vocabulary gives people and the shim ("project", "verified",
// "not_found", "default"), where protojson alone writes its generated name.
func TestEnumWords(t *testing.T) {
	m := &ihmtv1.SearchResponse{Status: ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND, Results: []*ihmtv1.SearchResult{{Memory: &ihmtv1.Memory{
		Scope: ihmtv1.Scope_SCOPE_PROJECT, Trust: ihmtv1.Trust_TRUST_VERIFIED}}}}
	raw, _ := protojson.Marshal(m)
	if !strings.Contains(string(raw), "SEARCH_STATUS_NOT_FOUND") { // positive control
		t.Fatalf("protojson wrote %s", raw)
	}
	b, err := marshalProto(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"status": "not_found"`, `"scope": "project"`, `"trust": "verified"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("marshalProto lacks %s:\n%s", want, b)
		}
	}
	for _, tt := range []struct{ got, want string }{
		{enumWord(ihmtv1.SearchScope(0).Descriptor(), "SEARCH_SCOPE_DEFAULT_UNSPECIFIED"), "default"},
		{enumWord(ihmtv1.SearchScope(0).Descriptor(), "SEARCH_SCOPE_ALL"), "all"},
		{enumWord(ihmtv1.SaveStatus(0).Descriptor(), "SAVE_STATUS_PENDING_REVIEW"), ihmtv1.SaveStatusName(ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW)},
		{enumWord(ihmtv1.IngestStatus(0).Descriptor(), "INGEST_STATUS_UNCHANGED"), ihmtv1.IngestStatusName(ihmtv1.IngestStatus_INGEST_STATUS_UNCHANGED)},
		{enumWord(ihmtv1.ReviewDecision(0).Descriptor(), "REVIEW_DECISION_APPROVE"), "approve"},
	} {
		if tt.got != tt.want {
			t.Errorf("enumWord = %q, want %q", tt.got, tt.want)
		}
	}
	for _, sc := range []ihmtv1.Scope{ihmtv1.Scope_SCOPE_GLOBAL, ihmtv1.Scope_SCOPE_PROJECT} {
		if got := enumWord(sc.Descriptor(), sc.String()); got != ihmtv1.ScopeName(sc) {
			t.Errorf("enumWord(%s) = %q, the vocabulary says %q", sc, got, ihmtv1.ScopeName(sc))
		}
	}
	for _, tr := range []ihmtv1.Trust{ihmtv1.Trust_TRUST_ASSERTED, ihmtv1.Trust_TRUST_VERIFIED, ihmtv1.Trust_TRUST_PENDING, ihmtv1.Trust_TRUST_REJECTED} {
		if got := enumWord(tr.Descriptor(), tr.String()); got != ihmtv1.TrustName(tr) {
			t.Errorf("enumWord(%s) = %q, the vocabulary says %q", tr, got, ihmtv1.TrustName(tr))
		}
	}
}

// startTestDaemon runs a daemon in this process on a fresh store and
// returns its socket once it answers.
func startTestDaemon(t *testing.T) string {
	t.Helper()
	// The directories are made before the daemon's stop is registered, so
	// their removal runs after the daemon has stopped writing to them.
	sock, data := testenv.Socket(t), filepath.Join(t.TempDir(), "store")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Config{Paths: paths.Paths{Data: data, Socket: sock}, Logger: slog.New(slog.DiscardHandler)})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("daemon did not stop")
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var out, errb bytes.Buffer
		if Run(context.Background(), []string{"--socket", sock, "daemon", "status"}, &out, &errb) == exitOK {
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not serving: %s %s", out.String(), errb.String())
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestProgress: on a terminal progress is one line redrawn in place and
// cleared; anywhere else it is a plain line now and then, never a \r; and
// with --json nothing at all.
func TestProgress(t *testing.T) {
	var live bytes.Buffer
	p := &progress{w: &live, live: true}
	p.update("%d/%d files", 1, 3)
	p.update("%d/%d files", 2, 3)
	p.clear()
	p.clear() // nothing left to clear
	if want := "\r\x1b[K1/3 files\r\x1b[K2/3 files\r\x1b[K"; live.String() != want {
		t.Errorf("live progress wrote %q, want %q", live.String(), want)
	}

	var plain bytes.Buffer
	p = &progress{w: &plain, every: time.Hour, last: time.Now()}
	p.update("%d/%d files", 1, 3)
	p.clear()
	if plain.Len() != 0 {
		t.Errorf("plain progress wrote %q before its interval", plain.String())
	}
	p.last = time.Now().Add(-2 * time.Hour) // positive control: the interval passed
	p.update("%d/%d files", 2, 3)
	if plain.String() != "2/3 files\n" {
		t.Errorf("plain progress wrote %q, want one plain line", plain.String())
	}

	var off bytes.Buffer
	p = &progress{w: &off, off: true, live: true}
	p.update("x")
	p.clear()
	if off.Len() != 0 {
		t.Errorf("progress that is off wrote %q", off.String())
	}
}

// TestPrintContentClips: a search for people shows a long memory's first
// lines and says how to see the rest; --full shows it whole.
func TestPrintContentClips(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("line %d of a long function", i))
	}
	m := &ihmtv1.Memory{Id: "3f2a9c1b7d4e5f60", Content: strings.Join(lines, "\n")}
	var clipped, full bytes.Buffer
	printContent(&clipped, m, false)
	printContent(&full, m, true)
	if n := strings.Count(clipped.String(), "\n"); n != compactLines+1 || !strings.Contains(clipped.String(), "28 lines not shown: `ihmt get 3f2a9c1b7d4e5f60`") {
		t.Errorf("clipped: %d lines:\n%s", n, clipped.String())
	}
	if n := strings.Count(full.String(), "\n"); n != 40 || strings.Contains(full.String(), "ihmt get") {
		t.Errorf("full: %d lines:\n%s", n, full.String())
	}
	var short bytes.Buffer
	printContent(&short, &ihmtv1.Memory{Id: "x", Content: "one line"}, false)
	if short.String() != "   one line\n" {
		t.Errorf("a short memory: %q", short.String())
	}
}

// TestFirstMinutes covers what a new user met on a real daemon: ingest's
// lines without progress residue and with counts in the singular; a log
// read that matches nothing says so; a person's own save is verified, a
// document they ingest is not.
func TestFirstMinutes(t *testing.T) {
	sock := startTestDaemon(t)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", "github.com/acme/shop"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# Deploys\n\nStaging deploys run from CI on every merge to main.\n")
	writeFile(t, filepath.Join(dir, "b.md"), "# Reviews\n\nEvery change needs one approving review.\n")
	code, out, errs := run("ingest", dir)
	if code != 0 || strings.ContainsRune(out+errs, '\r') || !strings.Contains(out, "saved, 1 leaf (") || !strings.Contains(out, "2 documents: 2 saved") {
		t.Errorf("ingest: exit %d\nstdout %q\nstderr %q", code, out, errs)
	}

	if code, out, _ := run("log", "--agent", "nobody-at-all"); code != 0 || out != "no entries match (agent nobody-at-all)\n" {
		t.Errorf("log with no match: exit %d, %q", code, out)
	}
	if code, out, _ := run("log"); code != 0 || !strings.Contains(out, "save") { // positive control
		t.Errorf("log: exit %d, %q", code, out)
	}

	var saved struct{ ID string }
	_, out, _ = run("save", "--json", "I prefer table-driven tests.")
	if err := json.Unmarshal([]byte(out), &saved); err != nil {
		t.Fatalf("save --json: %v: %q", err, out)
	}
	trust := func(query string) string {
		var r struct {
			Results []struct{ Memory struct{ Trust string } }
		}
		_, out, _ := run("search", "--json", query)
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Results) == 0 {
			t.Fatalf("search %q: %v: %q", query, err, out)
		}
		return r.Results[0].Memory.Trust
	}
	if got := trust("table-driven tests"); got != "verified" {
		t.Errorf("a person's own save: trust %s, want verified", got)
	}
	if got := trust("staging deploys merge"); got != "asserted" {
		t.Errorf("a document the person ingested: trust %s, want asserted", got)
	}
}

func TestAbsRemote(t *testing.T) {
	wd, _ := os.Getwd()
	cases := []struct{ in, want string }{
		{"ssh://box/~/memory.git", "ssh://box/~/memory.git"},
		{"git@github.com:me/memory.git", "git@github.com:me/memory.git"},
		{"box:memory.git", "box:memory.git"},
		{"/mnt/backup/memory.git", "/mnt/backup/memory.git"},
		{"../memory.git", filepath.Join(filepath.Dir(wd), "memory.git")},
		{"./odd:name.git", filepath.Join(wd, "odd:name.git")},
	}
	for _, c := range cases {
		if got, err := absRemote(c.in); err != nil || got != c.want {
			t.Errorf("absRemote(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestPrintTraceUnstems: the trace a person reads names the query's words
// as they wrote them, not the tokenizer's stems; the scores and the
// verdict's evidence print as they are. The control: the trace on the wire
// holds the stems.
func TestPrintTraceUnstems(t *testing.T) {
	tr := &ihmtv1.Trace{Terms: []string{"kubernet", "cluster"}, Rewrites: []string{"untimed: dropped day", "expand: k8s for kubernet (glossary)"},
		Ranked:  []*ihmtv1.RankTrace{{Id: "0123456789abcdef", Base: 1.5, Score: 1.8, Current: true}},
		Decided: "found", Evidence: []string{"best=1.80"}}
	if !strings.Contains(strings.Join(tr.GetRewrites(), " "), "kubernet ") {
		t.Fatal("control: the trace does not hold the stem")
	}
	var b strings.Builder
	printTrace(&b, "Which Kubernetes cluster these days?", tr)
	out := b.String()
	for _, want := range []string{"searched for: Kubernetes cluster", "untimed: dropped days", "k8s for Kubernetes (glossary)", "base 1.500 → 1.800", "verdict decided by: found"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

package rpc

import (
	"cmp"
	"context"
	"crypto/sha256"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

var (
	alice = &ihmtv1.Caller{AgentName: "claude-code", AgentVersion: "2.1", SessionId: "s1", Project: "github.com/org/alpha"}
	bob   = &ihmtv1.Caller{AgentName: "codex", AgentVersion: "0.169", SessionId: "s2", Project: "github.com/org/beta"}
)

// testDaemon is the real server behind a real gRPC server, reached over an
// in-memory connection. It mirrors what the daemon builds, minus the lock,
// the socket, health and reflection.
type testDaemon struct {
	srv   *Server
	store *atomic.Pointer[store.Store]
	conn  *grpc.ClientConn
	api   ihmtv1.MemoryServiceClient
	logs  *testenv.Logs
}

// serve starts the server; st may be nil to stand for a store still
// opening.
func serve(t *testing.T, st *store.Store) *testDaemon {
	t.Helper()
	logs := &testenv.Logs{}
	open := &atomic.Pointer[store.Store]{}
	srv := New(Config{
		Log:        slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Store:      open.Load,
		StorePath:  "/test/store",
		SocketPath: "/test/ihmtd.sock",
		Shutdown:   func() {},
	})
	if st != nil {
		open.Store(st)
	}
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer(grpc.UnaryInterceptor(srv.Intercept))
	ihmtv1.RegisterMemoryServiceServer(gs, srv)
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	conn := testenv.Dial(t, lis)
	return &testDaemon{srv: srv, store: open, conn: conn, api: ihmtv1.NewMemoryServiceClient(conn), logs: logs}
}

func TestServiceRoundTrip(t *testing.T) {
	st := testenv.OpenStore(t, t.TempDir())
	d := serve(t, st)
	ctx := testenv.Context(t)

	saved, err := d.api.Save(ctx, &ihmtv1.SaveRequest{
		Caller:  alice,
		Content: "2024-03-11 We chose PostgreSQL 17 for the staging database.",
		Domain:  "software.db",
		Tags:    []string{"Staging"},
	})
	if err != nil {
		t.Fatalf("save: %v", err)
	}
	m := saved.GetMemory()
	if saved.GetStatus() != ihmtv1.SaveStatus_SAVE_STATUS_SAVED || saved.GetId() == "" || m.GetId() != saved.GetId() {
		t.Fatalf("save = %v", saved)
	}
	if m.GetScope() != ihmtv1.Scope_SCOPE_PROJECT || m.GetProject() != alice.GetProject() {
		t.Errorf("scope %v project %q, want the caller's project %q", m.GetScope(), m.GetProject(), alice.GetProject())
	}
	if got := m.GetValidFrom().AsTime().Format("2006-01-02"); got != "2024-03-11" {
		t.Errorf("valid_from = %s, want the date the text opens with", got)
	}
	if m.GetRecordedAt().AsTime().IsZero() || time.Since(m.GetRecordedAt().AsTime()) > time.Minute {
		t.Errorf("recorded_at = %v, want about now", m.GetRecordedAt().AsTime())
	}
	if m.GetAgent().GetName() != "claude-code" || m.GetAgent().GetVersion() != "2.1" || m.GetSessionId() != "s1" {
		t.Errorf("provenance = %v / %q", m.GetAgent(), m.GetSessionId())
	}
	if m.GetTrust() != ihmtv1.Trust_TRUST_ASSERTED || m.GetStatus() != "active" || m.GetDomain() != "software.db" ||
		len(m.GetTags()) != 1 || m.GetTags()[0] != "staging" || !strings.HasPrefix(m.GetChecksum(), "sha256:") {
		t.Errorf("header = %v", m)
	}

	dup, err := d.api.Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: "2024-03-11 We chose PostgreSQL 17 for the staging database."})
	if err != nil {
		t.Fatalf("save again: %v", err)
	}
	if dup.GetStatus() != ihmtv1.SaveStatus_SAVE_STATUS_DUPLICATE || dup.GetId() != saved.GetId() || dup.GetMessage() == "" {
		t.Errorf("second save = %v, want DUPLICATE of %s with a message", dup, saved.GetId())
	}
	global, err := d.api.Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: "The user prefers tabs over spaces.", Scope: ihmtv1.Scope_SCOPE_GLOBAL})
	if err != nil {
		t.Fatal(err)
	}
	if global.GetMemory().GetScope() != ihmtv1.Scope_SCOPE_GLOBAL || global.GetMemory().GetProject() != "" {
		t.Errorf("global save = %v", global.GetMemory())
	}

	res, err := d.api.Search(ctx, &ihmtv1.SearchRequest{Caller: alice, Query: "which database does staging use?"})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	if res.GetStatus() != ihmtv1.SearchStatus_SEARCH_STATUS_FOUND || len(res.GetResults()) == 0 {
		t.Fatalf("search = %v", res)
	}
	top := res.GetResults()[0]
	if top.GetMemory().GetId() != saved.GetId() || top.GetMemory().GetContent() != m.GetContent() || top.GetScore() <= 0 || !top.GetCurrent() {
		t.Errorf("top result = %v", top)
	}
	if res.GetConfidence() <= 0 || res.GetConfidence() > 1 || !res.GetCoverage().GetExhaustive() || res.GetCoverage().GetLeavesScored() == 0 ||
		res.GetScopeDescription() == "" || len(res.GetTerms()) == 0 || res.GetMessage() == "" {
		t.Errorf("search metadata = %v", res)
	}
	// Another project's caller does not see it by default.
	other, err := d.api.Search(ctx, &ihmtv1.SearchRequest{Caller: bob, Query: "which database does staging use?"})
	if err != nil {
		t.Fatal(err)
	}
	if other.GetStatus() != ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND {
		t.Errorf("bob's search = %v, want NOT_FOUND: alice's project memory leaked", other)
	}

	got, err := d.api.Get(ctx, &ihmtv1.GetRequest{Caller: alice, Id: saved.GetId()})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if !proto.Equal(got.GetMemory(), m) {
		t.Errorf("get = %v\nwant %v", got.GetMemory(), m)
	}
	if _, err := d.api.Get(ctx, &ihmtv1.GetRequest{Caller: bob, Id: saved.GetId()}); status.Code(err) != codes.NotFound {
		t.Errorf("bob gets alice's project memory: err = %v, want NotFound", err)
	}
	if _, err := d.api.Get(ctx, &ihmtv1.GetRequest{Caller: bob, Id: saved.GetId(), Scope: ihmtv1.SearchScope_SEARCH_SCOPE_ALL}); err != nil {
		t.Errorf("get with SEARCH_SCOPE_ALL: %v", err)
	}

	stats, err := d.api.Stats(ctx, &ihmtv1.StatsRequest{Caller: alice})
	if err != nil {
		t.Fatalf("stats: %v", err)
	}
	if stats.GetVersion() != version.Version || stats.GetStorePath() != "/test/store" || stats.GetSocketPath() != "/test/ihmtd.sock" ||
		stats.GetPid() != int64(os.Getpid()) || stats.GetStartedAt() == nil {
		t.Errorf("static stats = %v", stats)
	}
	// Three log entries: two saves and the scope=all read above.
	if stats.GetMemories() != 2 || stats.GetGlobalMemories() != 1 || stats.GetProjectMemories() != 1 || stats.GetProjects() != 1 || stats.GetLogEntries() != 3 {
		t.Errorf("counts = %v, want 2 memories (1 global, 1 of alice's project), 1 project, 3 log entries", stats)
	}
}

// TestServiceUnavailableUntilOpen: the service is registered before the store
// is open; until then every call answers Unavailable and says to retry.
func TestServiceUnavailableUntilOpen(t *testing.T) {
	d := serve(t, nil)
	ctx := testenv.Context(t)
	calls := map[string]func() error{
		"Save": func() error {
			_, err := d.api.Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: "something to keep"})
			return err
		},
		"Search": func() error {
			_, err := d.api.Search(ctx, &ihmtv1.SearchRequest{Caller: alice, Query: "keep"})
			return err
		},
		"Get": func() error {
			_, err := d.api.Get(ctx, &ihmtv1.GetRequest{Caller: alice, Id: "0123456789abcdef"})
			return err
		},
		"Stats": func() error { _, err := d.api.Stats(ctx, &ihmtv1.StatsRequest{Caller: alice}); return err },
	}
	for name, call := range calls {
		err := call()
		if status.Code(err) != codes.Unavailable || !strings.Contains(status.Convert(err).Message(), "retry") {
			t.Errorf("%s before the store is open: %v, want Unavailable saying to retry", name, err)
		}
	}

	d.store.Store(testenv.OpenStore(t, t.TempDir()))
	for name, call := range calls {
		if err := call(); status.Code(err) == codes.Unavailable {
			t.Errorf("%s after the store opened: %v", name, err)
		}
	}
}

// TestServiceVersionHeader: every response, failed or not, carries the
// daemon's version, and a client of another version is logged once.
func TestServiceVersionHeader(t *testing.T) {
	for _, open := range []bool{false, true} {
		var st *store.Store
		if open {
			st = testenv.OpenStore(t, t.TempDir())
		}
		d := serve(t, st)
		ctx := testenv.Context(t)

		var hdr metadata.MD
		_, err := d.api.Stats(ctx, &ihmtv1.StatsRequest{Caller: alice}, grpc.Header(&hdr))
		if open != (err == nil) {
			t.Fatalf("store open %v: stats err = %v", open, err)
		}
		if v := hdr.Get(version.Header); len(v) != 1 || v[0] != version.Version {
			t.Errorf("store open %v: Stats header %s = %q, want %q", open, version.Header, v, version.Version)
		}
		hdr = nil
		_, err = d.api.Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: ""}, grpc.Header(&hdr))
		if err == nil {
			t.Fatal("empty save succeeded")
		}
		if v := hdr.Get(version.Header); len(v) != 1 || v[0] != version.Version {
			t.Errorf("store open %v: header on a failed call = %q, want %q", open, v, version.Version)
		}
	}

	d := serve(t, testenv.OpenStore(t, t.TempDir()))
	ctx := metadata.AppendToOutgoingContext(testenv.Context(t), version.Header, "0.0.1-old")
	for range 3 {
		if _, err := d.api.Stats(ctx, &ihmtv1.StatsRequest{Caller: alice}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(d.logs.String(), "client of a different version"); n != 1 {
		t.Errorf("warned %d times about a client of another version, want once:\n%s", n, d.logs)
	}
}

// hashTree returns a digest of every file and directory under dir except the
// lock file, by path relative to dir.
func hashTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.Name() == "ihmtd.lock" {
			return nil
		}
		if d.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[rel] = string(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(before, after map[string]string) []string {
	var diff []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			diff = append(diff, "removed "+k)
		} else if w != v {
			diff = append(diff, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diff = append(diff, "added "+k)
		}
	}
	return diff
}

// rawCodec sends requests that are already encoded, so a test can put bytes
// on the wire that the generated code refuses to marshal (a proto3 string
// holding invalid UTF-8), as any other gRPC client could.
type rawCodec struct{}

type rawMessage []byte

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.(rawMessage))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return proto.Unmarshal(data.Materialize(), v.(proto.Message))
}

// Name is "proto" so the server decodes the request with its usual codec.
func (rawCodec) Name() string { return "proto" }

// withRawString encodes m and appends a string field holding raw bytes.
func withRawString(t *testing.T, m proto.Message, field protowire.Number, raw string) rawMessage {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, []byte(raw))
}

// TestServiceRefusesBadInput: each bad request is answered InvalidArgument
// (or NotFound for an unknown id) with a message naming the problem, and
// leaves the store's files exactly as they were.
func TestServiceRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	st := testenv.OpenStore(t, dir)
	d := serve(t, st)
	ctx := testenv.Context(t)

	// Something in the store, so "unchanged" covers existing files too.
	first, err := d.api.Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: "The staging database is PostgreSQL 17."})
	if err != nil {
		t.Fatal(err)
	}
	st.Flush()
	before := hashTree(t, dir)

	// A request names no caller unless the problem is its caller's.
	save := func(req *ihmtv1.SaveRequest) func() error {
		req.Caller = cmp.Or(req.Caller, alice)
		return func() error { _, err := d.api.Save(ctx, req); return err }
	}
	search := func(req *ihmtv1.SearchRequest) func() error {
		req.Caller = cmp.Or(req.Caller, alice)
		return func() error { _, err := d.api.Search(ctx, req); return err }
	}
	get := func(id string) func() error {
		return func() error {
			_, err := d.api.Get(ctx, &ihmtv1.GetRequest{Caller: alice, Id: id})
			return err
		}
	}
	raw := func(method string, msg rawMessage) func() error {
		return func() error {
			var out ihmtv1.SaveResponse
			return d.conn.Invoke(ctx, "/ihmt.v1.MemoryService/"+method, msg, &out, grpc.ForceCodecV2(rawCodec{}))
		}
	}
	huge := strings.Repeat("a", store.MaxContent) + "b"
	badProject := &ihmtv1.Caller{AgentName: "claude-code", SessionId: "s1", Project: "../../etc"}

	tests := []struct {
		name string
		call func() error
		code codes.Code
		want []string // substrings of the message, case-insensitive
	}{
		{"empty content", save(&ihmtv1.SaveRequest{Content: ""}), codes.InvalidArgument, []string{"content is empty"}},
		{"whitespace-only content", save(&ihmtv1.SaveRequest{Content: " \t\n  \r\n"}), codes.InvalidArgument, []string{"content is empty"}},
		{"content over 1 MiB", save(&ihmtv1.SaveRequest{Content: huge}), codes.InvalidArgument, []string{"1 MiB"}},
		{"content of invalid UTF-8", raw("Save", withRawString(t, &ihmtv1.SaveRequest{Caller: alice}, 2, "bad byte \xff here")), codes.InvalidArgument, []string{"UTF-8"}},
		{"query of invalid UTF-8", raw("Search", withRawString(t, &ihmtv1.SearchRequest{Caller: alice}, 2, "staging \xfe\xff")), codes.InvalidArgument, []string{"UTF-8"}},
		{"content with NUL", save(&ihmtv1.SaveRequest{Content: "before\x00after"}), codes.InvalidArgument, []string{"control character", "U+0000"}},
		{"content with escape", save(&ihmtv1.SaveRequest{Content: "red \x1b[31m text"}), codes.InvalidArgument, []string{"control character", "U+001B"}},
		{"content with DEL", save(&ihmtv1.SaveRequest{Content: "rub\x7fout"}), codes.InvalidArgument, []string{"control character", "U+007F"}},
		{"content with C1 control", save(&ihmtv1.SaveRequest{Content: "next\u0085line"}), codes.InvalidArgument, []string{"control character", "U+0085"}},
		{"domain with path tricks", save(&ihmtv1.SaveRequest{Content: "a fine memory", Domain: "../../etc"}), codes.InvalidArgument, []string{"domain", "../../etc"}},
		{"tag with a slash", save(&ihmtv1.SaveRequest{Content: "a fine memory", Tags: []string{"a/b"}}), codes.InvalidArgument, []string{"tag", "a/b"}},
		{"project with path tricks", save(&ihmtv1.SaveRequest{Caller: badProject, Content: "a fine memory"}), codes.InvalidArgument, []string{"project", ".."}},
		{"search from a project with path tricks", search(&ihmtv1.SearchRequest{Caller: badProject, Query: "staging"}), codes.InvalidArgument, []string{"project", ".."}},
		{"agent name with a control character", save(&ihmtv1.SaveRequest{Caller: &ihmtv1.Caller{AgentName: "evil\nagent"}, Content: "a fine memory"}), codes.InvalidArgument, []string{"agent name", "control character"}},
		{"unknown scope", save(&ihmtv1.SaveRequest{Content: "a fine memory", Scope: ihmtv1.Scope(7)}), codes.InvalidArgument, []string{"unknown scope 7"}},
		{"project scope without a project", save(&ihmtv1.SaveRequest{Caller: &ihmtv1.Caller{AgentName: "ihmt-cli"}, Content: "a fine memory", Scope: ihmtv1.Scope_SCOPE_PROJECT}), codes.InvalidArgument, []string{"needs a project"}},
		{"unknown search scope", search(&ihmtv1.SearchRequest{Query: "staging", Scope: ihmtv1.SearchScope(9)}), codes.InvalidArgument, []string{"unknown search scope 9"}},
		{"date in US order", save(&ihmtv1.SaveRequest{Content: "a fine memory", Date: "11/03/2024"}), codes.InvalidArgument, []string{"malformed date", "11/03/2024", "YYYY-MM-DD"}},
		{"date that does not exist", save(&ihmtv1.SaveRequest{Content: "a fine memory", Date: "2024-02-30"}), codes.InvalidArgument, []string{"malformed date", "2024-02-30"}},
		{"date in words", save(&ihmtv1.SaveRequest{Content: "a fine memory", Date: "yesterday"}), codes.InvalidArgument, []string{"malformed date", "yesterday"}},
		{"unknown id", get("0123456789abcdef"), codes.NotFound, []string{"0123456789abcdef"}},
		{"malformed id", get("../../etc/passwd"), codes.InvalidArgument, []string{"not a memory id"}},
		{"negative limit", search(&ihmtv1.SearchRequest{Query: "staging", Limit: -1}), codes.InvalidArgument, []string{"limit -1"}},
		{"empty query", search(&ihmtv1.SearchRequest{Query: ""}), codes.InvalidArgument, []string{"query is empty"}},
		{"query of punctuation only", search(&ihmtv1.SearchRequest{Query: "?! -- ..."}), codes.InvalidArgument, []string{"no words"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if got := status.Code(err); got != tt.code {
				t.Fatalf("code = %v (%v), want %v", got, err, tt.code)
			}
			msg := strings.ToLower(status.Convert(err).Message())
			for _, w := range tt.want {
				if !strings.Contains(msg, strings.ToLower(w)) {
					t.Errorf("message %q does not mention %q", status.Convert(err).Message(), w)
				}
			}
		})
	}

	st.Flush()
	if diff := diffTrees(before, hashTree(t, dir)); len(diff) > 0 {
		t.Errorf("bad input changed the store: %v", diff)
	}
	stats, err := d.api.Stats(ctx, &ihmtv1.StatsRequest{Caller: alice})
	if err != nil {
		t.Fatal(err)
	}
	if stats.GetMemories() != 1 || stats.GetLogEntries() != 1 {
		t.Errorf("after bad input: %d memories, %d log entries, want 1 and 1", stats.GetMemories(), stats.GetLogEntries())
	}

	// Positive control: the same comparison sees a good save.
	second, err := d.api.Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: "The CI runs on GitHub Actions.", Date: "2024-03-11"})
	if err != nil {
		t.Fatalf("good save after the table: %v", err)
	}
	st.Flush()
	diff := diffTrees(before, hashTree(t, dir))
	var added, changed bool
	for _, d := range diff {
		added = added || strings.HasPrefix(d, "added ") && strings.HasSuffix(d, second.GetId()+".txt")
		changed = changed || d == "changed log.jsonl"
	}
	if !added || !changed {
		t.Errorf("a good save changed %v; want its leaf added and log.jsonl changed", diff)
	}
	if second.GetId() == first.GetId() {
		t.Errorf("two different memories share id %s", first.GetId())
	}
}

// TestServiceInvalidUTF8FromGeneratedClient documents the other half of the
// invalid UTF-8 story: a Go client built from the generated code cannot
// even send it, and says why before anything reaches the daemon.
func TestServiceInvalidUTF8FromGeneratedClient(t *testing.T) {
	d := serve(t, testenv.OpenStore(t, t.TempDir()))
	_, err := d.api.Save(testenv.Context(t), &ihmtv1.SaveRequest{Caller: alice, Content: "bad byte \xff here"})
	if err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("save of invalid UTF-8 through the generated client: %v, want an error naming UTF-8", err)
	}
}

// TestPanicIsAnInternalError: a handler that panics answers Internal, its
// stack goes to the log, and the server goes on answering; the control, a
// handler that returns, passes its answer through.
func TestPanicIsAnInternalError(t *testing.T) {
	d := serve(t, nil)
	info := &grpc.UnaryServerInfo{FullMethod: "/ihmt.v1.MemoryService/Search"}
	_, err := d.srv.Intercept(t.Context(), nil, info, func(context.Context, any) (any, error) { panic("index out of range") })
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "logged") {
		t.Fatalf("a panicking handler: %v, want Internal saying it is logged", err)
	}
	if !strings.Contains(d.logs.String(), "call panicked") || !strings.Contains(d.logs.String(), "index out of range") {
		t.Errorf("log lacks the panic: %s", d.logs.String())
	}
	resp, err := d.srv.Intercept(t.Context(), nil, info, func(context.Context, any) (any, error) { return "ok", nil })
	if err != nil || resp != "ok" {
		t.Errorf("after a panic, a handler that returns: %v, %v", resp, err)
	}
}

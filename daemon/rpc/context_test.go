package rpc

import (
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// serveContext is the ContextService beside the MemoryService, as the
// daemon registers them, with settings read by the function given.
func serveContext(t *testing.T, st *store.Store, settings func() (ContextSettings, error)) (ihmtv1.MemoryServiceClient, ihmtv1.ContextServiceClient) {
	t.Helper()
	open := &atomic.Pointer[store.Store]{}
	if st != nil {
		open.Store(st)
	}
	srv := New(Config{Log: slog.New(slog.DiscardHandler), Store: open.Load, Shutdown: func() {}})
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer(grpc.UnaryInterceptor(srv.Intercept))
	ihmtv1.RegisterMemoryServiceServer(gs, srv)
	ihmtv1.RegisterContextServiceServer(gs, srv.Context(settings))
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	conn := testenv.Dial(t, lis)
	return ihmtv1.NewMemoryServiceClient(conn), ihmtv1.NewContextServiceClient(conn)
}

func TestContextService(t *testing.T) {
	ctx := testenv.Context(t)
	set := ContextSettings{StartTokens: 100, PromptTokens: 120, Prompt: false}
	var settingsErr error
	mem, cs := serveContext(t, testenv.OpenStore(t, t.TempDir()), func() (ContextSettings, error) { return set, settingsErr })
	for i, text := range []string{"Alpha's release train leaves every second Thursday.", "Alpha's staging cluster is called heron.", "Alpha's on-call rota lives in the ops wiki."} {
		if _, err := mem.Save(ctx, &ihmtv1.SaveRequest{Caller: alice, Content: text, Date: "2025-0" + string(rune('1'+i)) + "-01", Scope: ihmtv1.Scope_SCOPE_PROJECT}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mem.Save(ctx, &ihmtv1.SaveRequest{Caller: bob, Content: "Beta's staging cluster is called egret.", Scope: ihmtv1.Scope_SCOPE_PROJECT}); err != nil {
		t.Fatal(err)
	}

	// The person's budget applies when the request gives none.
	b, err := cs.Brief(ctx, &ihmtv1.BriefRequest{Caller: alice})
	if err != nil {
		t.Fatal(err)
	}
	if b.GetTokens() > 100 || len(b.GetItems()) == 0 || b.GetLeftOut() == 0 || strings.Contains(b.GetText(), "egret") {
		t.Fatalf("budget 100: %d tokens, %d items, %d left out:\n%s", b.GetTokens(), len(b.GetItems()), b.GetLeftOut(), b.GetText())
	}
	for _, it := range b.GetItems() {
		if it.GetKind() != store.BriefMemory || it.GetId() == "" || !strings.Contains(b.GetText(), it.GetText()) || it.GetTokens() <= 0 {
			t.Fatalf("item %+v", it)
		}
	}
	// The request's own budget wins; all three fit in the default.
	if b, err := cs.Brief(ctx, &ihmtv1.BriefRequest{Caller: alice, MaxTokens: 800}); err != nil || len(b.GetItems()) != 3 || b.GetLeftOut() != 0 {
		t.Fatalf("budget 800: %v, %d items", err, len(b.GetItems()))
	}
	// A budget out of range is the caller's mistake.
	if _, err := cs.Brief(ctx, &ihmtv1.BriefRequest{Caller: alice, MaxTokens: 5}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("budget 5: %v, want InvalidArgument", err)
	}
	s, err := cs.Settings(ctx, &ihmtv1.SettingsRequest{Caller: alice})
	if err != nil || s.GetStartTokens() != 100 || s.GetPromptTokens() != 120 || s.GetPrompt() {
		t.Fatalf("settings: %v %+v", err, s)
	}
	// A broken config.toml: both calls say so, as invalid.
	settingsErr = errors.New("/x/config.toml: context.start_tokens = 1: use 100 to 4000")
	if _, err := cs.Settings(ctx, &ihmtv1.SettingsRequest{Caller: alice}); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "start_tokens = 1") {
		t.Fatalf("settings with a bad config: %v", err)
	}
	if _, err := cs.Brief(ctx, &ihmtv1.BriefRequest{Caller: alice}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("brief with a bad config: %v", err)
	}
	// Positive control: its own budget needs no settings.
	if _, err := cs.Brief(ctx, &ihmtv1.BriefRequest{Caller: alice, MaxTokens: 400}); err != nil {
		t.Fatalf("brief with its own budget: %v", err)
	}
}

func TestContextServiceWhileOpening(t *testing.T) {
	_, cs := serveContext(t, nil, nil)
	if _, err := cs.Brief(testenv.Context(t), &ihmtv1.BriefRequest{Caller: alice}); status.Code(err) != codes.Unavailable {
		t.Fatalf("brief while the store opens: %v, want Unavailable (the client retries)", err)
	}
}

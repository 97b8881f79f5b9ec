package shim

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// TestSessionNotesNeedTheirKey: a session's notes answer only to the
// client that opened the session, never to its public id: another client
// naming the same session id is refused, and so is a raw gRPC call with no
// key or a guessed one; the owner recalls its note (the control).
func TestSessionNotesNeedTheirKey(t *testing.T) {
	d := startDaemon(t)
	ctx := testenv.Context(t)
	const session = "20260101T000000-victim01"
	caller := &ihmtv1.Caller{AgentName: "claude-code", SessionId: session}
	owner := d.client(t)
	if _, err := owner.Note(ctx, &ihmtv1.NoteRequest{Caller: caller, Text: "The staging deploy waits on the flaky billing test."}); err != nil {
		t.Fatal(err)
	}
	recall := &ihmtv1.RecallRequest{Caller: caller, Query: "what does the staging deploy wait on?"}
	if r, err := owner.Recall(ctx, recall); err != nil || len(r.GetHits()) == 0 || !strings.Contains(r.GetHits()[0].GetText(), "billing") {
		t.Fatalf("control: the owner recalls its note: %v %v", r, err)
	}
	other := d.client(t)
	for name, call := range map[string]func() error{
		"recall": func() error { _, err := other.Recall(ctx, recall); return err },
		"note": func() error {
			_, err := other.Note(ctx, &ihmtv1.NoteRequest{Caller: caller, Text: "planted"})
			return err
		},
		"digest": func() error {
			_, err := other.DigestOutput(ctx, &ihmtv1.DigestOutputRequest{Caller: caller, Text: "ok\n"})
			return err
		},
	} {
		if err := call(); !errors.Is(err, client.ErrPermission) {
			t.Errorf("another client's %s of the session: %v, want a refusal", name, err)
		}
	}
	conn, err := grpc.NewClient("unix://"+d.socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw := ihmtv1.NewSessionServiceClient(conn)
	for name, md := range map[string]metadata.MD{
		"no key":      nil,
		"a guess":     metadata.Pairs(client.SessionKeyHeader, strings.Repeat("0", 48)),
		"a short key": metadata.Pairs(client.SessionKeyHeader, "x"),
	} {
		_, err := raw.Recall(metadata.NewOutgoingContext(ctx, md), recall)
		if c := status.Code(err); c != codes.PermissionDenied && c != codes.InvalidArgument {
			t.Errorf("raw recall with %s: %v, want refused", name, err)
		}
	}
	if r, err := owner.Recall(ctx, recall); err != nil || len(r.GetHits()) != 1 {
		t.Fatalf("the owner's session after the attempts: %v %v (one note, nothing planted)", r, err)
	}
}

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLogFollowsScope: `ihmt log` run inside project B lists B's and the
// global memories' entries, never project A's text; `--scope all` lists
// A's too, and that read is itself on the log.
func TestLogFollowsScope(t *testing.T) {
	e := servedEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const projA, projB = "github.com/x/scope-a", "github.com/x/scope-b"
	inA, _ := e.connectShim(t, ctx, shimOpts{name: "claude-code", project: projA})
	inB, _ := e.connectShim(t, ctx, shimOpts{name: "codex-mcp-client", project: projB})
	if s, err := callTool[savedFull](ctx, inA, "save_memory", map[string]any{"content": "Project A deploys from the otterbay runner."}); err != nil || s.Status != "saved" {
		t.Fatalf("save in A: %+v %v", s, err)
	}
	if s, err := callTool[savedFull](ctx, inB, "save_memory", map[string]any{"content": "Project B deploys from the heronmere runner."}); err != nil || s.Status != "saved" {
		t.Fatalf("save in B: %+v %v", s, err)
	}
	if s, err := callTool[savedFull](ctx, inA, "save_memory", map[string]any{"content": "The user prefers the kestrelwood editor theme.", "scope": "global"}); err != nil || s.Status != "saved" {
		t.Fatalf("global save: %+v %v", s, err)
	}
	envB := e.environ(projB)
	r := e.ihmt(envB, "log")
	if r.code != 0 {
		t.Fatalf("ihmt log in B: %s", r)
	}
	if strings.Contains(r.stdout, "otterbay") {
		t.Errorf("ihmt log inside project B prints project A's text:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "heronmere") || !strings.Contains(r.stdout, "kestrelwood") {
		t.Errorf("control: B's own and the global memory must be listed:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "read across every project") {
		t.Errorf("a default read must not be logged as a scope=all read:\n%s", r.stdout)
	}
	all := e.ihmt(envB, "log", "--scope", "all")
	if all.code != 0 || !strings.Contains(all.stdout, "otterbay") {
		t.Fatalf("ihmt log --scope all must list A's entries too: %s", all)
	}
	again := e.ihmt(envB, "log")
	if again.code != 0 || !strings.Contains(again.stdout, "read across every project: log") {
		t.Errorf("the scope=all read of the log is not on the log:\n%s", again)
	}
	if strings.Contains(again.stdout, "otterbay") {
		t.Errorf("after the wide read, a default read still must not show A's text:\n%s", again.stdout)
	}
	if bad := e.ihmt(envB, "log", "--scope", "everything"); bad.code == 0 || !strings.Contains(bad.stderr, "all") {
		t.Errorf("an unknown scope must be refused naming the choices: %s", bad)
	}
}

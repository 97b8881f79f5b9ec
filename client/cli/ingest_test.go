package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestIngestReport: a first ingest says a copy within the run is a copy,
// not "unchanged"; a document refused for a secret is named with the
// secret's line and kind and how to ingest the rest, and does not stop
// the others; --skip-refused keeps it from failing the command. A search
// then shows which file a result came from, and the same text stored
// twice once.
func TestIngestReport(t *testing.T) {
	sock := startTestDaemon(t)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", "github.com/acme/shop"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "vendored")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	deploy := "# Deploys\n\nStaging deploys run from CI on every merge to main, after the smoke tests.\n"
	writeFile(t, filepath.Join(dir, "a-deploy.md"), deploy)
	writeFile(t, filepath.Join(sub, "deploy-copy.md"), deploy)
	writeFile(t, filepath.Join(dir, "b-fixture.md"), "# Fixture\n\nThe loader test reads this token:\n\nghp_0123456789abcdefghijABCDEFGHIJ012345\n")

	code, out, errs := run("ingest", dir)
	if code != exitError {
		t.Errorf("a refused document: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		filepath.Join(sub, "deploy-copy.md") + ": the same text as " + filepath.Join(dir, "a-deploy.md") + ", ingested above",
		filepath.Join(dir, "b-fixture.md") + ": refused: Not stored: the document holds a GitHub",
		"at line 5, column 1",
		"redact the secret",
		"1 copy of another document in this run",
		"The other documents were ingested all the same",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ingest report lacks %q:\n%s%s", want, out, errs)
		}
	}
	if strings.Contains(out, "1Password") || strings.Contains(out, "0 saved") {
		t.Errorf("ingest report:\n%s", out)
	}
	// Again, with --skip-refused: the refusal is reported, the command
	// succeeds, and what an earlier run stored reads as such.
	code, out, _ = run("ingest", "--skip-refused", dir)
	if code != 0 || !strings.Contains(out, "refused") || !strings.Contains(out, "a-deploy.md: unchanged (stored by an earlier ingest; nothing written)") {
		t.Errorf("ingest --skip-refused: exit %d\n%s", code, out)
	}

	code, out, _ = run("search", "staging deploys merge smoke tests")
	if code != 0 || !strings.Contains(out, "   from "+filepath.Join(dir, "a-deploy.md")) {
		t.Errorf("search does not say which file a result came from:\n%s", out)
	}
	if n := strings.Count(out, "Staging deploys run from CI"); n != 1 {
		t.Errorf("the same text shows %d times:\n%s", n, out)
	}
	// The same text saved globally and in the project: one result, which
	// names the other.
	for _, scope := range []string{"global", "project"} {
		if code, out, errs := run("save", "--scope", scope, "Release notes are written in docs/CHANGES.md by the releaser."); code != 0 {
			t.Fatalf("save --scope %s: %s %s", scope, out, errs)
		}
	}
	code, out, _ = run("search", "--limit", "10", "who writes the release notes")
	if n := strings.Count(out, "Release notes are written"); code != 0 || n != 1 || !strings.Contains(out, "(the same text is also stored as ") {
		t.Errorf("the same text saved twice shows %d times:\n%s", n, out)
	}
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestWhereASaveLands: a person's save from the home directory (no
// repository) is global, and says so; the same save from a directory
// under it files under that directory's project. A search that finds
// nothing where it looks says which other projects hold matches and how to
// see them; one that looked everywhere does not.
func TestWhereASaveLands(t *testing.T) {
	sock := startTestDaemon(t)
	home := t.TempDir()
	work := filepath.Join(home, "scratch")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("IHMT_PROJECT", "")
	run := func(dir string, args ...string) (int, string, string) {
		t.Chdir(dir)
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run(home, "save", "I prefer tabs in Makefiles and spaces elsewhere.")
	if code != 0 || !strings.Contains(out, "(global, valid from") || !strings.Contains(out, "saved from the home directory") {
		t.Errorf("save from home: exit %d %s\n%s", code, errs, out)
	}
	// Positive control: under home, a directory is a project of its own.
	code, out, errs = run(work, "save", "The scratch build uses make -j4.")
	if code != 0 || !strings.Contains(out, "(project "+realDir(t, work)+", valid from") || strings.Contains(out, "home directory") {
		t.Errorf("save from a directory under home: exit %d %s\n%s", code, errs, out)
	}
	// --project wins over the home rule.
	if code, out, _ := run(home, "--project", "github.com/acme/other", "save", "The staging database is PostgreSQL 17."); code != 0 || !strings.Contains(out, "project github.com/acme/other") {
		t.Errorf("save with --project from home: exit %d\n%s", code, out)
	}

	code, out, _ = run(work, "--project", "github.com/acme/shop", "search", "staging database")
	if code != 0 || !strings.HasPrefix(out, "not_found") || !strings.Contains(out, "Other projects hold matches: github.com/acme/other. See them with --scope all.") {
		t.Errorf("search from another project: exit %d\n%s", code, out)
	}
	code, out, _ = run(work, "--project", "github.com/acme/shop", "search", "--scope", "all", "staging database")
	if code != 0 || !strings.HasPrefix(out, "found") || strings.Contains(out, "Other projects hold") {
		t.Errorf("search --scope all: exit %d\n%s", code, out)
	}
	// Nothing anywhere: no hint.
	if _, out, _ = run(work, "--project", "github.com/acme/shop", "search", "kubernetes ingress"); strings.Contains(out, "Other projects") {
		t.Errorf("a search nothing matches anywhere hints at other projects:\n%s", out)
	}
}

// TestSaveSaysWhichDate: the save's answer says which date the memory
// holds and where it came from; an undated one says what that means and
// how to date it.
func TestSaveSaysWhichDate(t *testing.T) {
	sock := startTestDaemon(t)
	for _, tt := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"2025-10-06 The standup moved to 9:30."}, []string{"valid from 2025-10-06, the date the text opens with)"}, "--date"},
		{[]string{"--date", "2025-10-01", "The standup is at 9:00."}, []string{"valid from 2025-10-01, the date given)"}, "--date"},
		{[]string{"The retro is on Fridays."}, []string{"the time of the save: no date was given and the text opens with none)", "save it again with --date YYYY-MM-DD", "ihmt forget "}, "\x00"},
	} {
		var out, errb bytes.Buffer
		code := Run(testenv.Context(t), append([]string{"--socket", sock, "--project", "github.com/acme/shop", "save"}, tt.args...), &out, &errb)
		for _, w := range tt.want {
			if code != 0 || !strings.Contains(out.String(), w) {
				t.Errorf("save %q: exit %d, lacks %q:\n%s%s", tt.args, code, w, out.String(), errb.String())
			}
		}
		if strings.Contains(out.String(), tt.not) {
			t.Errorf("save %q: says %q:\n%s", tt.args, tt.not, out.String())
		}
	}
}

func realDir(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorFreeDict: doctor reports the FreeDict dictionaries the daemon
// would read, their absence (fine: they are optional) and a broken one.
func TestDoctorFreeDict(t *testing.T) {
	present := t.TempDir()
	// dictd's format: "headword TAB offset TAB length" (base64 digits) into
	// the .dict file; "T" is 19, the body's length.
	os.WriteFile(filepath.Join(present, "freedict-spa-eng.index"), []byte("tortuga\tA\tT\n"), 0o644)
	os.WriteFile(filepath.Join(present, "freedict-spa-eng.dict"), []byte("tortuga /t/\nturtle\n"), 0o644)
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "freedict-eng-spa.index"), []byte("turtle\tA\tzzz\n"), 0o644)
	os.WriteFile(filepath.Join(broken, "freedict-eng-spa.dict"), []byte("turtle /t/\ntortuga\n"), 0o644)
	tests := []struct {
		name, dir, status, finding, fix string
	}{
		{"installed", present, checkOK, "freedict-spa-eng.dict; headwords: 1", ""},
		{"absent", t.TempDir(), checkOK, "not installed", "apt install dict-freedict-eng-spa"},
		{"broken", broken, checkWarn, "unreadable", "reinstall"},
	}
	saved := freeDictDirs
	t.Cleanup(func() { freeDictDirs = saved })
	for _, tt := range tests {
		freeDictDirs = []string{tt.dir}
		d := &doctor{}
		d.freeDict()
		if len(d.checks) != 1 {
			t.Fatalf("%s: %d checks, want 1", tt.name, len(d.checks))
		}
		c := d.checks[0]
		if c.Name != "freedict" || c.Status != tt.status || !strings.Contains(c.Finding, tt.finding) || !strings.Contains(c.Fix, tt.fix) {
			t.Errorf("%s: %+v, want status %s, a finding with %q and a fix with %q", tt.name, c, tt.status, tt.finding, tt.fix)
		}
	}
}

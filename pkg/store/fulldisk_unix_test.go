//go:build linux || darwin

package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDiskEnv makes the test binary act as a writer that runs out of room
// (see TestFullDiskFailsCleanly).
const fullDiskEnv = "IHMT_TEST_FULL_DISK_DIR"

const reportMarker = "\nFULL-DISK-REPORT "

type fullDiskReport struct {
	Acked []string `json:"acked"`
	Err   string   `json:"err"`
}

// TestFullDiskFailsCleanly runs a writer whose files may not grow past
// 64 KiB (RLIMIT_FSIZE: the log hits it as it would a full disk) and checks
// that the save that does not fit fails with a clear error, leaves no
// partial entry behind, and that every save acknowledged before it is there
// after a restart.
func TestFullDiskFailsCleanly(t *testing.T) {
	if dir := os.Getenv(fullDiskEnv); dir != "" {
		fullDiskWriter(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskFailsCleanly$")
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("writer: %v\n%s", err, errb.String())
	}
	// The test framework prints too; the report is the line after the marker.
	_, report, ok := strings.Cut(out.String(), reportMarker)
	var rep fullDiskReport
	if err := json.Unmarshal([]byte(strings.SplitN(report, "\n", 2)[0]), &rep); !ok || err != nil {
		t.Fatalf("writer report %q: %v", out.String(), err)
	}
	if len(rep.Acked) == 0 || rep.Err == "" {
		t.Fatalf("want some saves acknowledged and then a failure; got %d acknowledged, error %q", len(rep.Acked), rep.Err)
	}
	if !strings.Contains(rep.Err, "save not stored") || !strings.Contains(rep.Err, "free disk space") {
		t.Errorf("the failure does not say what happened and what to do: %q", rep.Err)
	}
	// The failed append was cut back: the log ends on a whole entry.
	data, err := os.ReadFile(filepath.Join(dir, logName))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("log does not end with a complete entry (%d bytes)", len(data))
	}
	if n := bytes.Count(data, []byte("\n")); n != len(rep.Acked) {
		t.Errorf("log has %d entries, %d saves were acknowledged", n, len(rep.Acked))
	}
	s := open(t, dir)
	for _, id := range rep.Acked {
		if _, err := s.Get(nobody, id, ScopeAll); err != nil {
			t.Errorf("acknowledged save %s lost: %v", id, err)
		}
	}
	t.Logf("%d saves acknowledged before the limit; the next failed with: %s", len(rep.Acked), rep.Err)
}

func fullDiskWriter(dir string) {
	signal.Ignore(syscall.SIGXFSZ) // get EFBIG from write instead of dying
	lim := syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		os.Exit(2)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	var rep fullDiskReport
	for i := 0; i < 10_000 && rep.Err == ""; i++ {
		r, err := s.Save(context.Background(), SaveInput{Caller: nobody, Content: fmt.Sprintf("memory %d: %s", i, strings.Repeat("filler words to take room ", 20))})
		if err != nil {
			rep.Err = err.Error()
			break
		}
		rep.Acked = append(rep.Acked, r.Leaf.ID)
	}
	s.Close()
	b, _ := json.Marshal(rep)
	fmt.Printf("%s%s\n", reportMarker, b)
	os.Exit(0)
}

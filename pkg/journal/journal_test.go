package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func lines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	if err := Read(path, func(l []byte) error { out = append(out, string(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAppendReopenAndTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append([][]byte{[]byte(`{"n":1}`), []byte(`{"n":2}`)}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append([][]byte{[]byte(`{"n":3}`)}); err != nil {
		t.Fatal(err)
	}
	if j.Entries() != 3 {
		t.Fatalf("Entries = %d, want 3", j.Entries())
	}
	j.Close()

	// Simulate a crash in the middle of a write: a partial line at the end.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"n":4,"tor`)
	f.Close()

	j, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if j.Entries() != 3 {
		t.Fatalf("after torn tail Entries = %d, want 3", j.Entries())
	}
	if err := j.Append([][]byte{[]byte(`{"n":5}`)}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	got := lines(t, path)
	want := []string{`{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":5}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("lines = %q, want %q", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
}

func TestAppendRejectsNewline(t *testing.T) {
	j, err := Open(filepath.Join(t.TempDir(), "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append([][]byte{[]byte("a\nb")}); err == nil {
		t.Fatal("want error for a line with a newline")
	}
	if err := j.Append([][]byte{[]byte("ab")}); err != nil || j.Entries() != 1 {
		t.Fatalf("positive control: err %v entries %d", err, j.Entries())
	}
}

func TestLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	j, _ := Open(path)
	long := make([]byte, 300_000)
	for i := range long {
		long[i] = 'x'
	}
	if err := j.Append([][]byte{long, []byte("short")}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	got := lines(t, path)
	if len(got) != 2 || len(got[0]) != len(long) || got[1] != "short" {
		t.Fatalf("got %d lines (first %d bytes)", len(got), len(got[0]))
	}
}

func BenchmarkAppendFsync(b *testing.B) {
	j, _ := Open(filepath.Join(b.TempDir(), "log.jsonl"))
	defer j.Close()
	line := []byte(`{"op":"save","id":"0123456789abcdef","text":"I live in Madrid"}`)
	for b.Loop() {
		if err := j.Append([][]byte{line}); err != nil {
			b.Fatal(err)
		}
	}
}

package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteBatch(t *testing.T) {
	dir := t.TempDir()
	var files []File
	// More files than one chunk, over more directories than are fsynced
	// one by one.
	for i := 0; i < 2*chunk+10; i++ {
		files = append(files, File{Path: filepath.Join(dir, fmt.Sprintf("d%d", i%12), fmt.Sprintf("f%d", i)), Data: []byte(fmt.Sprint("content ", i))})
	}
	if err := WriteBatch(files, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		got, err := os.ReadFile(f.Path)
		if err != nil || string(got) != fmt.Sprint("content ", i) {
			t.Fatalf("%s = %q, %v", f.Path, got, err)
		}
		if st, _ := os.Stat(f.Path); st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", f.Path, st.Mode().Perm())
		}
	}
	// Overwrite one and check no temp files are left behind.
	if err := Write(files[0].Path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(files[0].Path); string(got) != "new" {
		t.Fatalf("overwrite: got %q", got)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*", ".*tmp*"))
	if len(leftovers) != 0 {
		t.Fatalf("temp files left: %v", leftovers)
	}
}

func TestWriteBatchFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o600)
	// A path under a regular file cannot be created.
	err := WriteBatch([]File{{Path: filepath.Join(dir, "ok"), Data: []byte("a")}, {Path: filepath.Join(blocker, "sub", "x"), Data: []byte("b")}}, 0o600)
	if err == nil {
		t.Fatal("want error")
	}
	if _, err := os.Stat(filepath.Join(dir, "ok")); !os.IsNotExist(err) {
		t.Errorf("a failed batch made a file visible: %v", err)
	}
}

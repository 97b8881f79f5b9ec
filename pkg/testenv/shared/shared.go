// Package shared finds, for a test, the data every engineer and every CI
// run has beside the repository at ../shared (the retrieval sets, LoCoMo),
// which is never copied into the repository. A fresh clone alone lacks it:
// there a test that needs it is skipped, saying why; under CI (CI set), it
// fails, since CI must have it. It imports nothing of the engine, so the
// store's own tests may use it.
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// Data returns ../shared/data beside the repository holding the test's
// working directory.
func Data(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for !exists(filepath.Join(dir, "go.mod")) {
		if dir == filepath.Dir(dir) {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = filepath.Dir(dir)
	}
	data := filepath.Join(filepath.Dir(dir), "shared", "data")
	if !exists(data) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: CI must have ../shared beside the repository", data)
		}
		t.Skipf("%s is not beside this checkout: put ../shared next to the repository to run this test", data)
	}
	return data
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

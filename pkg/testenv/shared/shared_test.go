package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// TestData: the directory it returns holds the dev set (where ../shared is
// there at all; elsewhere Data skips, which this test then does too).
func TestData(t *testing.T) {
	d := Data(t)
	if _, err := os.Stat(filepath.Join(d, "devset", "devset.jsonl")); err != nil {
		t.Fatalf("Data() = %s, without the dev set: %v", d, err)
	}
}

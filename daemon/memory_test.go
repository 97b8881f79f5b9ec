package daemon

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// The soft limit is memoryTarget while the heap leaves room under it, none
// once it does not, and a person's GOMEMLIMIT is left alone.
func TestSetMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	unset := func() {
		t.Setenv("GOMEMLIMIT", "") // restored after the test
		os.Unsetenv("GOMEMLIMIT")
	}

	unset()
	debug.SetMemoryLimit(math.MaxInt64)
	runtime.GC()
	if limit, ok := setMemoryLimit(); !ok || limit != memoryTarget || debug.SetMemoryLimit(-1) != memoryTarget {
		t.Fatalf("small heap: limit %d, %v (runtime %d); want %d", limit, ok, debug.SetMemoryLimit(-1), memoryTarget)
	}

	// A store that keeps more than the target leaves room for: no limit.
	big := make([]byte, memoryTarget-memoryRoom)
	for i := range big {
		big[i] = 1 // resident, not just reserved
	}
	runtime.GC()
	if limit, ok := setMemoryLimit(); !ok || limit != 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Fatalf("big heap: limit %d, %v (runtime %d); want none", limit, ok, debug.SetMemoryLimit(-1))
	}
	runtime.KeepAlive(big)

	// A person's setting wins, whatever the heap.
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	if _, ok := setMemoryLimit(); ok || debug.SetMemoryLimit(-1) != 1<<30 {
		t.Fatalf("GOMEMLIMIT set: the daemon changed the limit to %d", debug.SetMemoryLimit(-1))
	}
}

func TestCollectOftenWhileOpening(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	restore := collectOftenWhileOpening()
	if got := debug.SetGCPercent(openGCPercent); got != openGCPercent {
		t.Errorf("while opening: GOGC %d, want %d", got, openGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after opening: GOGC %d, want 100 back", got)
	}

	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200)
	restore = collectOftenWhileOpening()
	if got := debug.SetGCPercent(200); got != 200 {
		t.Errorf("GOGC set by a person: changed to %d while opening", got)
	}
	restore()
}

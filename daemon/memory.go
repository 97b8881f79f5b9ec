package daemon

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The garbage collector runs with Go's defaults (GOGC=100, no memory
// limit): the heap may grow to twice what the store keeps before a
// collection. Keeping a large store's daemon smaller while it works costs
// its calls, because every collection marks everything the store keeps
// (at 100,000 memories some 200 MB, ~110 ms of marking):
//
//   - GOGC=50: sixteen clients saving into a 100,000-memory store got 11%
//     fewer saves through (1261 vs 1425 saves/s, medians of 3 runs);
//   - a soft memory limit of what the store keeps plus 32 MiB: resident
//     memory after a burst of 1,200 searches 293 MiB instead of ~400, but
//     15 collections instead of 1, and search p99 13–21 ms instead of 8.5.
//
// So the defaults stay, and a person who wants a bound sets GOMEMLIMIT,
// which the runtime reads itself. A daemon is mostly idle between an
// agent's bursts of calls, though, so the memory a burst left behind is
// handed back once the calls stop, at no cost to the calls themselves.
const (
	// memoryCheck is how often an idle daemon looks for memory to return.
	memoryCheck = 5 * time.Second
	// memoryIdle is how long without a call counts as idle.
	memoryIdle = 5 * time.Second
	// memoryWorthReturning is the least reclaimable memory worth a forced
	// collection (a few hundred ms of CPU on a large store); a quarter of
	// the live heap when that is more.
	memoryWorthReturning = 64 << 20
)

// releaseIdleMemory returns the heap's garbage and free pages to the
// operating system when there are enough of them to be worth a
// collection: once after a burst of calls, not at every check while idle
// (after a release there is next to nothing left to return).
func releaseIdleMemory() {
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(samples)
	for _, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return // a runtime without these metrics: leave it to the defaults
		}
	}
	live := samples[0].Value.Uint64()
	objects := samples[1].Value.Uint64() // live, and garbage not yet collected
	free := samples[2].Value.Uint64()    // free pages not yet returned
	reclaimable := free
	if objects > live {
		reclaimable += objects - live
	}
	if reclaimable >= max(memoryWorthReturning, live/4) {
		debug.FreeOSMemory()
	}
}

package daemon

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The daemon keeps its memory modest without making its calls pay for it.
//
// While the store leaves the collector room under memoryTarget (at least
// memoryRoom beyond what it keeps), the daemon sets a soft memory limit of
// memoryTarget (runtime/debug.SetMemoryLimit): the collector runs before
// the limit is reached and the scavenger hands free pages back, where Go's
// default (GOGC=100) lets the heap grow to twice what the store keeps. A
// store too big for that room runs with the defaults instead of
// collecting all the time. The limit is revisited as the store grows
// (setMemoryLimit); a person who sets GOMEMLIMIT decides instead.
//
// With the limit, a large store's daemon stays smaller after a burst of
// searches and its searches are no slower; idle, it is the same size
// either way (README's "Honest numbers" has the measurements).
//
// Opening is the other peak: it holds every text at once and leaves about
// as much garbage as the store keeps. It runs with GOGC=openGCPercent,
// which costs in proportion whatever the store's size (a limit would not):
// a lower peak for a slightly longer open, where a higher setting, or the
// default, peaks higher.
//
// What a limit costs depends on the room it leaves: a limit just above
// what the store keeps makes the collector run many times in a burst of
// searches and slows them, and a lower GOGC throughout slows saves. Hence
// memoryRoom, and the defaults for a store that does not leave it.
//
// A daemon is mostly idle between an agent's bursts of calls, and the
// memory a burst left behind is handed back once the calls stop, at no
// cost to the calls themselves (releaseIdleMemory).
const (
	// memoryTarget is the soft limit. It counts the Go runtime's memory;
	// the program's own pages come on top of it in what the system
	// reports, and the target leaves room for them under the daemon's
	// resident budget.
	memoryTarget = 260 << 20
	// memoryRoom is the least room a limit must leave the collector
	// beyond what the store keeps: the garbage of a burst of searches.
	memoryRoom = 64 << 20
	// memoryCheck is how often the daemon revisits the limit and, when
	// idle, looks for memory to return.
	memoryCheck = 5 * time.Second
	// memoryIdle is how long without a call counts as idle.
	memoryIdle = 5 * time.Second
	// memoryWorthReturning is the least reclaimable memory worth a forced
	// collection, which costs a large store real CPU; a quarter of the
	// live heap when that is more.
	memoryWorthReturning = 32 << 20
)

// setMemoryLimit sets the soft memory limit for the store the daemon holds
// now: memoryTarget while what it keeps leaves memoryRoom under it, else
// none (Go's defaults). It reports the limit set, 0 for none, and false
// when it left the runtime alone (GOMEMLIMIT set, or a runtime without the
// metrics).
func setMemoryLimit() (limit int64, ok bool) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return 0, false
	}
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	metrics.Read(samples)
	v := make([]int64, len(samples))
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0, false
		}
		v[i] = int64(s.Value.Uint64())
	}
	// What the runtime holds besides objects and free pages: the unused
	// parts of the spans objects are in, stacks, its own metadata.
	live, other := v[0], max(v[1]-v[2]-v[3]-v[4], 0)
	if live+other+memoryRoom > memoryTarget {
		debug.SetMemoryLimit(math.MaxInt64)
		return 0, true
	}
	debug.SetMemoryLimit(memoryTarget)
	return memoryTarget, true
}

// openGCPercent is the collector's setting while a store opens (see above).
const openGCPercent = 25

// collectOftenWhileOpening sets openGCPercent until the function it
// returns is called, unless a person set GOGC.
func collectOftenWhileOpening() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(openGCPercent)
	return func() { debug.SetGCPercent(old) }
}

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

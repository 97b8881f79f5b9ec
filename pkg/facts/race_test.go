//go:build race

package facts

const raceEnabled = true

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// findProcs returns the live (not zombie) processes whose command line
// match accepts.
func findProcs(match func(args []string) bool) ([]int, bool) {
	var pids []int
	for _, pid := range allPids() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil || len(b) == 0 || !processAlive(pid) {
			continue
		}
		args := strings.Split(string(bytes.TrimSuffix(b, []byte{0})), "\x00")
		if match(args) {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// openers returns the processes that have path open.
func openers(path string) ([]int, bool) {
	var pids []int
	for _, pid := range allPids() {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && target == path {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids, true
}

// processAlive reports whether pid exists and is not a zombie: a daemon
// whose parent (a shim, a CLI) already exited may linger as a zombie until
// init reaps it, and that is as dead as it gets.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and may
	// itself contain them.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state != 'Z' && state != 'X'
}

func allPids() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

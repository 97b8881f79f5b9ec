//go:build !linux

package e2e

import "syscall"

// findProcs needs /proc; elsewhere the process-table checks are skipped.
func findProcs(func(args []string) bool) ([]int, bool) { return nil, false }

// openers needs /proc; elsewhere the check is skipped.
func openers(string) ([]int, bool) { return nil, false }

func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

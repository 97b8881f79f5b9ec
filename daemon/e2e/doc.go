// Package e2e holds the end-to-end tests: real binaries over a real Unix socket and real stdio.
//
// TestMain builds ihmtd, ihmt-mcp and ihmt once into one directory, so a shim
// finds the daemon beside itself exactly as an installed one does. Every test
// then gets its own store and its own short socket path (sun_path is 108
// bytes), passed to the child processes through IHMT_HOME and IHMT_SOCKET,
// and kills every daemon it caused to start when it ends.
//
// The package has no non-test code; this file only carries the package
// comment.
package e2e

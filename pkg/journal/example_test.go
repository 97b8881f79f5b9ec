package journal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/journal"
)

// writeLog writes entries to a new log as one batch, chained and made
// durable with one fsync, and returns its path and what removes it.
func writeLog(entries ...string) (path string, done func()) {
	dir, err := os.MkdirTemp("", "journal-example")
	if err != nil {
		panic(err)
	}
	path = filepath.Join(dir, "log.jsonl")
	j, err := journal.Open(path)
	if err != nil {
		panic(err)
	}
	batch := make([][]byte, len(entries))
	for i, e := range entries {
		batch[i] = []byte(e)
	}
	if err := j.Append(batch); err != nil {
		panic(err)
	}
	if err := j.Close(); err != nil {
		panic(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// Open counts the entries of a log written before; Verify walks its chain
// and names any edit, here a changed word in the second entry.
func Example() {
	path, done := writeLog(
		`{"seq":1,"op":"save","id":"a"}`,
		`{"seq":2,"op":"save","id":"b"}`,
		`{"seq":3,"op":"forget","id":"a"}`,
	)
	defer done()
	j, err := journal.Open(path)
	if err != nil {
		panic(err)
	}
	fmt.Println("entries:", j.Entries())
	j.Close()

	rep, err := journal.Verify(path, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("problems:", len(rep.Problems))

	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	edited := strings.Replace(string(data), `"id":"b"`, `"id":"c"`, 1)
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		panic(err)
	}
	rep, err = journal.Verify(path, nil)
	if err != nil {
		panic(err)
	}
	for _, p := range rep.Problems {
		fmt.Printf("line %d (seq %d) %s: %s\n", p.Line, p.Seq, p.Kind, p.Detail)
	}
	// Output:
	// entries: 3
	// problems: 0
	// line 2 (seq 2) changed: its content no longer matches its hash
}

// sha matches a SHA-256 in hex.
var sha = regexp.MustCompile(`[0-9a-f]{64}`)

// Read hands over every complete line, each with the "prev" and "hash"
// fields Append added: an entry's "prev" is the hash of the entry before
// (here cut to eight of its 64 hex digits).
func ExampleRead() {
	path, done := writeLog(`{"op":"save"}`, `{"op":"forget"}`)
	defer done()
	err := journal.Read(path, func(line []byte) error {
		fmt.Println(sha.ReplaceAllStringFunc(string(line), func(h string) string { return h[:8] + "…" }))
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// {"op":"save","prev":"","hash":"d0c5aad5…"}
	// {"op":"forget","prev":"d0c5aad5…","hash":"39bd0f89…"}
}

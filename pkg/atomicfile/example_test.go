package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ihmt-dev/ihmt/pkg/atomicfile"
)

// WriteBatch creates what directories it needs and replaces each file
// whole: a reader sees the old content or the new, never a mixture.
func ExampleWriteBatch() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	files := []atomicfile.File{
		{Path: filepath.Join(dir, "leaves", "ab", "ab12.txt"), Data: []byte("first memory\n")},
		{Path: filepath.Join(dir, "leaves", "cd", "cd34.txt"), Data: []byte("second memory\n")},
	}
	if err := atomicfile.WriteBatch(files, 0o600); err != nil {
		panic(err)
	}
	if err := atomicfile.Write(files[0].Path, []byte("first memory, corrected\n"), 0o600); err != nil {
		panic(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			panic(err)
		}
		fi, err := os.Stat(f.Path)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %v %q\n", filepath.Base(f.Path), fi.Mode().Perm(), data)
	}
	// Output:
	// ab12.txt -rw------- "first memory, corrected\n"
	// cd34.txt -rw------- "second memory\n"
}

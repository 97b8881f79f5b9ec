package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// module is this repository's module path: the go.mod that names it marks
// the repository's root.
const module = "github.com/ihmt-dev/ihmt"

// sharedSets are the default sets read from the data sets beside the
// repository (../shared, relative to its root), never copied into it.
var sharedSets = []string{
	"data/devset/devset.jsonl",
	"data/trainsets/setA/setA.jsonl",
	"data/trainsets/setB/setB.jsonl",
}

// ownSets are the default sets this repository holds, in testdata.
var ownSets = []string{"proxy.jsonl", "blind2.jsonl"}

// repoRoot is the repository's root: the first directory, from the working
// directory up, whose go.mod declares this module; else the one this
// source file sits two levels under (a binary run from elsewhere).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if declaresModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		root := filepath.Join(filepath.Dir(file), "..", "..")
		if declaresModule(filepath.Join(root, "go.mod")) {
			return filepath.Clean(root), nil
		}
	}
	return "", fmt.Errorf("no go.mod of %s from the working directory up: run from inside the repository", module)
}

func declaresModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return fields[1] == module
		}
	}
	return false
}

// sharedDir is ../shared beside the repository's root.
func sharedDir(root string) string { return filepath.Join(filepath.Dir(root), "shared") }

// testdataDir is this command's testdata directory.
func testdataDir(root string) string { return filepath.Join(root, "scripts", "eval", "testdata") }

// defaultSets are the five sets a bare run measures, as paths from the
// working directory when it is inside the repository (shorter to read in
// the tables), else absolute.
func defaultSets(root string) []string {
	var out []string
	for _, rel := range sharedSets {
		out = append(out, filepath.Join(sharedDir(root), filepath.FromSlash(rel)))
	}
	for _, name := range ownSets {
		out = append(out, filepath.Join(testdataDir(root), name))
	}
	if wd, err := os.Getwd(); err == nil {
		for i, p := range out {
			if rel, err := filepath.Rel(wd, p); err == nil {
				out[i] = rel
			}
		}
	}
	return out
}

// resolveSets fills in the default sets when none is named, and checks
// every set's file is there before anything is built or started, naming
// each missing one and what to do about it.
func resolveSets(cfg *config) error {
	named := len(cfg.sets) > 0
	if !named {
		root, err := repoRoot()
		if err != nil {
			return err
		}
		cfg.sets = defaultSets(root)
	}
	var missing []string
	for _, p := range cfg.sets {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, p)
		} else if err != nil {
			return fmt.Errorf("set %s: %w", p, err)
		}
	}
	switch {
	case len(missing) == 0:
		return nil
	case named:
		return fmt.Errorf("no such set file: %s", strings.Join(missing, ", "))
	default:
		return fmt.Errorf("a default set is missing: %s. The dev set and the training sets are read from ../shared beside the repository (never copied into it): put the data sets there, or name the sets to run as arguments", strings.Join(missing, ", "))
	}
}

// setNames are the sets' short names for the tables and -keep's
// directories: the file's name without .jsonl, numbered when two agree.
func setNames(paths []string) []string {
	out := make([]string, len(paths))
	seen := map[string]int{}
	for i, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		seen[name]++
		if seen[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, seen[name])
		}
		out[i] = name
	}
	return out
}

package tree

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzOpen feeds Open damaged tree files — one file of a small valid tree
// replaced, extended or cut — and checks it never panics, never trusts
// what it cannot verify (the loaded tree is consistent), converges (a
// second Open repairs nothing), finds a damaged branch file when it reads
// it (the outline reads them all) and drops it at the next Consolidate,
// and recovers (after Reconcile and Consolidate every leaf is reachable
// again).
func FuzzOpen(f *testing.F) {
	items := simpleItems("global|software.go", 0, 45)
	tmpl := f.TempDir()
	tr, err := Open(tmpl, Options{BranchFactor: 4, Now: testOpts().Now})
	if err != nil {
		f.Fatal(err)
	}
	addAll(f, tr, items[:30])
	consolidate(f, tr, false)
	if err := tr.writeSnapshot(tr.cat.gen + 1); err != nil {
		f.Fatal(err)
	}
	addAll(f, tr, items[30:])
	tr.Remove(items[3].ID)
	consolidate(f, tr, false)
	files := readDir(f, tmpl)
	names := slices.Sorted(maps.Keys(files))

	for i, name := range names {
		data := files[name]
		f.Add(uint8(i), uint8(0), data)
		f.Add(uint8(i), uint8(0), data[:len(data)/2])
		f.Add(uint8(i), uint8(0), []byte("null"))
		f.Add(uint8(i), uint8(0), []byte("{}"))
		f.Add(uint8(i), uint8(1), []byte("\n{\"gen\":1,\"parents\":{\"0000000000000001\":\"b0000000000000001\"}}\n"))
		f.Add(uint8(i), uint8(2), []byte{})
		mangled := strings.Replace(string(data), `"layer": 1`, `"layer": 2`, 1)
		f.Add(uint8(i), uint8(0), []byte(mangled))
	}

	f.Fuzz(func(t *testing.T, which, mode uint8, data []byte) {
		dir := t.TempDir()
		for name, d := range files {
			write(t, dir, name, string(d))
		}
		name := names[int(which)%len(names)]
		path := filepath.Join(dir, name)
		switch mode % 3 {
		case 0:
			os.WriteFile(path, data, 0o600)
		case 1:
			os.WriteFile(path, append(slices.Clone(files[name]), data...), 0o600)
		case 2:
			d := files[name]
			os.WriteFile(path, d[:len(data)%(len(d)+1)], 0o600)
		}
		opts := Options{BranchFactor: 4, Now: testOpts().Now}
		tr, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkInvariants(tr); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r := again.Repairs(); len(r) != 0 {
			t.Fatalf("%s: second open repaired %v (first: %v)", name, r, tr.Repairs())
		}
		// Open reads the root's branches only: the outline reads the rest,
		// and the next Consolidate drops what it found damaged.
		again.Outline(0)
		if _, err := again.Consolidate(false); err != nil {
			t.Fatal(err)
		}
		if err := checkInvariants(again); err != nil {
			t.Fatal(err)
		}
		if err := checkFiles(again); err != nil {
			t.Fatalf("%s: after the outline and a consolidation: %v", name, err)
		}
		if _, _, err := again.Reconcile(slices.Concat(items[:3], items[4:])); err != nil {
			t.Fatal(err)
		}
		if _, err := again.Consolidate(false); err != nil {
			t.Fatal(err)
		}
		if err := checkInvariants(again); err != nil {
			t.Fatal(err)
		}
		got := reachableOnDisk(t, dir)
		for i, it := range items {
			if i != 3 && !got[it.ID] {
				t.Fatalf("%s: %s unreachable after recovery", name, it.ID)
			}
		}
	})
}

package ingest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// Every splitter is fuzzed for the invariant: no panic, the blocks
// reproduce the input byte for byte, no block is empty or only white
// space, and Oversized is exact. Seeds are the code samples and the prose
// cases of the table tests.

func fuzzLanguages() []string {
	var langs []string
	for l := range braceLangs {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	return append([]string{"go", "python"}, langs...)
}

func fuzzMax(m uint16) int {
	return int(m % 5000) // 0 means the default
}

var proseSeeds = []string{
	"Chapter 1\n\nIt was a dark night. Dr. Who said so.\n\n***\n\nNext.\n",
	"# Title\n\n```\ncode\n\n# not heading\n```\nSetext\n---\n\npara\n",
	"2023-05-08 Went out.\n1:56 pm on 8 May, 2023\nCaroline: hi\n8 de mayo de 2023 nota\n## May 9th 2023\nx\n",
	"Visita 12/03/2024\nDiagnóstico: HTA\nTratamiento:\n- enalapril 10 mg\n\n2024-04-20 Control\nPlan:\n",
	"# Recipes\n## Pancakes\n### Ingredients\n- egg\n### Steps\n1. Mix.\n## Waffles\nIngredients:\n- egg\n",
	"PREREQUISITES\n- kubectl\n\n**Rollback**\n$ kubectl rollout undo\n",
	"\uFEFF\r\n\r\n  text\r\n\r\n",
	"",
	"\n",
	"\xff\xfe\x00 . . ! ? …",
}

func FuzzSplitCode(f *testing.F) {
	langs := fuzzLanguages()
	index := map[string]uint8{}
	for i, l := range langs {
		index[l] = uint8(i)
	}
	for _, cs := range codeSamples {
		src, err := os.ReadFile(filepath.Join("testdata", cs.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(index[cs.lang], string(src), uint16(1))
		f.Add(index[cs.lang], string(src), uint16(200))
	}
	for _, s := range []string{"`${`${`${", "/* /* */", "r#\"", "R\"x(", "'\\", "\"\"\"", "#if\n{\n#else\n{\n#endif\n}", "<?php <<<X\n", "@\"", "$\"{", "#\"", "f'{"} {
		for i := range langs {
			f.Add(uint8(i), s, uint16(0))
		}
	}
	f.Fuzz(func(t *testing.T, lang uint8, text string, m uint16) {
		l := langs[int(lang)%len(langs)]
		max := fuzzMax(m)
		det, blocks := Split("", text, Options{Domain: "software." + l, MaxBytes: max})
		if det.Language != l {
			t.Fatalf("language %q, want %q", det.Language, l)
		}
		checkInvariant(t, text, det, blocks, max)
	})
}

func fuzzType(f *testing.F, typ Type) {
	for _, s := range proseSeeds {
		f.Add(s, uint16(0))
		f.Add(s, uint16(8))
	}
	f.Fuzz(func(t *testing.T, text string, m uint16) {
		max := fuzzMax(m)
		det, blocks := Split("", text, Options{Type: typ, Domain: "fuzz", MaxBytes: max})
		checkInvariant(t, text, det, blocks, max)
	})
}

func FuzzSplitNarrative(f *testing.F) { fuzzType(f, TypeNarrative) }
func FuzzSplitTemporal(f *testing.F)  { fuzzType(f, TypeTemporal) }
func FuzzSplitClinical(f *testing.F)  { fuzzType(f, TypeClinical) }
func FuzzSplitProcess(f *testing.F)   { fuzzType(f, TypeProcess) }
func FuzzSplitGeneric(f *testing.F)   { fuzzType(f, TypeGeneric) }

// FuzzDetectAndSplit runs the whole path, detection included.
func FuzzDetectAndSplit(f *testing.F) {
	for _, s := range proseSeeds {
		f.Add("", s)
	}
	for _, cs := range codeSamples {
		src, _ := os.ReadFile(filepath.Join("testdata", cs.file))
		f.Add("", string(src))
		f.Add(cs.file, string(src))
	}
	f.Fuzz(func(t *testing.T, name, text string) {
		det, blocks := Split(name, text, Options{MaxBytes: 256})
		checkInvariant(t, text, det, blocks, 256)
	})
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDistil: a word joins a synset only in a tagged sense among its
// first few; proper names and phrases never join; a synset left with one
// word is not written.
func TestDistil(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		// lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt synsets (most frequent first)
		"index.noun": "  1 This software and database is being provided to you\n" +
			"start n 2 0 2 2 00000001 00000002\n" +
			"beginning n 1 0 1 1 00000001\n" +
			"kickoff n 1 0 1 0 00000001\n" +
			"outset n 1 0 1 1 00000001\n" +
			"paris n 1 0 1 1 00000003\n" +
			"Paris n 1 0 1 1 00000003\n" +
			"capital n 2 0 2 1 00000004 00000003\n",
		"index.verb": "swap v 1 0 1 1 00000010\n" +
			"trade v 4 0 4 4 00000020 00000021 00000022 00000010\n",
		"index.adj": "",
		"index.adv": "",
		// sense key, sense number, tag count
		"cntlist.rev": "start%1:28:00:: 1 30\nstart%1:11:00:: 2 5\n" +
			"beginning%1:28:00:: 1 12\noutset%1:28:00:: 1 3\n" +
			"swap%2:40:00:: 1 1\ntrade%2:40:00:: 1 6\ntrade%2:40:01:: 2 6\ntrade%2:40:02:: 3 2\ntrade%2:40:03:: 4 2\n" +
			"capital%1:15:00:: 1 9\nParis%1:15:00:: 1 4\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "wordnet.txt")
	if err := run(options{dir: dir, out: out, minFreq: 1, maxRank: 3}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "#") {
			sets = append(sets, l)
		}
	}
	// kickoff: untagged; trade meets swap only in its fourth sense; Paris
	// is a name; capital's sense shared with it is untagged.
	if want := []string{"beginning outset start"}; strings.Join(sets, "|") != strings.Join(want, "|") {
		t.Errorf("synsets %q, want %q", sets, want)
	}
	if !strings.Contains(string(b), "WORDNET-LICENSE") {
		t.Error("the output does not name its licence")
	}
	// Positive control: allowed its fourth sense, trade meets swap.
	if err := run(options{dir: dir, out: out, minFreq: 1, maxRank: 4}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "\nswap trade\n") {
		t.Errorf("with -max-rank 4, no swap/trade set:\n%s", b)
	}
	if err := run(options{dir: t.TempDir(), out: out}); err == nil || !strings.Contains(err.Error(), "wordnet-base") {
		t.Errorf("no database: %v, want an error saying what to install", err)
	}
}

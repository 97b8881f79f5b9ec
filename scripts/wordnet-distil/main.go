// Command wordnet-distil writes pkg/lexicon/wordnet.txt, the synonym sets
// of common English words that the lexicon adds to queries, from a
// WordNet 3.0 database (Debian's wordnet-base installs one in
// /usr/share/wordnet). It is run by hand and its output committed:
//
//	go run ./scripts/wordnet-distil [-dict /usr/share/wordnet] [-o pkg/lexicon/wordnet.txt]
//
// The selection is general, by how often each sense is used in WordNet's
// own sense-tagged corpus (cntlist.rev, from SemCor), never by any
// question set:
//
//   - a word counts when its senses are tagged at least -min-freq times in
//     all; only single words in lower-case letters count (no proper names,
//     no phrases);
//   - a word belongs to a synset when that sense is tagged, is among its
//     -max-rank first (WordNet orders senses by frequency) and carries at
//     least -min-share of the word's tags: a word is a synonym only in a
//     sense it is commonly used in, so "start" and "beginning" meet, but
//     "trade" and "swap" do not (that is trade's fourth verb sense);
//   - a synset is written when at least two such words remain.
//
// The defaults are what was measured and kept (README, "Paraphrase");
// stricter ones keep fewer sets and found less.
//
// The output is one synset a line, its words separated by spaces, after a
// header that names the source and its licence (WORDNET-LICENSE beside
// it carries the notice the licence asks every copy to keep).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type options struct {
	dir      string
	out      string
	minFreq  int
	maxRank  int
	minShare float64
}

func main() {
	var o options
	flag.StringVar(&o.dir, "dict", "/usr/share/wordnet", "WordNet 3.0 database directory (index.*, data.*, cntlist.rev)")
	flag.StringVar(&o.out, "o", "pkg/lexicon/wordnet.txt", "output file")
	flag.IntVar(&o.minFreq, "min-freq", 1, "a word is common when its senses are tagged at least this often")
	flag.IntVar(&o.maxRank, "max-rank", 3, "a word is a synonym only in one of its first N senses")
	flag.Float64Var(&o.minShare, "min-share", 0, "…that carries at least this share of the word's tags")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "wordnet-distil:", err)
		os.Exit(1)
	}
}

// sense is one sense of a word: its synset and how often it is tagged.
type sense struct {
	pos    string
	offset string
	count  int
}

var posNames = []string{"noun", "verb", "adj", "adv"}

// posOfKey maps a sense key's synset type to its index file (5, an
// adjective satellite, is listed in index.adj).
var posOfKey = map[byte]string{'1': "noun", '2': "verb", '3': "adj", '4': "adv", '5': "adj"}

func run(o options) error {
	senses := map[string][]sense{} // word → senses in WordNet's order, all parts of speech
	byPos := map[string]map[string][]string{}
	for _, p := range posNames {
		idx, err := readIndex(filepath.Join(o.dir, "index."+p))
		if err != nil {
			return err
		}
		byPos[p] = idx
	}
	if err := readCounts(filepath.Join(o.dir, "cntlist.rev"), byPos, senses); err != nil {
		return err
	}
	members := map[string][]string{} // pos+offset → qualifying words
	for w, ss := range senses {
		if !plainWord(w) {
			continue
		}
		total := 0
		for _, s := range ss {
			total += s.count
		}
		if total < o.minFreq {
			continue
		}
		for _, s := range ss {
			if s.count > 0 && rankOf(byPos[s.pos][w], s.offset) <= o.maxRank && float64(s.count) >= o.minShare*float64(total) {
				members[s.pos+s.offset] = append(members[s.pos+s.offset], w)
			}
		}
	}
	var lines []string
	seen := map[string]bool{}
	for _, ws := range members {
		if len(ws) < 2 {
			continue
		}
		slices.Sort(ws)
		line := strings.Join(ws, " ")
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	return write(o, lines)
}

// readIndex returns each word's synsets in sense order.
func readIndex(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w (install wordnet-base)", path, err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue // the licence header
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			continue
		}
		synsets, err := strconv.Atoi(fs[2])
		if err != nil || synsets > len(fs) {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		out[fs[0]] = fs[len(fs)-synsets:]
	}
	return out, sc.Err()
}

// readCounts reads cntlist.rev (sense key, sense number, tag count) into
// senses, resolving each sense number to its synset through the index.
func readCounts(path string, byPos map[string]map[string][]string, senses map[string][]sense) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		word, rest, ok := strings.Cut(fs[0], "%")
		if !ok || rest == "" {
			continue
		}
		p := posOfKey[rest[0]]
		n, err1 := strconv.Atoi(fs[1])
		c, err2 := strconv.Atoi(fs[2])
		syn := byPos[p][word]
		if p == "" || err1 != nil || err2 != nil || n < 1 || n > len(syn) {
			continue
		}
		senses[word] = append(senses[word], sense{pos: p, offset: syn[n-1], count: c})
	}
	return sc.Err()
}

func rankOf(synsets []string, offset string) int {
	return slices.Index(synsets, offset) + 1
}

// plainWord: one word of lower-case ASCII letters, at least three.
func plainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func write(o options, lines []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Synonym sets of common English words, distilled from WordNet 3.0 by scripts/wordnet-distil\n")
	fmt.Fprintf(&b, "# (-min-freq %d -max-rank %d -min-share %g): one synset a line.\n", o.minFreq, o.maxRank, o.minShare)
	fmt.Fprintf(&b, "# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. See WORDNET-LICENSE.\n")
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(o.out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wordnet-distil: %d synsets to %s\n", len(lines), o.out)
	return nil
}

package lexicon

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The FreeDict English–Spanish and Spanish–English dictionaries are GPL,
// so IHMT never carries them: it reads them where dictd packages install
// them (Debian's dict-freedict-eng-spa and dict-freedict-spa-eng), when
// they are there. The format is dictd's: a .index file of lines
// "headword TAB offset TAB length" (numbers in base64 digits) into a .dict
// file, here gzip-compressed (.dict.dz, dictzip, which any gzip reader
// reads whole).

// FreeDictDirs are where dictd dictionaries are installed: Debian and
// most Linux distributions, a local install, Homebrew.
var FreeDictDirs = []string{"/usr/share/dictd", "/usr/local/share/dictd", "/opt/homebrew/share/dictd"}

// freeDictNames are the two dictionaries, by their dictd database names.
var freeDictNames = []string{"freedict-eng-spa", "freedict-spa-eng"}

// maxDictBytes bounds what is read of one dictionary file: FreeDict's are
// a few hundred KB, and a file far larger is not one.
const maxDictBytes = 32 << 20

// Translations are the words of the other language for a word, from the
// FreeDict dictionaries found in one directory.
type Translations struct {
	// Files are the dictionaries read, by path.
	Files []string
	// Headwords is how many single-word entries they hold.
	Headwords int
	words     related
}

// FindFreeDict returns the FreeDict English–Spanish dictionaries of the
// first of dirs that holds either; none installed is nil and no error.
func FindFreeDict(dirs []string) (*Translations, error) {
	for _, d := range dirs {
		t, err := ReadFreeDict(d)
		if t != nil || err != nil {
			return t, err
		}
	}
	return nil, nil
}

// ReadFreeDict reads the FreeDict English–Spanish and Spanish–English
// dictionaries in dir, either or both; neither there is nil and no
// error. Each word's translations stand for it, and it for each of them:
// either dictionary serves both ways.
func ReadFreeDict(dir string) (*Translations, error) {
	t := &Translations{words: related{}}
	var back [][2]string // translation → headword, after every headword's own
	for _, name := range freeDictNames {
		entries, path, err := readDictd(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		t.Files = append(t.Files, path)
		for _, e := range entries {
			t.Headwords++
			t.words.add(e.head, e.senses)
			for _, s := range e.senses {
				back = append(back, [2]string{s, e.head})
			}
		}
	}
	if len(t.Files) == 0 {
		return nil, nil
	}
	for _, b := range back {
		t.words.add(b[0], []string{b[1]})
	}
	return t, nil
}

// entry is one single-word headword and its one-word translations, first
// sense first.
type entry struct {
	head   string
	senses []string
}

// readDictd reads the dictionary at base (.index and .dict.dz or .dict).
func readDictd(base string) ([]entry, string, error) {
	index, err := readBounded(base + ".index")
	if err != nil {
		return nil, "", err
	}
	body, path, err := readDictBody(base)
	if err != nil {
		return nil, "", err
	}
	entries, err := parseDictd(index, body)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return entries, path, nil
}

func readDictBody(base string) ([]byte, string, error) {
	path := base + ".dict.dz"
	raw, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		path = base + ".dict"
		raw, err = readBounded(path)
		return raw, path, err
	}
	if err != nil {
		return nil, "", err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	body, err := io.ReadAll(io.LimitReader(zr, maxDictBytes+1))
	if err == nil && len(body) > maxDictBytes {
		err = fmt.Errorf("more than %d bytes uncompressed", maxDictBytes)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return body, path, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDictBytes+1))
	if err == nil && len(b) > maxDictBytes {
		err = fmt.Errorf("%s: larger than %d bytes, not a FreeDict dictionary", path, maxDictBytes)
	}
	return b, err
}

// parseDictd reads the entries the index points to. The English–Spanish
// index lists a phrase ("run across") under its first word alone, so of
// one headword's entries only those with the shortest pronunciation (the
// word's own) are kept; a headword of more than one word, and a
// translation of more than one, are left out (a phrase is not a term).
func parseDictd(index, body []byte) ([]entry, error) {
	type found struct {
		entry
		pron int
	}
	var out []found
	at := map[string]int{} // headword → its entry in out
	sc := bufio.NewScanner(bytes.NewReader(index))
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 3 {
			return nil, fmt.Errorf("index line %d: want headword, offset and length", line)
		}
		off, ok1 := b64(fields[1])
		n, ok2 := b64(fields[2])
		if !ok1 || !ok2 || off+n > len(body) || off+n < off {
			return nil, fmt.Errorf("index line %d: offset or length out of the dictionary", line)
		}
		if n > maxEntry {
			return nil, fmt.Errorf("index line %d: an entry of %d bytes, at most %d (a damaged index?)", line, n, maxEntry)
		}
		head, pron, senses := parseEntry(body[off : off+n])
		if strings.HasPrefix(fields[0], "00database") || strings.ContainsRune(head, ' ') || len(senses) == 0 {
			continue
		}
		i, seen := at[head]
		switch {
		case !seen:
			at[head] = len(out)
			out = append(out, found{entry{head, senses}, pron})
		case pron < out[i].pron:
			out[i] = found{entry{head, senses}, pron}
		case pron == out[i].pron:
			out[i].senses = append(out[i].senses, senses...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	entries := make([]entry, len(out))
	for i, f := range out {
		entries[i] = f.entry
	}
	return entries, nil
}

// maxEntry bounds one entry: real ones are well under a kilobyte, and an
// index pointing each line at the whole body would copy it once a line.
const maxEntry = 64 << 10

// parseEntry reads "head /pronunciation/" and then its senses, one a
// line, numbered ("1. a, b") when there are several.
func parseEntry(b []byte) (head string, pron int, senses []string) {
	if !utf8.Valid(b) {
		return "", 0, nil
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	first := lines[0]
	head = first
	if i := strings.Index(first, " /"); i >= 0 {
		head, pron = first[:i], len(first)-i
	}
	head = strings.TrimSpace(head)
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if d, rest, ok := strings.Cut(l, ". "); ok && isDigits(d) {
			l = rest
		}
		for s := range strings.SplitSeq(l, ",") {
			if s = strings.TrimSpace(s); s != "" && !strings.ContainsRune(s, ' ') {
				senses = append(senses, s)
			}
		}
	}
	return head, pron, senses
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// b64 decodes a dictd number: base64 digits, most significant first.
func b64(s string) (int, bool) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	if s == "" || len(s) > 8 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(digits, s[i])
		if d < 0 {
			return 0, false
		}
		n = n*64 + d
	}
	return n, true
}

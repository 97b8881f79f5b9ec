package codeindex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/pkg/ingest"
	"github.com/ihmt-dev/ihmt/pkg/screen"
)

// sync brings the index up to date with the files. The caller holds p.mu.
func (p *Project) sync() (Stats, error) {
	start := time.Now()
	var st Stats
	seen := map[string]bool{}
	ig := ignores{}
	changed := false
	count := 0
	p.truncated = false
	err := filepath.WalkDir(p.root, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable entry is left out, as git would
		}
		rel, _ := filepath.Rel(p.root, abs)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				rel = ""
			} else if d.Name() == ".git" || ig.ignored(rel, true) {
				return filepath.SkipDir
			}
			if data, err := os.ReadFile(filepath.Join(abs, ".gitignore")); err == nil {
				ig[rel] = parseIgnore(string(data))
			}
			return nil
		}
		if !d.Type().IsRegular() || ig.ignored(rel, false) {
			return nil // symlinks are not followed; devices and sockets are not code
		}
		if count++; count > MaxFiles {
			p.truncated = true
			return filepath.SkipAll
		}
		seen[rel] = true
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if p.update(rel, abs, info, &st) {
			changed = true
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	for rel, f := range p.files {
		if !seen[rel] {
			p.drop(f)
			delete(p.files, rel)
			st.Removed++
			changed = true
		}
	}
	for _, f := range p.files {
		st.Files++
		st.Symbols += len(f.Symbols)
		if f.Skipped != "" {
			st.Skipped++
		}
	}
	if changed {
		if err := p.save(); err != nil {
			p.log.Warn("code index: the manifest was not written; the next start indexes again", "root", p.root, "err", err)
		}
	}
	st.Took = time.Since(start)
	return st, nil
}

// update brings one file's entry up to date; it reports whether the
// entry changed.
func (p *Project) update(rel, abs string, info fs.FileInfo, st *Stats) bool {
	f := p.files[rel]
	size, mtime := info.Size(), info.ModTime().UnixNano()
	if f != nil && f.Size == size && f.ModTime == mtime {
		return false
	}
	if size > MaxFileBytes {
		if f != nil {
			p.drop(f)
		}
		p.files[rel] = p.newFile(rel, size, mtime, "too big")
		return true
	}
	data, _, err := readBeneath(p.root, rel, MaxFileBytes)
	if err != nil {
		return false // swapped for a symlink, gone or grown since the walk saw it
	}
	sum := checksum(data)
	if f != nil && f.Sum == sum {
		// Touched, not changed.
		f.Size, f.ModTime = size, mtime
		st.Checksummed++
		return true
	}
	if f != nil {
		p.drop(f)
	}
	nf := p.newFile(rel, int64(len(data)), mtime, "")
	nf.Sum = sum
	switch {
	case !isText(data):
		nf.Skipped = "not text"
	case len(screen.Secrets(string(data))) > 0:
		// Neither its symbols nor its lines are indexed: find_code never
		// shows them, and project_map lists the file as not indexed.
		nf.Skipped = "holds a credential"
	default:
		text := string(data)
		nf.Lines = lineCount(text)
		nf.Code, nf.Symbols = symbols(rel, text)
		if p.ix != nil {
			p.indexFile(nf, text)
		}
	}
	p.files[rel] = nf
	st.Reindexed++
	return true
}

func (p *Project) newFile(rel string, size, mtime int64, skipped string) *file {
	p.nextGroup++
	return &file{Path: rel, Size: size, ModTime: mtime, Skipped: skipped, group: p.nextGroup}
}

func checksum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:16])
}

// isText: UTF-8 without NUL bytes (binary formats have them early).
func isText(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) < 0 && utf8.Valid(data)
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// mergeBelow: a class or struct split per member is put back together
// when whole it is no bigger than this, so a symbol is a declaration a
// reader wants whole; a bigger one stays per member.
const mergeBelow = 8 << 10

// symbols splits a code file into its declarations; code says whether the
// file is code at all (prose and data files are mapped, not split).
func symbols(rel, text string) (code bool, out []Symbol) {
	det, blocks := ingest.Split(path.Base(rel), text, ingest.Options{MaxBytes: 1})
	if det.Type != ingest.TypeCode {
		return false, nil
	}
	type span struct {
		b          ingest.Block
		start, end int
	}
	spans := make([]span, 0, len(blocks))
	off := 0
	for _, b := range blocks {
		spans = append(spans, span{b, off, off + len(b.Text)})
		off += len(b.Text)
	}
	for i := 0; i < len(spans); i++ {
		s := spans[i]
		// A container split per member: its header block, the members
		// (which carry the header as Context) and a closing block.
		j := i + 1
		for j < len(spans) && spans[j].b.Context != "" {
			j++
		}
		if j > i+1 {
			if j < len(spans) && isClosing(spans[j].b.Text) {
				j++
			}
			if spans[j-1].end-s.start <= mergeBelow {
				out = append(out, symbol(text, s.b, s.start, spans[j-1].end, ""))
				i = j - 1
				continue
			}
			out = append(out, symbol(text, s.b, s.start, s.end, ""))
			for k := i + 1; k < j; k++ {
				m := spans[k]
				if isClosing(m.b.Text) {
					continue
				}
				out = append(out, symbol(text, m.b, m.start, m.end, s.b.Title))
			}
			i = j - 1
			continue
		}
		if isClosing(s.b.Text) && len(out) > 0 {
			continue
		}
		out = append(out, symbol(text, s.b, s.start, s.end, ""))
	}
	return true, out
}

func isClosing(t string) bool {
	return strings.Trim(t, " \t\r\n};)") == ""
}

// symbol describes one declaration; owner names the class of a member.
func symbol(text string, b ingest.Block, start, end int, owner string) Symbol {
	// The range a reader cares about starts at the declaration's first
	// line, not at the blank lines before it.
	for start < end && (text[start] == '\n' || text[start] == '\r') {
		start++
	}
	trimmed := strings.TrimRight(text[start:end], " \t\r\n")
	name := b.Title
	if owner != "" && !strings.Contains(name, ".") {
		name = owner + "." + name
	}
	first := strings.Count(text[:start], "\n") + 1
	return Symbol{
		Name: name, Kind: kindOf(trimmed, owner != ""),
		First: first, Last: first + strings.Count(trimmed, "\n"),
		Start: start, End: start + len(trimmed),
	}
}

var (
	reImports = regexp.MustCompile(`^\s*(package|import|from\s+\S+\s+import|using|#include|use|require|#!)\b`)
	reType    = regexp.MustCompile(`^\s*(?:(?:export|public|private|protected|internal|abstract|final|sealed|static|data|pub(?:\([^)]*\))?|default|declare|open)\s+)*(type|class|struct|interface|enum|trait|record|impl|protocol|object|union|namespace|module)\b`)
	reFunc    = regexp.MustCompile(`^\s*(?:(?:export|public|private|protected|internal|static|async|override|virtual|abstract|final|inline|pub(?:\([^)]*\))?|unsafe|extern|const|suspend|open|default)\s+)*(func|function|def|fn|fun|sub|proc)\b`)
	reGoMeth  = regexp.MustCompile(`^func\s*\(`)
	reCall    = regexp.MustCompile(`^\s*[\w<>\[\],.?*&:\s]*\b\w+\s*\([^;]*\)\s*(\{|:|=>|throws|->|$)`)
)

// kindOf names what a declaration is from its first line of code.
func kindOf(text string, member bool) string {
	line := firstCode(text)
	switch {
	case reImports.MatchString(line):
		return "imports"
	case reGoMeth.MatchString(line):
		return "method"
	case reType.MatchString(line):
		return "type"
	case reFunc.MatchString(line), member && reCall.MatchString(line):
		if member {
			return "method"
		}
		return "func"
	}
	return "decl"
}

// firstCode is the first line that is not a comment, an annotation or a
// decorator.
func firstCode(text string) string {
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") ||
			strings.HasPrefix(t, "#[") || strings.HasPrefix(t, "@") || (strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#include")) ||
			strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, "--") {
			continue
		}
		return l
	}
	return ""
}

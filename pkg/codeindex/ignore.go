package codeindex

import (
	"path"
	"regexp"
	"strings"
)

// The .gitignore rules the index honours: one file per directory, each
// pattern relative to its directory; a later match wins, "!" re-includes,
// a trailing "/" matches directories only, a pattern with a "/" inside is
// anchored to its directory, "*", "?", "[…]" and "**" as git reads them.
// Not read: .git/info/exclude and the user's global excludes file (they
// are the user's, not the project's), and a re-include under an excluded
// directory, which git does not honour either.

type rule struct {
	re      *regexp.Regexp
	neg     bool
	dirOnly bool
	base    bool // matched against the name alone
}

// parseIgnore reads a .gitignore's rules.
func parseIgnore(text string) []rule {
	var out []rule
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimRight(line, " "); !strings.HasSuffix(line, `\ `) {
			line = t
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := rule{}
		if strings.HasPrefix(line, "!") {
			r.neg, line = true, line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		r.base = !strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		re, err := regexp.Compile("^" + globRegexp(line) + "$")
		if err != nil {
			continue // git skips a pattern it cannot read, too
		}
		r.re = re
		out = append(out, r)
	}
	return out
}

// globRegexp translates a gitignore glob.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "/**") && i+3 == len(g):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// ignores holds the rules of every .gitignore read so far, by directory
// (relative to the root, "" for the root).
type ignores map[string][]rule

// ignored reports whether rel (relative to the root, forward slashes) is
// ignored: the rules of its directory's .gitignore and every ancestor's
// are read, root first, and the last match wins.
func (ig ignores) ignored(rel string, dir bool) bool {
	out := false
	parent := path.Dir(rel)
	if parent == "." {
		parent = ""
	}
	for d := ""; ; {
		sub := rel
		if d != "" {
			sub = strings.TrimPrefix(rel, d+"/")
		}
		for _, r := range ig[d] {
			if r.dirOnly && !dir {
				continue
			}
			subject := sub
			if r.base {
				subject = path.Base(rel)
			}
			if r.re.MatchString(subject) {
				out = !r.neg
			}
		}
		if d == parent {
			return out
		}
		next := parent
		if rest, ok := strings.CutPrefix(parent, d); ok {
			rest = strings.TrimPrefix(rest, "/")
			if k := strings.IndexByte(rest, '/'); k >= 0 {
				rest = rest[:k]
			}
			if d == "" {
				next = rest
			} else {
				next = d + "/" + rest
			}
		}
		d = next
	}
}

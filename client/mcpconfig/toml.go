package mcpconfig

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML editor, for Codex's config.toml. The TOML library parses and
// validates; the edit itself is textual — replace or append the
// [mcp_servers.ihmt] table and its sub-tables — so every other table,
// comment and blank line keeps its bytes. Like the JSON editor, every edit
// is checked afterwards by decoding both versions.

// tomlTable is one table header and the lines that belong to it.
type tomlTable struct {
	key []string
	// start is where the header line begins; end is just past the table's
	// last line of content. Blank and comment lines after that belong to
	// whatever follows (they usually describe the next table).
	start, end int
}

// decodeTOML parses src, reporting a malformed file with its line.
func decodeTOML(src []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.Decode(string(src), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// The library counts an error at a line's end as the next line.
			l, c := position(src, pe.Position.Start)
			return nil, &syntaxError{l, c, pe.Message}
		}
		return nil, &syntaxError{1, 1, err.Error()}
	}
	return m, nil
}

// tomlTables finds every table header in a valid TOML document, skipping
// brackets inside strings and multi-line arrays.
func tomlTables(src []byte) []tomlTable {
	var tables []tomlTable
	depth := 0       // open [ and { of values
	lastContent := 0 // end of the last line with content
	i := 0
	for i < len(src) {
		lineStart := i
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		content := false
		if depth == 0 && i < len(src) && src[i] == '[' {
			key, next := tomlHeader(src, i)
			if len(tables) > 0 {
				tables[len(tables)-1].end = lastContent
			}
			tables = append(tables, tomlTable{key: key, start: lineStart})
			i = next
			content = true
		}
		for i < len(src) && src[i] != '\n' {
			c := src[i]
			switch {
			case c == '#':
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			case c == '"' || c == '\'':
				i = skipTOMLString(src, i)
				content = true
				continue
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth--
			}
			if c != ' ' && c != '\t' && c != '\r' {
				content = true
			}
			i++
		}
		if i < len(src) {
			i++ // the newline
		}
		if content || depth > 0 {
			lastContent = i
		}
	}
	if len(tables) > 0 {
		tables[len(tables)-1].end = lastContent
	}
	return tables
}

// tomlHeader reads the header at src[i] ('[') and returns its key and the
// offset just past its closing bracket(s).
func tomlHeader(src []byte, i int) ([]string, int) {
	i++
	if i < len(src) && src[i] == '[' {
		i++ // an array of tables: [[...]]
	}
	var key []string
	var part strings.Builder
	for i < len(src) && src[i] != '\n' {
		switch c := src[i]; c {
		case '"', '\'':
			end := skipTOMLString(src, i)
			raw := string(src[i:end])
			if c == '"' {
				var m map[string]string
				if _, err := toml.Decode("k = "+raw, &m); err == nil {
					raw = m["k"]
				} else {
					raw = strings.Trim(raw, `"`)
				}
			} else {
				raw = strings.Trim(raw, "'")
			}
			part.WriteString(raw)
			i = end
			continue
		case '.':
			key = append(key, part.String())
			part.Reset()
		case ']':
			key = append(key, part.String())
			for i < len(src) && src[i] == ']' {
				i++
			}
			return key, i
		case ' ', '\t':
		default:
			part.WriteByte(c)
		}
		i++
	}
	return append(key, part.String()), i
}

// skipTOMLString returns the offset just past the string starting at
// src[i], which may be basic, literal or multi-line.
func skipTOMLString(src []byte, i int) int {
	q := src[i]
	if bytes.HasPrefix(src[i:], []byte{q, q, q}) {
		for j := i + 3; j < len(src); j++ {
			if q == '"' && src[j] == '\\' {
				j++
				continue
			}
			if bytes.HasPrefix(src[j:], []byte{q, q, q}) {
				// Up to two more quotes may belong to the string.
				j += 3
				for n := 0; n < 2 && j < len(src) && src[j] == q; n++ {
					j++
				}
				return j
			}
		}
		return len(src)
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(src)
}

// ours reports whether a table key is mcp_servers.ihmt or below it.
func ours(key []string) bool {
	return len(key) >= 2 && key[0] == "mcp_servers" && key[1] == serverName
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// setTOMLTable replaces our tables with block, or appends block.
func setTOMLTable(src []byte, block string) []byte {
	var mine []tomlTable
	for _, t := range tomlTables(src) {
		if ours(t.key) {
			mine = append(mine, t)
		}
	}
	if len(mine) == 0 {
		return appendBlock(src, block)
	}
	out := src
	for i := len(mine) - 1; i > 0; i-- {
		out = cut(out, mine[i].start, mine[i].end)
	}
	return splice(out, mine[0].start, mine[0].end, block)
}

// removeTOMLTable removes our tables.
func removeTOMLTable(src []byte) []byte {
	out := src
	tables := tomlTables(src)
	for i := len(tables) - 1; i >= 0; i-- {
		if ours(tables[i].key) {
			out = cut(out, tables[i].start, tables[i].end)
		}
	}
	return out
}

// appendBlock adds block at the end of src after a blank line.
func appendBlock(src []byte, block string) []byte {
	out := bytes.Clone(src)
	switch {
	case len(bytes.TrimSpace(src)) == 0:
		return append(out, block...)
	case bytes.HasSuffix(src, []byte("\n\n")):
	case bytes.HasSuffix(src, []byte("\n")):
		out = append(out, '\n')
	default:
		out = append(out, "\n\n"...)
	}
	return append(out, block...)
}

// cut removes src[from:to] and the blank line it leaves doubled: the
// inverse of appendBlock for a block at the end.
func cut(src []byte, from, to int) []byte {
	before, after := src[:from], src[to:]
	switch {
	case len(bytes.TrimSpace(after)) == 0 && bytes.HasSuffix(before, []byte("\n\n")):
		before = before[:len(before)-1]
	case bytes.HasSuffix(before, []byte("\n\n")) && bytes.HasPrefix(after, []byte("\n")):
		after = after[1:]
	}
	out := append(bytes.Clone(before), after...)
	if len(bytes.TrimSpace(out)) == 0 {
		return nil
	}
	return out
}
